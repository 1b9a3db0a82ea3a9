package cli

import (
	"context"
	"syscall"

	"github.com/basecontext/base-context/internal/signals"
)

// signalWatch is the stop signals of a command line (signals.Watch), with the exit status
// each calls for. Run makes one per command line; a nil one (a command run without Run) is
// never cancelled.
type signalWatch signals.Watch

func (s *signalWatch) watch() *signals.Watch { return (*signals.Watch)(s) }

// context returns the context the first signal cancels, watching from the first call.
func (s *signalWatch) context() context.Context { return s.watch().Context() }

// stop gives the signals their default action back.
func (s *signalWatch) stop() { s.watch().Stop() }

// exit is the status and the error line of a command ended by the signal received; ok is
// false while none has arrived.
func (s *signalWatch) exit() (code int, msg string, ok bool) {
	switch s.watch().Received() {
	case syscall.SIGHUP:
		return ExitHangup, "hangup", true
	case syscall.SIGINT:
		return ExitInterrupted, "interrupted", true
	case syscall.SIGTERM:
		return ExitTerminated, "terminated", true
	}
	return 0, "", false
}

// err is the error of a command ended by the signal received (130 "interrupted" for
// SIGINT), nil while none has arrived.
func (s *signalWatch) err() error {
	if code, msg, ok := s.exit(); ok {
		return Fail(code, msg)
	}
	return nil
}
