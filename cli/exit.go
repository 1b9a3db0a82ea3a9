package cli

import (
	"errors"
	"syscall"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/internal/cmdline"
	"github.com/basecontext/base-context/internal/signals"
	"github.com/basecontext/base-context/stages"
)

// Exit statuses (docs/stream.md "Exit status"). One table, used by every command.
const (
	ExitOK          = 0   // the run completed / the filter had nothing to report
	ExitFailure     = 1   // the run failed, or a filter met invalid input
	ExitUsage       = 2   // bad flags or arguments, startup errors
	ExitLimit       = 3   // an autonomous run was stopped by a limit
	ExitGate        = 4   // a gate failed or never ran
	ExitHangup      = 129 // SIGHUP
	ExitInterrupted = 130 // SIGINT
	ExitTerminated  = 143 // SIGTERM
)

// exitStatuses say what each status means, for --help and the man page: the README's table.
var exitStatuses = []cmdline.ExitStatus{
	{Codes: []int{ExitOK}, Meaning: "completed (and every gate passed); a filter saw only valid lines"},
	{Codes: []int{ExitFailure}, Meaning: "the run failed; a filter met lines that are not JSON objects"},
	{Codes: []int{ExitUsage}, Meaning: "usage or startup error (bad flags, a mistyped command, no API key, …)"},
	{Codes: []int{ExitLimit}, Meaning: "an autonomous run was stopped by a limit"},
	{Codes: []int{ExitGate}, Meaning: "a gate failed or never ran"},
	{Codes: []int{ExitHangup, ExitInterrupted, ExitTerminated}, Meaning: "hung up (SIGHUP), interrupted (SIGINT), terminated (SIGTERM)"},
}

// ExitError is an error that knows the status the process exits with. Msg is printed as
// "error: <msg>" on stderr (an empty one prints nothing: the reason was already reported);
// Err, when set, is the cause, which errors.Is and errors.As still find.
type ExitError struct {
	Code int
	Msg  string
	Err  error
}

func (e *ExitError) Error() string { return e.Msg }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the status the process exits with.
func (e *ExitError) ExitCode() int { return e.Code }

// Fail returns an error that exits with code, printing msg.
func Fail(code int, msg string) error { return &ExitError{Code: code, Msg: msg} }

// Wrap gives err the exit status code, keeping it as the cause and its text as the message;
// nil stays nil.
func Wrap(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Msg: err.Error(), Err: err}
}

// exitCoder is an error that knows its exit status, wherever it is in a chain of wrapped
// errors: ours, and any other package's that says so the same way.
type exitCoder interface {
	error
	ExitCode() int
}

// exitCode maps an error to the status the process exits with and the message it prints.
// A broken pipe downstream means the reader has what it wanted: that is success, and quiet.
// An error that does not know its status is a failure (1).
func exitCode(err error) (code int, msg string) {
	if err == nil {
		return ExitOK, ""
	}
	if errors.Is(err, syscall.EPIPE) {
		return ExitOK, ""
	}
	var coder exitCoder
	if errors.As(err, &coder) {
		if coder.Error() == "" {
			return coder.ExitCode(), "" // reported already, whatever wraps it
		}
		return coder.ExitCode(), err.Error()
	}
	return ExitFailure, err.Error()
}

// signalExit is the status and the error line of a command ended by the signal w received
// (a nil w, a command run without Run, receives none); ok is false while none has arrived.
func signalExit(w *signals.Watch) (code int, msg string, ok bool) {
	switch w.Received() {
	case syscall.SIGHUP:
		return ExitHangup, "hangup", true
	case syscall.SIGINT:
		return ExitInterrupted, "interrupted", true
	case syscall.SIGTERM:
		return ExitTerminated, "terminated", true
	}
	return 0, "", false
}

// signalErr is the error of a command ended by the signal received (130 "interrupted" for
// SIGINT), nil while none has arrived.
func signalErr(w *signals.Watch) error {
	if code, msg, ok := signalExit(w); ok {
		return Fail(code, msg)
	}
	return nil
}

// verdictExit maps a verdict status to the exit status of the run.
var verdictExit = map[string]int{
	stages.VerdictCompleted:   ExitOK,
	stages.VerdictFailed:      ExitFailure,
	stages.VerdictLimit:       ExitLimit,
	stages.VerdictGate:        ExitGate,
	stages.VerdictHangup:      ExitHangup,
	stages.VerdictInterrupted: ExitInterrupted,
	stages.VerdictTerminated:  ExitTerminated,
}

// longRunExit maps how a long run ended to its exit status, or nil when the usual rules decide:
// gates that failed or never ran exit 4, a failed compaction 1, a limit 3.
func longRunExit(o agent.Outcome) error {
	if g := o.Gates; g != nil && !g.Passed {
		return Fail(ExitGate, o.GateFailure())
	}
	if o.CompactionErr != nil {
		return Fail(ExitFailure, "compaction failed: "+o.CompactionErr.Error())
	}
	if o.Limit != nil {
		return Fail(ExitLimit, o.Limit.Error())
	}
	return nil
}
