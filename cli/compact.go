package cli

import (
	"errors"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/exitcode"
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
	Keep       int64 `bound:"nonnegative" default:"20000" placeholder:"TOKENS" help:"Tokens of recent messages kept whole."`
}

func (c *CompactCmd) Run(streams *IO) error {
	path, err := control.FindSaved(c.folder(streams).Dir, c.ID)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	out := codec.NewLineWriter(streams.Out)
	err = agent.CompactSaved(streams.signals.Context(), path, agent.SavedCompaction{
		ID: c.ID, Instructions: c.Instructions, Keep: c.Keep, Warn: warn(streams),
		Resolve: func(saved string) (provider.Model, provider.Provider, error) {
			return c.ModelFlags.resolve(streams, newModels(streams), saved)
		},
		Emit: func(e codec.Event) error { return out.WriteLine(e.AppendJSON(nil)) },
	})
	if err := signalErr(streams.signals); err != nil {
		return err
	}
	if _, failed := errors.AsType[*agent.CompactionError](err); failed {
		return exitcode.New(exitcode.Failure, err.Error())
	}
	return exitcode.Wrap(exitcode.Usage, err) // the session could not be opened, or the model resolved
}
