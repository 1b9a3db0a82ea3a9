package cli

import (
	"github.com/basecontext/base-context/internal/cmdline"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/signals"
	"github.com/basecontext/base-context/stages"
)

// Exit statuses (docs/running.md "Exit status"): package exitcode's, by the names commands use.
const (
	ExitOK          = exitcode.OK
	ExitFailure     = exitcode.Failure
	ExitUsage       = exitcode.Usage
	ExitLimit       = exitcode.Limit
	ExitGate        = exitcode.Gate
	ExitHangup      = exitcode.Hangup
	ExitInterrupted = exitcode.Interrupted
	ExitTerminated  = exitcode.Terminated
)

// ExitError is an error that knows the status the process exits with (exitcode.Error).
type ExitError = exitcode.Error

// Fail returns an error that exits with code, printing msg.
func Fail(code int, msg string) error { return exitcode.New(code, msg) }

// Wrap gives err the exit status code (exitcode.Wrap).
func Wrap(code int, err error) error { return exitcode.Wrap(code, err) }

// exitStatuses say what each status means, for --help and the man page: the README's table.
var exitStatuses = []cmdline.ExitStatus{
	{Codes: []int{ExitOK}, Meaning: "completed (and every gate passed); a filter saw only valid lines"},
	{Codes: []int{ExitFailure}, Meaning: "the run failed; a filter met lines that are not JSON objects"},
	{Codes: []int{ExitUsage}, Meaning: "usage or startup error (bad flags, a mistyped command, no API key, …)"},
	{Codes: []int{ExitLimit}, Meaning: "an autonomous run was stopped by a limit"},
	{Codes: []int{ExitGate}, Meaning: "a gate failed or never ran"},
	{Codes: []int{ExitHangup, ExitInterrupted, ExitTerminated}, Meaning: "hung up (SIGHUP), interrupted (SIGINT), terminated (SIGTERM)"},
}

// signalErr is the error of a command ended by the signal w received, nil while none has.
func signalErr(w *signals.Watch) error { return exitcode.SignalError(w.Received()) }

// verdictExit maps a verdict status to the exit status of the run.
var verdictExit = stages.VerdictExit
