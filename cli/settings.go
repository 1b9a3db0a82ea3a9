package cli

import (
	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/settings"
)

// settled is what the settings files add to a run's flags besides their values: where each
// setting came from, and the settings' model, which is only a default (a resumed session
// keeps its own model).
type settled struct {
	sources settings.Sources
	model   string
}

// settle fills in the run flags the command line does not give from the settings files,
// then checks the combination again.
func (c *RunCmd) settle(streams *IO, kctx *kong.Context) (settled, error) {
	sources, err := c.PromptFlags.applySettings(streams, kctx)
	if err != nil {
		return settled{}, err
	}
	s := settled{sources: sources}
	if sources.File("model") != "" {
		s.model, c.Model = c.Model, ""
	}
	return s, exitcode.Wrap(exitcode.Usage, c.Validate(kctx))
}

// applySettings fills in the flags of kctx the command line does not give from the settings
// files of the home and of the directory the run works in (--cwd).
func (f *PromptFlags) applySettings(streams *IO, kctx *kong.Context) (settings.Sources, error) {
	cwd, err := f.workDir()
	if err != nil {
		return nil, err
	}
	sources, err := settings.Apply(string(streams.home()), cwd, kctx)
	return sources, exitcode.Wrap(exitcode.Usage, err)
}
