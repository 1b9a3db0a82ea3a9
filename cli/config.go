package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/settings"
)

// ConfigCmd is `config`: the settings in effect here and where each one comes from.
type ConfigCmd struct {
	Cwd  string `short:"C" name:"cwd" placeholder:"DIR" help:"Show the settings of a run started in DIR."`
	JSON bool   `name:"json" help:"One JSON object per setting ({\"setting\",\"value\",\"from\"}) instead of a table."`
}

// Run prints one line per setting: its key, its value as a settings file writes it (JSON;
// where no file sets it, the default a run uses, null for no limit) and its source: a
// settings file, or "default".
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
		return Fail(ExitUsage, err.Error())
	}
	cwd, err := run.Run.workDir()
	if err != nil {
		return err
	}
	sources, err := applySettings(streams, cwd, kctx)
	if err != nil {
		return err
	}
	flags := map[string]*kong.Flag{}
	for _, f := range kctx.Flags() {
		flags[f.Name] = f
	}
	// What an empty flag stands for.
	effective := map[string]any{"model": defaultModel, "tools": tools.Names(), "compaction.reserve": int64(agent.DefaultCompactionReserve)}
	out := codec.NewLineWriter(streams.Out)
	tw := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
	if !c.JSON {
		fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	}
	for _, s := range settings.Keys {
		from := or(sources[s.Name], "default")
		value := settings.FileValue(s.Name, flags[s.Flag].Value.Target.Interface())
		if def, ok := effective[s.Name]; ok && from == "default" {
			value = def
		}
		text, err := json.Marshal(value)
		if err != nil {
			return err
		}
		if !c.JSON {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, text, from)
			continue
		}
		line, _ := json.Marshal(struct {
			Setting string          `json:"setting"`
			Value   json.RawMessage `json:"value"`
			From    string          `json:"from"`
		}{s.Name, text, from})
		if err := out.WriteLine(line); err != nil {
			return err
		}
	}
	return tw.Flush()
}
