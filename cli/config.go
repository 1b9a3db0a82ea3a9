package cli

import (
	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/settings"
)

// ConfigCmd is `config`: the settings in effect here and where each one comes from.
type ConfigCmd struct {
	Cwd  string `short:"C" name:"cwd" placeholder:"DIR" help:"Show the settings of a run started in DIR."`
	JSON bool   `name:"json" help:"One JSON object per setting ({\"setting\",\"value\",\"from\"}) instead of a table."`
}

// Run prints the settings of a run parsed here, filled in as the run would be.
func (c *ConfigCmd) Run(streams *IO) error {
	var run CLI
	parser, err := NewParser(&run, *streams)
	if err != nil {
		return err
	}
	args := []string{"run"}
	if c.Cwd != "" {
		args = append(args, "--cwd", c.Cwd)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		return exitcode.New(exitcode.Usage, err.Error())
	}
	sources, err := run.Run.PromptFlags.applySettings(streams, kctx)
	if err != nil {
		return err
	}
	effective := map[string]any{"model": provider.DefaultModel, "tools": tools.Names(), "compaction.reserve": int64(agent.DefaultCompactionReserve)}
	return settings.Print(streams.Out, kctx, sources, effective, c.JSON)
}
