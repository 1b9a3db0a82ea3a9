package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// The command structs are flag declarations only: every field is a flag, an argument or a
// group of them (exported), so that nothing a method computes can hide in them and be read
// by another method that must run later. What the flags resolve to lives in the plan.
func TestCommandsHoldNoState(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(t *testing.T, typ reflect.Type, path string)
	walk = func(t *testing.T, typ reflect.Type, path string) {
		if typ.Kind() != reflect.Struct || seen[typ] || typ.PkgPath() != reflect.TypeOf(CLI{}).PkgPath() {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				t.Errorf("%s.%s is not a flag: state belongs in the plan", path, f.Name)
				continue
			}
			walk(t, f.Type, path+"."+f.Name)
		}
	}
	walk(t, reflect.TypeOf(CLI{}), "CLI")
	if !seen[reflect.TypeOf(RedactFlags{})] || !seen[reflect.TypeOf(SessionFlags{})] || !seen[reflect.TypeOf(FilterIO{})] {
		t.Fatal("the walk missed the run flags")
	}
}

// models.json is read once however many times a run asks for the registry (its model, the
// keys it redacts, the models rpc lists).
func TestModelsFileIsReadOnce(t *testing.T) {
	const key = "sk-local-" + "0123456789" // in two pieces, so that the source stays in the redaction's clean corpus
	home := t.TempDir()
	path := filepath.Join(home, "models.json")
	if err := os.WriteFile(path, []byte(`{"providers":{"local":{"baseUrl":"http://localhost:1/v1","api":"openai-completions","apiKey":"`+key+`","models":[{"id":"m1"}]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	streams := &IO{Getenv: func(k string) string {
		if k == "BASE_CONTEXT_HOME" {
			return home
		}
		return ""
	}}
	models := newModelsFile(streams)
	first, err := models.registry()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := ModelFlags{Model: "local/m1"}
	if _, _, err := flags.resolve(streams, models, ""); err != nil {
		t.Errorf("resolve read the file again: %v", err)
	}
	if again, err := models.registry(); again != first || err != nil {
		t.Errorf("the registry was read again: %v", err)
	}
	if keys := flags.keys(models); len(keys) != 1 || keys[0] != key {
		t.Errorf("keys = %q", keys)
	}
	if _, err := newModelsFile(streams).registry(); err == nil {
		t.Error("a new run read the old file")
	}
}

// A stop signal cancels the context of the commands that asked for it, and the command's
// exit status is the signal's.
func TestSignalWatch(t *testing.T) {
	var w signalWatch
	defer w.stop()
	ctx := w.context()
	if w.err() != nil {
		t.Fatal("a signal before any was sent")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if code, msg := exitCode(w.err()); code != ExitTerminated || msg != "terminated" {
		t.Errorf("exit %d %q, want 143 terminated", code, msg)
	}
	if w.context() != ctx {
		t.Error("a second watch")
	}
	var none *signalWatch
	if none.context().Done() != nil || none.err() != nil {
		t.Error("a nil watch (a command run without Run) is cancelled")
	}
}
