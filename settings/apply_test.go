package settings

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

type testRun struct {
	Model    string `name:"model"`
	Thinking string `name:"thinking" enum:"off,low,high" default:"off"`
	Tools    string `name:"tools"`
	NoTools  bool   `name:"no-tools"`
	MaxTurns int    `name:"max-turns"`
}

func parse(t *testing.T, args ...string) (*testRun, *kong.Context) {
	t.Helper()
	var run testRun
	parser, err := kong.New(&run)
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	return &run, kctx
}

// The settings fill in the flags the command line does not give, the project's file winning
// over the user's; a flag given (or --no-tools for tools) wins over both.
func TestApply(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(cwd, ".base-context"), 0o700)
	os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"model": "a/user", "thinking": "low", "limits": {"maxTurns": 7}}`), 0o600)
	project := filepath.Join(cwd, ".base-context", "settings.json")
	os.WriteFile(project, []byte(`{"thinking": "high", "tools": ["read"]}`), 0o600)

	run, kctx := parse(t, "--model", "b/flag", "--no-tools")
	sources, err := Apply(home, cwd, kctx)
	if err != nil {
		t.Fatal(err)
	}
	if run.Model != "b/flag" || run.Thinking != "high" || run.Tools != "" || run.MaxTurns != 7 {
		t.Errorf("flags %+v", run)
	}
	if sources["model"] != "flag" || sources["tools"] != "flag" || sources["thinking"] != project || sources["limits.maxTurns"] != filepath.Join(home, "settings.json") {
		t.Errorf("sources %v", sources)
	}

	var out bytes.Buffer
	if err := Print(&out, kctx, sources, map[string]any{"compaction.reserve": 1}, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `{"setting":"thinking","value":"high","from":"`+project+`"}`) {
		t.Errorf("config --json:\n%s", out.String())
	}
}

// A value the flag does not take is an error naming the file, the line and the key.
func TestApplyBadValue(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	path := filepath.Join(home, "settings.json")
	os.WriteFile(path, []byte("{\n  \"thinking\": \"max\"\n}"), 0o600)
	_, kctx := parse(t)
	_, err := Apply(home, cwd, kctx)
	if err == nil || !strings.HasPrefix(err.Error(), path+": line 2: thinking: ") {
		t.Errorf("error %v", err)
	}
}

func TestSourcesFile(t *testing.T) {
	s := Sources{"model": "/home/u/.base-context/settings.json", "permissions.allow": "flag"}
	if got := s.File("model"); got != "/home/u/.base-context/settings.json" {
		t.Errorf("File(model) = %q, want the settings file", got)
	}
	if got := s.File("permissions.allow"); got != "" {
		t.Errorf("File of a flag = %q, want none", got)
	}
	if got := s.File("thinking"); got != "" {
		t.Errorf("File of a setting not given = %q, want none", got)
	}
}
