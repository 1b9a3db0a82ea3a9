package cli

import (
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/runredact"
	"github.com/basecontext/base-context/internal/signals"
)

// The command structs are flag declarations only: every field is a flag, an argument or a
// group of them (exported), so that nothing a method computes can hide in them and be read
// by another method that must run later. What the flags resolve to lives in the plan.
func TestCommandsHoldNoState(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(t *testing.T, typ reflect.Type, path string)
	walk = func(t *testing.T, typ reflect.Type, path string) {
		// Ours: cli's, and the flag groups of the packages (sandbox.SandboxFlags, …).
		if typ.Kind() != reflect.Struct || seen[typ] || !strings.HasPrefix(typ.PkgPath(), "github.com/basecontext/base-context/") {
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
	if !seen[reflect.TypeOf(runredact.RedactFlags{})] || !seen[reflect.TypeOf(SessionFlags{})] || !seen[reflect.TypeOf(FilterIO{})] {
		t.Fatal("the walk missed the run flags")
	}
}

// A stop signal cancels the context of the commands that asked for it, and the command's
// exit status is the signal's.
func TestSignalWatch(t *testing.T) {
	var w signals.Watch
	defer w.Stop()
	ctx := w.Context()
	if signalErr(&w) != nil {
		t.Fatal("a signal before any was sent")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if code, msg := exitcode.Of(signalErr(&w)); code != exitcode.Terminated || msg != "terminated" {
		t.Errorf("exit %d %q, want 143 terminated", code, msg)
	}
	if w.Context() != ctx {
		t.Error("a second watch")
	}
	var none *signals.Watch
	if none.Context().Done() != nil || signalErr(none) != nil {
		t.Error("a nil watch (a command run without Run) is cancelled")
	}
}
