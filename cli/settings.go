package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/instructions"
	"github.com/basecontext/base-context/agent/policy"
	"github.com/basecontext/base-context/codec"
)

// settingsFile is the document of settings.json. Every member is optional; each one is the
// default of the run flag settingFlags names (a flag given on the command line wins).
type settingsFile struct {
	Model       *string   `json:"model"`
	Thinking    *string   `json:"thinking"`
	Tools       *[]string `json:"tools"`
	Permissions *struct {
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
		MaxRetries *int             `json:"maxRetries"`
		BaseDelay  *settingDuration `json:"baseDelay"`
		MaxDelay   *settingDuration `json:"maxDelay"`
	} `json:"retry"`
	Redact *struct {
		Enabled *bool `json:"enabled"`
		Session *bool `json:"session"`
	} `json:"redact"`
	Limits *struct {
		MaxTurns         *int             `json:"maxTurns"`
		MaxTokens        *int64           `json:"maxTokens"`
		MaxTime          *settingDuration `json:"maxTime"`
		MaxCost          *float64         `json:"maxCost"`
		MaxContinuations *int             `json:"maxContinuations"`
	} `json:"limits"`
}

// settingFlags maps each setting (its dotted key) to the run flag it sets, in the order
// `config` shows them.
var settingFlags = []struct{ key, flag string }{
	{"model", "model"}, {"thinking", "thinking"}, {"tools", "tools"},
	{"permissions.allow", "allow"}, {"permissions.deny", "deny"},
	{"permissions.mode", "permission-mode"}, {"permissions.readOnly", "read-only"},
	{"compaction.auto", "compaction"}, {"compaction.reserve", "compaction-reserve"}, {"compaction.keep", "compaction-keep"},
	{"retry.maxRetries", "max-retries"}, {"retry.baseDelay", "retry-base-delay"}, {"retry.maxDelay", "max-retry-delay"},
	{"redact.enabled", "redact"}, {"redact.session", "redact-session"},
	{"limits.maxTurns", "max-turns"}, {"limits.maxTokens", "max-tokens"}, {"limits.maxTime", "max-time"},
	{"limits.maxCost", "max-cost"}, {"limits.maxContinuations", "max-continuations"},
}

// settingDuration is a duration written as text: "2s", "30m".
type settingDuration time.Duration

func (d *settingDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"30s\" or \"5m\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = settingDuration(v)
	return nil
}

// settingsPaths are the settings files in the order they apply (a later one wins): the
// user's, then the project's (<repo>/.base-context/settings.json, <repo> being the
// repository root of cwd, else cwd).
func settingsPaths(streams *IO, cwd string) []string {
	repo := instructions.RepoRoot(cwd)
	if repo == "" {
		repo = cwd
	}
	return []string{filepath.Join(homeDir(streams), "settings.json"), filepath.Join(repo, ".base-context", "settings.json")}
}

// settingValues reads a settings file into its values by dotted key; a missing file has
// none. An unknown key or a value of the wrong type is a usage error naming file and line.
func settingValues(path string) (map[string]reflect.Value, []byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil, nil // no file there (ENOTDIR: a folder on its path is a file)
	}
	if err != nil {
		return nil, nil, Fail(ExitUsage, "cannot read the settings: "+err.Error())
	}
	var doc settingsFile
	if err := codec.DecodeStrict(data, &doc); err != nil {
		return nil, nil, Fail(ExitUsage, fmt.Sprintf("%s: %v", path, err))
	}
	values := map[string]reflect.Value{}
	collectSettings(reflect.ValueOf(doc), "", values)
	return values, data, nil
}

// keyLine is the line (from 1) of a dotted key's last member in a settings document, found
// after its group's name: good enough to point at a value the decoder accepted.
func keyLine(data []byte, key string) int {
	off := 0
	for _, part := range strings.Split(key, ".") {
		i := bytes.Index(data[off:], []byte(strconv.Quote(part)))
		if i < 0 {
			break
		}
		off += i
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// collectSettings gathers the members set in a decoded struct, by dotted json key.
func collectSettings(v reflect.Value, prefix string, into map[string]reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := v.Field(i)
		if f.IsNil() {
			continue
		}
		key := prefix + strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if e := f.Elem(); e.Kind() == reflect.Struct {
			collectSettings(e, key+".", into)
		} else {
			into[key] = e
		}
	}
}

// settingSources says where each setting in effect came from: a settings file, or "flag".
type settingSources map[string]string

// applySettings sets the run flags not given on the command line from the settings files
// (the project's winning over the user's), and returns where each value came from.
func applySettings(streams *IO, cwd string, kctx *kong.Context) (settingSources, error) {
	flags := map[string]*kong.Flag{}
	for _, f := range kctx.Flags() {
		flags[f.Name] = f
	}
	given := map[string]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			given[p.Flag.Name] = true
		}
	}
	sources := settingSources{}
	for _, path := range settingsPaths(streams, cwd) {
		values, data, err := settingValues(path)
		if err != nil {
			return nil, err
		}
		for _, s := range settingFlags {
			v, ok := values[s.key]
			f := flags[s.flag]
			if f == nil {
				continue
			}
			if given[s.flag] || (s.flag == "tools" && given["no-tools"]) {
				sources[s.key] = "flag"
				continue
			}
			if !ok {
				continue
			}
			err := checkSetting(s.key, v)
			if err == nil {
				err = setFlag(f, v)
			}
			if err != nil {
				return nil, Fail(ExitUsage, fmt.Sprintf("%s: line %d: %s: %v", path, keyLine(data, s.key), s.key, err))
			}
			sources[s.key] = path
		}
	}
	return sources, nil
}

// setFlag gives a flag's target a setting's value, converted where the forms differ.
func setFlag(f *kong.Flag, v reflect.Value) error {
	target := f.Value.Target
	switch x := v.Interface().(type) {
	case settingDuration:
		v = reflect.ValueOf(time.Duration(x))
	case []string:
		if target.Kind() == reflect.String { // tools: a list in the file, a comma list as a flag
			v = reflect.ValueOf(strings.Join(x, ","))
		}
	case bool:
		if target.Kind() == reflect.String { // compaction: on/off
			v = reflect.ValueOf(map[bool]string{true: "on", false: "off"}[x])
		}
	}
	if !v.Type().AssignableTo(target.Type()) {
		return fmt.Errorf("expected %s", target.Type())
	}
	if f.Value.Enum != "" {
		allowed := strings.Split(f.Value.Enum, ",")
		if !slices.Contains(allowed, v.String()) {
			return fmt.Errorf("%q is not one of %s", v.String(), strings.Join(allowed, ", "))
		}
	}
	target.Set(v)
	return nil
}

// settled is what the settings files add to a run's flags besides their values: where each
// setting came from, and the settings' model, which is only a default (a resumed session
// keeps its own model).
type settled struct {
	sources settingSources
	model   string
}

// settle fills in the run flags the command line does not give from the settings files,
// then checks the combination again.
func (c *RunCmd) settle(streams *IO, kctx *kong.Context) (settled, error) {
	cwd, err := c.workDir()
	if err != nil {
		return settled{}, err
	}
	sources, err := applySettings(streams, cwd, kctx)
	if err != nil {
		return settled{}, err
	}
	s := settled{sources: sources}
	if from := sources["model"]; from != "" && from != "flag" {
		s.model, c.Model = c.Model, ""
	}
	if err := c.Validate(); err != nil {
		return settled{}, Fail(ExitUsage, err.Error())
	}
	return s, nil
}

// checkSetting checks what a flag's own parsing would catch later without naming the file:
// the permission rules, the limits.
func checkSetting(key string, v reflect.Value) error {
	if strings.HasPrefix(key, "limits.") {
		return agent.CheckLimit(v.Interface())
	}
	if key != "permissions.allow" && key != "permissions.deny" {
		return nil
	}
	for _, r := range v.Interface().([]string) {
		if _, err := policy.ParseRule(r); err != nil {
			return err
		}
	}
	return nil
}
