package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signalWatch is the one owner of the signals that stop a command: SIGHUP, SIGINT and
// SIGTERM. Run makes one per command line; a command that must end properly on a signal
// (close its stream in order, remove a temporary file) asks for its context, which the first
// signal cancels, and its main path then returns err(), the status the signal calls for.
// A command that never asks keeps the signals' default action, which ends it at once. No
// goroutine ends the process: the exit status goes back through Run.
type signalWatch struct {
	mu     sync.Mutex
	ch     chan os.Signal
	ctx    context.Context
	cancel context.CancelCauseFunc // with the signal's error, which interrupted tools report
	got    os.Signal
}

// stopSignals are the signals watched. SIGHUP is left alone when the process started with
// it ignored, so that `nohup base-context …` outlives its terminal.
func stopSignals() []os.Signal {
	sigs := []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// context starts watching, on the first call, and returns the context the first signal
// cancels. A nil watch (a command run without Run) is never cancelled.
func (w *signalWatch) context() context.Context {
	if w == nil {
		return context.Background()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx != nil {
		return w.ctx
	}
	w.ctx, w.cancel = context.WithCancelCause(context.Background())
	w.ch = make(chan os.Signal, 2)
	signal.Notify(w.ch, stopSignals()...)
	go func(ch <-chan os.Signal, cancel context.CancelCauseFunc) {
		for s := range ch {
			w.mu.Lock()
			if w.got == nil {
				w.got = s
			}
			w.mu.Unlock()
			cancel(signalCause(s))
		}
	}(w.ch, w.cancel)
	return w.ctx
}

// stop gives the signals their default action back.
func (w *signalWatch) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		signal.Stop(w.ch)
		close(w.ch)
		w.cancel(nil)
		w.ch = nil
	}
}

// signalCause says which signal stopped the command, for what it interrupted.
func signalCause(s os.Signal) error {
	switch s {
	case syscall.SIGINT:
		return errors.New("interrupted (SIGINT)")
	case syscall.SIGTERM:
		return errors.New("terminated (SIGTERM)")
	case syscall.SIGHUP:
		return errors.New("hung up (SIGHUP)")
	}
	return fmt.Errorf("stopped by %v", s)
}

// exit is the status and the error line of a command ended by the signal received; ok is
// false while none has arrived.
func (w *signalWatch) exit() (code int, msg string, ok bool) {
	if w == nil {
		return 0, "", false
	}
	w.mu.Lock()
	s := w.got
	w.mu.Unlock()
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

// err is the error of a command ended by the signal received (130 "interrupted" for
// SIGINT), nil while none has arrived.
func (w *signalWatch) err() error {
	if code, msg, ok := w.exit(); ok {
		return Fail(code, msg)
	}
	return nil
}
