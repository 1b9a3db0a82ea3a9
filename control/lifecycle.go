package control

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/basecontext/base-context/internal/exitcode"
)

// The commands on running sessions (list, stop, send, attach), with the exit status of each
// failure: a query that names no run is a usage error (2), a run that cannot be reached a
// failure (1).

// FindRunning resolves an id or prefix among the running sessions of h.
func (h Home) FindRunning(query string) (Entry, error) {
	entries, err := Running(h.Registry())
	if err != nil {
		return Entry{}, exitcode.Wrap(exitcode.Failure, err)
	}
	e, err := MatchRunning(entries, h.Sessions(), query)
	return e, exitcode.Wrap(exitcode.Usage, err)
}

// StopRunning stops the running session query names, as Ctrl-C would, and waits for its end.
func (h Home) StopRunning(query string) error {
	e, err := h.FindRunning(query)
	if err != nil {
		return err
	}
	if err := Stop(e.Socket); err != nil {
		return exitcode.New(exitcode.Failure, fmt.Sprintf("cannot stop session %s: %v", e.ID, err))
	}
	return nil
}

// SendRunning queues text into the running session query names, as kind (KindSteer or
// KindFollowUp).
func (h Home) SendRunning(query, kind, text string) error {
	if text == "" {
		return exitcode.New(exitcode.Usage, "empty message")
	}
	e, err := h.FindRunning(query)
	if err != nil {
		return err
	}
	if _, err := Call(e.Socket, Request{Op: OpSend, Kind: kind, Text: text}); err != nil {
		return exitcode.New(exitcode.Failure, fmt.Sprintf("cannot send to session %s: %v", e.ID, err))
	}
	return nil
}

// ListRunning writes the running sessions, after tidying up what ended runs left behind.
func (h Home) ListRunning(out io.Writer, asJSON bool) error {
	Prune(h.Registry(), time.Now().Add(-KeepEnded))
	h.PruneOutputs()
	entries, err := Running(h.Registry())
	if err != nil {
		return exitcode.Wrap(exitcode.Failure, err)
	}
	return WriteRunning(out, entries, asJSON)
}

// Attach follows the stream of the detached run query names to its end (Follow) and returns
// the run's own ending as the error: nil when it completed. stopped reports the status of a
// stop signal that ended the following (ctx done): the run goes on, detached.
func (h Home) Attach(ctx context.Context, query string, out io.Writer, fromNow bool, stopped func() int) error {
	ids, running, err := Attachable(h.Registry())
	if err != nil {
		return exitcode.Wrap(exitcode.Failure, err)
	}
	id, err := MatchAttachable(ids, running, h.Sessions(), query)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	x, err := Follow(ctx, h.Registry(), id, out, fromNow)
	if ctx.Err() != nil {
		return exitcode.New(stopped(), "")
	}
	if err != nil || x.Code == exitcode.OK {
		return err
	}
	return exitcode.New(x.Code, x.Error)
}
