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
	usage := exitcode.New(exitcode.Usage, "bad flag")
	for _, c := range []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"nil", nil, exitcode.OK, ""},
		{"plain", errors.New("boom"), exitcode.Failure, "boom"},
		{"Fail", usage, exitcode.Usage, "bad flag"},
		{"Fail wrapped", fmt.Errorf("while starting: %w", usage), exitcode.Usage, "while starting: bad flag"},
		{"Fail wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", exitcode.New(exitcode.Limit, "max turns"))), exitcode.Limit, "a: b: max turns"},
		{"silent", exitcode.New(exitcode.Gate, ""), exitcode.Gate, ""},
		{"silent wrapped", fmt.Errorf("x: %w", exitcode.New(exitcode.Interrupted, "")), exitcode.Interrupted, ""},
		{"Wrap", exitcode.Wrap(exitcode.Usage, fs.ErrNotExist), exitcode.Usage, "file does not exist"},
		{"joined", errors.Join(errors.New("first"), exitcode.New(exitcode.Terminated, "terminated")), exitcode.Terminated, "first\nterminated"},
		{"another package's", fmt.Errorf("wrapped: %w", codedError{}), 7, "wrapped: their reason"},
		{"broken pipe", &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}, exitcode.OK, ""},
		{"broken pipe with a status", exitcode.Wrap(exitcode.Failure, syscall.EPIPE), exitcode.OK, ""},
	} {
		code, msg := exitcode.Of(c.err)
		if code != c.code || msg != c.msg {
			t.Errorf("%s: exitCode = %d %q, want %d %q", c.name, code, msg, c.code, c.msg)
		}
	}
}

func TestExitErrorKeepsItsCause(t *testing.T) {
	err := fmt.Errorf("open: %w", exitcode.Wrap(exitcode.Usage, fs.ErrPermission))
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("errors.Is does not find the cause through %v", err)
	}
	var ee *exitcode.Error
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Usage {
		t.Errorf("errors.As finds no exitcode.Error with status 2 in %v", err)
	}
	if exitcode.Wrap(exitcode.Usage, nil) != nil {
		t.Error("exitcode.Wrap(nil) is not nil")
	}
}
