// Package settings reads base-context's settings files (<home>/settings.json and
// <repo>/.base-context/settings.json): each member is the default of a run flag, a flag given
// on the command line winning over both files, the project's file over the user's.
//
// A new setting is a member of File and an entry of Keys.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/instructions"
	"github.com/basecontext/base-context/agent/policy"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/userfile"
)

// File is the document of settings.json. Every member is optional.
type File struct {
	Model             *string   `json:"model"`
	Thinking          *string   `json:"thinking"`
	Tools             *[]string `json:"tools"`
	StreamIdleTimeout *Duration `json:"streamIdleTimeout"`
	Sandbox           *string   `json:"sandbox"`
	Otel              *bool     `json:"otel"`
	Permissions       *struct {
		Allow    *[]string `json:"allow"`
		Deny     *[]string `json:"deny"`
		Mode     *string   `json:"mode"`
		ReadOnly *bool     `json:"readOnly"`
	} `json:"permissions"`
	Compaction *struct {
		Auto    *bool  `json:"auto"`
		Reserve *int64 `json:"reserve"`
		Keep    *int64 `json:"keep"`
	} `json:"compaction"`
	Retry *struct {
		MaxRetries *int      `json:"maxRetries"`
		BaseDelay  *Duration `json:"baseDelay"`
		MaxDelay   *Duration `json:"maxDelay"`
	} `json:"retry"`
	Redact *struct {
		Enabled *bool `json:"enabled"`
		Session *bool `json:"session"`
	} `json:"redact"`
	Limits *struct {
		MaxTurns         *int      `json:"maxTurns"`
		MaxTokens        *int64    `json:"maxTokens"`
		MaxTime          *Duration `json:"maxTime"`
		MaxCost          *float64  `json:"maxCost"`
		MaxContinuations *int      `json:"maxContinuations"`
	} `json:"limits"`
	MCPServers *json.RawMessage `json:"mcpServers"` // not a flag's default: package mcp reads it (MCPServers)
	Skills     *struct {
		Paths    *[]string `json:"paths"`
		Enabled  *[]string `json:"enabled"`
		Disabled *[]string `json:"disabled"`
	} `json:"skills"`
}

// Key is a setting: its dotted key in the file and the run flag it is the default of.
type Key struct{ Name, Flag string }

// Keys are the settings in the order `config` shows them.
var Keys = []Key{
	{"model", "model"}, {"thinking", "thinking"}, {"tools", "tools"}, {"streamIdleTimeout", "stream-idle-timeout"},
	{"sandbox", "sandbox"},
	{"otel", "otel"},
	{"permissions.allow", "allow"}, {"permissions.deny", "deny"},
	{"permissions.mode", "permission-mode"}, {"permissions.readOnly", "read-only"},
	{"compaction.auto", "compaction"}, {"compaction.reserve", "compaction-reserve"}, {"compaction.keep", "compaction-keep"},
	{"retry.maxRetries", "max-retries"}, {"retry.baseDelay", "retry-base-delay"}, {"retry.maxDelay", "max-retry-delay"},
	{"redact.enabled", "redact"}, {"redact.session", "redact-session"},
	{"limits.maxTurns", "max-turns"}, {"limits.maxTokens", "max-tokens"}, {"limits.maxTime", "max-time"},
	{"limits.maxCost", "max-cost"}, {"limits.maxContinuations", "max-continuations"},
	{"skills.paths", "skill"}, {"skills.enabled", "enable-skill"}, {"skills.disabled", "disable-skill"},
}

// Duration is a duration written as text: "2s", "30m".
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"30s\" or \"5m\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Paths are the settings files in the order they apply (a later one wins): the user's, in
// home, then the project's (<repo>/.base-context/settings.json, <repo> being the repository
// root of cwd, else cwd).
func Paths(home, cwd string) []string {
	repo := instructions.RepoRoot(cwd)
	if repo == "" {
		repo = cwd
	}
	return []string{filepath.Join(home, "settings.json"), filepath.Join(repo, ".base-context", "settings.json")}
}

// Doc is a settings file, read.
type Doc struct {
	Path   string
	data   []byte
	values map[string]reflect.Value
}

// Read reads the settings file path; a missing file sets nothing. An unknown key or a value
// of the wrong type is an error naming the file (and the line, where the decoder says).
func Read(path string) (*Doc, error) {
	d := &Doc{Path: path, values: map[string]reflect.Value{}}
	data, err := userfile.Read(path, userfile.ConfigMax) // a regular file, bounded
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return d, nil // no file there (ENOTDIR: a folder on its path is a file)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the settings: %w", err)
	}
	var doc File
	if err := codec.DecodeStrict(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.data = data
	collect(reflect.ValueOf(doc), "", d.values)
	return d, nil
}

// collect gathers the members set in a decoded struct, by dotted json key.
func collect(v reflect.Value, prefix string, into map[string]reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := v.Field(i)
		if f.IsNil() {
			continue
		}
		key := prefix + strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if e := f.Elem(); e.Kind() == reflect.Struct {
			collect(e, key+".", into)
		} else {
			into[key] = e
		}
	}
}

// Value is the value the file sets for key (string, []string, bool, int, int64, float64 or
// Duration); ok is false when it sets none. It is checked as far as the file alone allows:
// permission rules parse, limits are positive and finite.
func (d *Doc) Value(key string) (v any, ok bool, err error) {
	rv, ok := d.values[key]
	if !ok {
		return nil, false, nil
	}
	v = rv.Interface()
	if strings.HasPrefix(key, "limits.") {
		if err := agent.CheckLimit(v); err != nil {
			return nil, true, d.Error(key, err)
		}
	}
	if rules, isList := v.([]string); isList && (key == "permissions.allow" || key == "permissions.deny") {
		for _, r := range rules {
			if _, err := policy.ParseRule(r); err != nil {
				return nil, true, d.Error(key, err)
			}
		}
	}
	return v, true, nil
}

// MCPServers is the file's mcpServers member as written and the line where it starts; nil
// when the file has none.
func (d *Doc) MCPServers() (json.RawMessage, int) {
	v, ok := d.values["mcpServers"]
	if !ok {
		return nil, 0
	}
	raw := v.Interface().(json.RawMessage)
	off := max(bytes.Index(d.data, raw), 0) // raw is a copy of the file's bytes
	return raw, 1 + bytes.Count(d.data[:off], []byte("\n"))
}

// Error locates err, about key's value, in the file: "<path>: line N: key: err".
func (d *Doc) Error(key string, err error) error {
	return fmt.Errorf("%s: line %d: %s: %w", d.Path, d.line(key), key, err)
}

// line is the line (from 1) of a dotted key's last member, found after its group's name:
// good enough to point at a value the decoder accepted.
func (d *Doc) line(key string) int {
	off := 0
	for _, part := range strings.Split(key, ".") {
		i := bytes.Index(d.data[off:], []byte(strconv.Quote(part)))
		if i < 0 {
			break
		}
		off += i
	}
	return 1 + bytes.Count(d.data[:off], []byte("\n"))
}
