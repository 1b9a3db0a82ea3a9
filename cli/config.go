package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"text/tabwriter"

	"github.com/alecthomas/kong"
)

// ConfigCmd is `config`: the settings in effect here and where each one comes from.
type ConfigCmd struct {
	Cwd string `short:"C" name:"cwd" placeholder:"DIR" help:"Show the settings of a run started in DIR."`
}

// Run prints one line per setting: its key, its value (JSON) and its source: a settings
// file, or "default".
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
	tw := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	for _, s := range settingFlags {
		f := flags[s.flag]
		from := sources[s.key]
		if from == "" {
			from = "default"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.key, showSetting(f.Value.Target), from)
	}
	return tw.Flush()
}

// showSetting is a flag's value as JSON (durations as text).
func showSetting(v reflect.Value) string {
	x := v.Interface()
	if d, ok := x.(interface{ String() string }); ok && v.Kind() == reflect.Int64 {
		x = d.String()
	}
	if v.Kind() == reflect.Slice && v.Len() == 0 {
		x = []string{}
	}
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return string(b)
}
