package cli

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
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

// stopSignals are the signals that end a run as Ctrl-C does: the stream is closed properly,
// then the process exits with the signal's status (signalExit). SIGHUP is left alone when
// the process started with it ignored, so that `nohup base-context …` outlives its terminal.
func stopSignals() []os.Signal {
	sigs := []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// signalExit is the status and the error line of a run ended by one of stopSignals; ok is
// false for nil (no signal arrived).
func signalExit(s os.Signal) (code int, msg string, ok bool) {
	switch s {
	case syscall.SIGHUP:
		return ExitHangup, "hangup", true
	case syscall.SIGINT:
		return ExitInterrupted, "interrupted", true
	case syscall.SIGTERM:
		return ExitTerminated, "terminated", true
	}
	return 0, "", false
}

// ExitError carries an exit status and the message printed as "error: <msg>" on stderr.
// An empty message prints nothing (the reason was already reported).
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// Fail returns an error that exits with code, printing msg.
func Fail(code int, msg string) error { return &ExitError{Code: code, Msg: msg} }

// exitCode maps an error to the status the process exits with. A broken pipe downstream
// means the reader has what it wanted: that is success, and quiet.
func exitCode(err error) (code int, msg string) {
	if err == nil {
		return ExitOK, ""
	}
	if errors.Is(err, syscall.EPIPE) {
		return ExitOK, ""
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, ee.Msg
	}
	return ExitFailure, err.Error()
}
