package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
)

// SavedCompaction is a manual compaction of a saved session, as a "/compact" prompt would
// do in a run (base-context compact).
type SavedCompaction struct {
	ID           string // the session as the user named it, for the messages
	Instructions string // what the summary should focus on
	Keep         int64  // tokens of recent messages kept whole
	// Resolve gives the model that writes the summary; saved is the session's own.
	Resolve func(saved string) (provider.Model, provider.Provider, error)
	Emit    func(codec.Event) error    // the compaction's events
	Warn    func(path, warning string) // what the session file holds that cannot be used
}

// CompactionError is the failure of the compaction itself, once the session is open and
// the model known.
type CompactionError struct{ Err error }

func (e *CompactionError) Error() string { return "compaction failed: " + e.Err.Error() }
func (e *CompactionError) Unwrap() error { return e.Err }

// CompactSaved compacts the session file at path and appends the compaction entry to it,
// so that the next resume continues from the summary.
func CompactSaved(ctx context.Context, path string, c SavedCompaction) error {
	f, l, err := session.Resume(path)
	if errors.Is(err, session.ErrLocked) {
		return fmt.Errorf("session %s is being written by a run: compact it once the run has ended, or send it a /compact prompt", c.ID)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	for _, w := range l.Warnings {
		c.Warn(path, w)
	}
	saved := ""
	if l.ModelID != "" {
		saved = cmp.Or(l.Provider, provider.APIScript) + "/" + l.ModelID
	}
	model, prov, err := c.Resolve(saved)
	if err != nil {
		return err
	}
	ag := New(Config{Provider: prov, Model: model, Store: f, Emit: c.Emit,
		Compaction: CompactionSettings{Keep: c.Keep}, HistoryEntryIDs: l.ContextEntryIDs()}, l.Context())
	if err := ag.Compact(ctx, c.Instructions); err != nil {
		return &CompactionError{err}
	}
	return nil
}
