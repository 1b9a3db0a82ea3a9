package cli

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
)

// CompactCmd is `base-context compact <id> [instructions]`: a manual compaction of a saved
// session, as a "/compact" prompt would do in a run. It prints the compaction's events as
// JSON lines and appends the compaction entry to the session file, so the next --resume
// continues from the summary.
type CompactCmd struct {
	SessionDirFlag
	ID           string `arg:"" help:"Session id, or a unique prefix of it."`
	Instructions string `arg:"" optional:"" help:"What the summary should focus on."`

	ModelFlags       // the model that writes the summary; default: the session's own
	Keep       int64 `default:"20000" placeholder:"TOKENS" help:"Tokens of recent messages kept whole."`
}

func (c *CompactCmd) Run(streams *IO) error {
	if c.Keep < 0 {
		return Fail(ExitUsage, "--keep must not be negative")
	}
	if err := c.ModelFlags.validate(); err != nil {
		return Fail(ExitUsage, err.Error())
	}
	dir := c.dir(streams)
	path, err := control.FindSaved(dir, c.ID)
	if err != nil {
		return Wrap(ExitUsage, err)
	}
	f, l, err := session.Resume(path)
	if err != nil {
		if errors.Is(err, session.ErrLocked) {
			return Fail(ExitUsage, fmt.Sprintf("session %s is being written by a run: compact it once the run has ended, or send it a /compact prompt", c.ID))
		}
		return Fail(ExitUsage, err.Error())
	}
	defer f.Close()
	for _, w := range l.Warnings {
		fmt.Fprintf(streams.Err, "warning: %s: %s\n", path, w)
	}
	saved := ""
	if l.ModelID != "" {
		saved = cmp.Or(l.Provider, provider.APIScript) + "/" + l.ModelID
	}
	model, prov, err := c.ModelFlags.resolve(streams, newModels(streams), saved)
	if err != nil {
		return err
	}

	ctx := streams.signals.Context()
	out := codec.NewLineWriter(streams.Out)
	ag := agent.New(agent.Config{
		Provider: prov, Model: model, Store: f,
		Emit:            func(e codec.Event) error { return out.WriteLine(e.AppendJSON(nil)) },
		Compaction:      agent.CompactionSettings{Keep: c.Keep},
		HistoryEntryIDs: l.ContextEntryIDs(),
	}, l.Context())
	err = ag.Compact(ctx, c.Instructions)
	if err := signalErr(streams.signals); err != nil {
		return err
	}
	if err != nil {
		return Fail(ExitFailure, "compaction failed: "+err.Error())
	}
	return nil
}
