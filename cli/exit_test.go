package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/basecontext/base-context/internal/exitcode"
)

// codedError is another package's error that knows its exit status the same way.
type codedError struct{}

func (codedError) Error() string { return "their reason" }
func (codedError) ExitCode() int { return 7 }

// Every error maps to one exit status and one error line, however it is wrapped, and keeps
// its cause.
func TestExitCodeOfErrors(t *testing.T) {
	usage := Fail(ExitUsage, "bad flag")
	for _, c := range []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"nil", nil, ExitOK, ""},
		{"plain", errors.New("boom"), ExitFailure, "boom"},
		{"Fail", usage, ExitUsage, "bad flag"},
		{"Fail wrapped", fmt.Errorf("while starting: %w", usage), ExitUsage, "while starting: bad flag"},
		{"Fail wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", Fail(ExitLimit, "max turns"))), ExitLimit, "a: b: max turns"},
		{"silent", Fail(ExitGate, ""), ExitGate, ""},
		{"silent wrapped", fmt.Errorf("x: %w", Fail(ExitInterrupted, "")), ExitInterrupted, ""},
		{"Wrap", Wrap(ExitUsage, fs.ErrNotExist), ExitUsage, "file does not exist"},
		{"joined", errors.Join(errors.New("first"), Fail(ExitTerminated, "terminated")), ExitTerminated, "first\nterminated"},
		{"another package's", fmt.Errorf("wrapped: %w", codedError{}), 7, "wrapped: their reason"},
		{"broken pipe", &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}, ExitOK, ""},
		{"broken pipe with a status", Wrap(ExitFailure, syscall.EPIPE), ExitOK, ""},
	} {
		code, msg := exitcode.Of(c.err)
		if code != c.code || msg != c.msg {
			t.Errorf("%s: exitCode = %d %q, want %d %q", c.name, code, msg, c.code, c.msg)
		}
	}
}

func TestExitErrorKeepsItsCause(t *testing.T) {
	err := fmt.Errorf("open: %w", Wrap(ExitUsage, fs.ErrPermission))
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("errors.Is does not find the cause through %v", err)
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage {
		t.Errorf("errors.As finds no ExitError with status 2 in %v", err)
	}
	if Wrap(ExitUsage, nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
}
