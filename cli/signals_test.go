package cli

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/signals"
)

// The first signal cancels the command's context with a cause that says which signal it
// was: a tool it interrupts reports that, not "context canceled".
func TestSignalCancelsWithItsCause(t *testing.T) {
	w := &signals.Watch{}
	ctx := w.Context()
	defer w.Stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if cause := context.Cause(ctx); cause == nil || cause.Error() != "terminated (SIGTERM)" {
		t.Errorf("cause %v, want terminated (SIGTERM)", cause)
	}
	if code, msg, ok := exitcode.Signal(w.Received()); !ok || code != exitcode.Terminated || msg != "terminated" {
		t.Errorf("exit %d %q %v", code, msg, ok)
	}
}
