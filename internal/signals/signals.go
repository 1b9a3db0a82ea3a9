// Package signals watches the signals that stop a command: SIGHUP, SIGINT and SIGTERM. A
// command that must end properly on a signal (close its stream in order, remove a temporary
// file) asks for the watch's context, which the first signal cancels, and then returns the
// status the signal calls for. A command that never asks keeps the signals' default action,
// which ends it at once. No goroutine ends the process.
package signals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Watch is the one owner of the stop signals of a command line; its zero value is ready. A
// nil *Watch (a command run without one) is never cancelled.
type Watch struct {
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

// Context starts watching, on the first call, and returns the context the first signal
// cancels.
func (w *Watch) Context() context.Context {
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
			cancel(Cause(s))
		}
	}(w.ch, w.cancel)
	return w.ctx
}

// Stop gives the signals their default action back.
func (w *Watch) Stop() {
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

// Received is the first signal received, nil while none has arrived.
func (w *Watch) Received() os.Signal {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got
}

// Cause says which signal stopped the command, for what it interrupted.
func Cause(s os.Signal) error {
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
