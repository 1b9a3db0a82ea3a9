// Package exitcode is the exit statuses of base-context (docs/running.md "Exit status") and
// the error that carries one: a package that knows how its failure ends the process says so
// with New or Wrap, and the command line exits with it (Of).
package exitcode

import (
	"errors"
	"os"
	"syscall"
)

// The exit statuses. One table, used by every command.
const (
	OK          = 0   // the run completed / the filter had nothing to report
	Failure     = 1   // the run failed, or a filter met invalid input
	Usage       = 2   // bad flags or arguments, startup errors
	Limit       = 3   // an autonomous run was stopped by a limit
	Gate        = 4   // a gate failed or never ran
	Hangup      = 129 // SIGHUP
	Interrupted = 130 // SIGINT
	Terminated  = 143 // SIGTERM
)

// Status says what one or more statuses mean, for --help and the man page.
type Status struct {
	Codes   []int
	Meaning string
}

// Statuses are the meanings of every status: the README's table.
var Statuses = []Status{
	{Codes: []int{OK}, Meaning: "completed (and every gate passed); a filter saw only valid lines"},
	{Codes: []int{Failure}, Meaning: "the run failed; a filter met lines that are not JSON objects"},
	{Codes: []int{Usage}, Meaning: "usage or startup error (bad flags, a mistyped command, no API key, …)"},
	{Codes: []int{Limit}, Meaning: "an autonomous run was stopped by a limit"},
	{Codes: []int{Gate}, Meaning: "a gate failed or never ran"},
	{Codes: []int{Hangup, Interrupted, Terminated}, Meaning: "hung up (SIGHUP), interrupted (SIGINT), terminated (SIGTERM)"},
}

// Error is an error that knows the status the process exits with. Msg is printed as
// "error: <msg>" on stderr (an empty one prints nothing: the reason was already reported);
// Err, when set, is the cause, which errors.Is and errors.As still find.
type Error struct {
	Code int
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the status the process exits with.
func (e *Error) ExitCode() int { return e.Code }

// New returns an error that exits with code, printing msg.
func New(code int, msg string) error { return &Error{Code: code, Msg: msg} }

// Wrap gives err the exit status code, keeping it as the cause and its text as the message;
// nil stays nil.
func Wrap(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Msg: err.Error(), Err: err}
}

// coder is an error that knows its exit status, wherever it is in a chain of wrapped
// errors: ours, and any other package's that says so the same way.
type coder interface {
	error
	ExitCode() int
}

// Of maps an error to the status the process exits with and the message it prints. A broken
// pipe downstream means the reader has what it wanted: that is success, and quiet. An error
// that does not know its status is a failure (1).
func Of(err error) (code int, msg string) {
	if err == nil {
		return OK, ""
	}
	if errors.Is(err, syscall.EPIPE) {
		return OK, ""
	}
	if c, ok := errors.AsType[coder](err); ok {
		if c.Error() == "" {
			return c.ExitCode(), "" // reported already, whatever wraps it
		}
		return c.ExitCode(), err.Error()
	}
	return Failure, err.Error()
}

// Signal is the status and the error line of a command ended by sig (nil: none arrived,
// ok is false).
func Signal(sig os.Signal) (code int, msg string, ok bool) {
	switch sig {
	case syscall.SIGHUP:
		return Hangup, "hangup", true
	case syscall.SIGINT:
		return Interrupted, "interrupted", true
	case syscall.SIGTERM:
		return Terminated, "terminated", true
	}
	return 0, "", false
}

// SignalError is the error of a command ended by sig (130 "interrupted" for SIGINT), nil
// when sig is nil.
func SignalError(sig os.Signal) error {
	if code, msg, ok := Signal(sig); ok {
		return New(code, msg)
	}
	return nil
}
