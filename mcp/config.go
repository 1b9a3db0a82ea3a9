// Package mcp connects a run to Model Context Protocol servers and offers their tools to the
// model: the configuration (.mcp.json, the settings files' mcpServers, --mcp-config), the
// start of the servers in parallel with one status each, their tools as mcp__<server>__<tool>
// with a timeout that progress resets, a restart of a server that dies, and the `mcp`
// commands' listings. It uses the official Go SDK (github.com/modelcontextprotocol/go-sdk).
package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basecontext/base-context/agent/instructions"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/userfile"
	"github.com/basecontext/base-context/settings"
)

// Defaults of a server's timeouts.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 120 * time.Second
)

// Server is one entry of mcpServers: a command to run (stdio) or a URL (streamable HTTP).
type Server struct {
	Name    string            `json:"-"`
	Type    string            `json:"type"` // "stdio" (the default with command) or "http"
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`

	Enabled        *bool    `json:"enabled"`  // nil: enabled
	Required       bool     `json:"required"` // the run does not start without it
	StartupTimeout Duration `json:"startupTimeout"`
	ToolTimeout    Duration `json:"toolTimeout"`
	EnabledTools   []string `json:"enabledTools"` // empty: all
	DisabledTools  []string `json:"disabledTools"`

	From string `json:"-"` // the file (or --mcp-config) and line it was configured at
}

// Transport is "stdio" or "http".
func (s *Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// Disabled says that enabled is false.
func (s *Server) Disabled() bool { return s.Enabled != nil && !*s.Enabled }

// offers says whether the server's tool name is offered (enabledTools, disabledTools).
func (s *Server) offers(tool string) bool {
	if len(s.EnabledTools) > 0 && !slices.Contains(s.EnabledTools, tool) {
		return false
	}
	return !slices.Contains(s.DisabledTools, tool)
}

// Duration is a timeout written as text ("30s", "2m") or as a number of seconds, as other
// agents' configurations write it.
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	if n, err := strconv.ParseFloat(string(b), 64); err == nil {
		if n <= 0 {
			return fmt.Errorf("a timeout is positive")
		}
		*d = Duration(n * float64(time.Second))
		return nil
	}
	var s settings.Duration
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	if s <= 0 {
		return fmt.Errorf("a timeout is positive")
	}
	*d = Duration(s)
	return nil
}

func (d Duration) or(def time.Duration) time.Duration {
	if d > 0 {
		return time.Duration(d)
	}
	return def
}

// Sources say where the configuration comes from: the flags of a run.
type Sources struct {
	Home, Cwd string   // the settings files and <repo>/.mcp.json
	Flags     []string // each --mcp-config: a file or a JSON text
	Strict    bool     // --strict-mcp-config: only Flags
	None      bool     // --no-mcp
	Getenv    func(string) string
}

// ConfigError is a configuration that cannot be used: the run exits 2.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }
func (e *ConfigError) ExitCode() int { return 2 }

// Load reads the servers the sources configure, sorted by name: the settings files' (the
// user's, then the project's), <repo>/.mcp.json, then each --mcp-config, a later server of a
// name replacing an earlier one. Variables are expanded in the enabled servers. An error
// (a *ConfigError) names the file and the line.
func Load(src Sources) ([]*Server, error) {
	if src.None {
		return nil, nil
	}
	byName := map[string]*Server{}
	add := func(servers map[string]*Server) {
		for name, s := range servers {
			byName[name] = s
		}
	}
	if !src.Strict {
		for _, path := range settings.Paths(src.Home, src.Cwd) {
			doc, err := settings.Read(path)
			if err != nil {
				return nil, &ConfigError{err}
			}
			raw, line := doc.MCPServers()
			if raw == nil {
				continue
			}
			// The member is decoded where it stands: blank lines before it keep the lines true.
			padded := append(bytes.Repeat([]byte("\n"), line-1), raw...)
			var servers map[string]*Server
			if err := decode(path, padded, &servers); err != nil {
				return nil, err
			}
			if err := check(path, padded, servers); err != nil {
				return nil, err
			}
			add(servers)
		}
		repo := cmpOr(instructions.RepoRoot(src.Cwd), src.Cwd)
		servers, err := readFile(filepath.Join(repo, ".mcp.json"), true)
		if err != nil {
			return nil, err
		}
		add(servers)
	}
	for _, flag := range src.Flags {
		var servers map[string]*Server
		var err error
		if text := strings.TrimSpace(flag); strings.HasPrefix(text, "{") {
			servers, err = parse("--mcp-config", []byte(text))
		} else {
			servers, err = readFile(flag, false)
		}
		if err != nil {
			return nil, err
		}
		add(servers)
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]*Server, 0, len(names))
	for _, name := range names {
		s := byName[name]
		if !s.Disabled() {
			if err := s.expand(src.Getenv); err != nil {
				return nil, &ConfigError{fmt.Errorf("%s: server %q: %w", s.From, name, err)}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readFile reads a file of {"mcpServers": {...}}; optional: a missing one configures nothing.
func readFile(path string, optional bool) (map[string]*Server, error) {
	data, err := userfile.Read(path, userfile.ConfigMax)
	if optional && (errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
		return nil, nil
	}
	if err != nil {
		return nil, &ConfigError{fmt.Errorf("--mcp-config: %w", err)}
	}
	return parse(path, data)
}

// parse reads a document of {"mcpServers": {...}}; where names it in errors.
func parse(where string, data []byte) (map[string]*Server, error) {
	var doc struct {
		MCPServers map[string]*Server `json:"mcpServers"`
	}
	if err := decode(where, data, &doc); err != nil {
		return nil, err
	}
	if doc.MCPServers == nil {
		return nil, &ConfigError{fmt.Errorf("%s: line 1: no mcpServers object", where)}
	}
	return doc.MCPServers, check(where, data, doc.MCPServers)
}

func decode(where string, data []byte, v any) error {
	if err := codec.DecodeStrict(data, v); err != nil {
		return &ConfigError{fmt.Errorf("%s: %w", where, err)}
	}
	return nil
}

// check refuses an entry that is neither a command nor a URL, naming its line.
func check(where string, data []byte, servers map[string]*Server) error {
	for name, s := range servers {
		line := 1 + bytes.Count(data[:max(bytes.Index(data, []byte(strconv.Quote(name))), 0)], []byte("\n"))
		if s == nil {
			return &ConfigError{fmt.Errorf("%s: line %d: server %q: expected an object", where, line, name)}
		}
		s.Name, s.From = name, fmt.Sprintf("%s: line %d", where, line)
		bad := func(msg string) error { return &ConfigError{fmt.Errorf("%s: server %q: %s", s.From, name, msg)} }
		switch {
		case name == "" || sanitize(name) == "":
			return bad("a server needs a name made of letters, digits, _ or -")
		case s.Type == "sse":
			return bad(`type "sse" (the old HTTP+SSE transport) is not supported: use "http" (streamable HTTP)`)
		case s.Type != "" && s.Type != "stdio" && s.Type != "http" && s.Type != "streamable-http":
			return bad(fmt.Sprintf("type %q: expected stdio or http", s.Type))
		case s.Command != "" && s.URL != "":
			return bad("command and url exclude each other")
		case s.Command == "" && s.URL == "":
			return bad("expected command (a program to run) or url (a streamable HTTP server)")
		case s.Type == "stdio" && s.URL != "", (s.Type == "http" || s.Type == "streamable-http") && s.Command != "":
			return bad(fmt.Sprintf("type %q does not match the entry", s.Type))
		}
	}
	return nil
}

var variable = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expand replaces ${VAR} and ${VAR:-default} in command, args, env, url and headers; a
// variable that is not set and has no default is an error.
func (s *Server) expand(getenv func(string) string) error {
	var missing []string
	one := func(text string) string {
		return variable.ReplaceAllStringFunc(text, func(m string) string {
			sub := variable.FindStringSubmatch(m)
			if v := getenv(sub[1]); v != "" {
				return v
			}
			if sub[2] == "" {
				if !slices.Contains(missing, sub[1]) {
					missing = append(missing, sub[1])
				}
				return ""
			}
			return sub[3]
		})
	}
	s.Command, s.URL = one(s.Command), one(s.URL)
	for i := range s.Args {
		s.Args[i] = one(s.Args[i])
	}
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for k, v := range m {
			m[k] = one(v)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("${%s} is not set (write ${%s:-DEFAULT} for a default)", strings.Join(missing, "}, ${"), missing[0])
	}
	return nil
}
