package cli

import (
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/internal/exitcode"
)

// ModelFlags choose the model a run talks to; shared by the commands that call a model.
type ModelFlags struct {
	Model    string `placeholder:"PROVIDER/ID" help:"Model as provider/id, or an id one provider alone serves (default: a resumed session's own model, else script/default, the offline scripted provider). See 'base-context models'."`
	Provider string `placeholder:"NAME" help:"Provider of --model, when --model is a bare id."`
	APIKey   string `name:"api-key" placeholder:"KEY" help:"API key for the provider (default: its environment variable or models.json entry)."`
	Script   string `placeholder:"FILE" env:"BASE_CONTEXT_SCRIPT" help:"Script the scripted provider plays (default: a built-in one that lists files)."`

	StreamIdleTimeout time.Duration `bound:"positive" default:"90s" placeholder:"DURATION" help:"Longest silence of the provider's server (waiting for it to answer, or between two chunks of its answer) before the response counts as cut off and is retried. Default: 90s."`
}

// newModels is the user's models file (provider.Models), read at its first use.
func newModels(streams *IO) *provider.Models {
	return provider.NewModels(streams.home().Models(), streams.Getenv)
}

// resolve finds the model (--model, else saved, else the default) and builds its provider
// (provider.Models.Resolve); every failure is a usage error, before anything is written to
// stdout. A provider's warnings go to stderr: stdout carries only the stream.
func (f *ModelFlags) resolve(streams *IO, models *provider.Models, saved string) (provider.Model, provider.Provider, error) {
	m, p, err := models.Resolve(provider.Choice{Model: f.Model, Provider: f.Provider, APIKey: f.APIKey, Script: f.Script,
		StreamIdleTimeout: f.StreamIdleTimeout, Warn: streams.warn}, saved)
	return m, p, exitcode.Wrap(exitcode.Usage, err)
}

// ModelsCmd is `base-context models`.
type ModelsCmd struct {
	JSON bool `help:"One JSON object per model and line instead of a table."`
}

// Run lists the models of the catalog and of models.json, with whether a key is there.
func (c *ModelsCmd) Run(streams *IO) error {
	reg, err := newModels(streams).Registry()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return reg.List(streams.Out, streams.Getenv, c.JSON)
}
