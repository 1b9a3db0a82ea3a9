package settings

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/sandbox"
)

// Sources says where each setting in effect came from: a settings file, or "flag".
type Sources map[string]string

// File is the settings file the setting key came from: "" when a flag gave it, or nothing.
func (s Sources) File(key string) string {
	if from := s[key]; from != "flag" {
		return from
	}
	return ""
}

// Apply sets the flags of a parsed command line that it does not give from the settings
// files of home and cwd (the project's winning over the user's), and returns where each
// value came from. Its errors name the file, and the line where they can.
func Apply(home, cwd string, kctx *kong.Context) (Sources, error) {
	flags := flagsByName(kctx)
	given := map[string]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			given[p.Flag.Name] = true
		}
	}
	sources := Sources{}
	for _, path := range Paths(home, cwd) {
		doc, err := Read(path)
		if err != nil {
			return nil, err
		}
		for _, s := range Keys {
			f := flags[s.Flag]
			if f == nil {
				continue
			}
			if given[s.Flag] || (s.Flag == "tools" && given["no-tools"]) {
				sources[s.Name] = "flag"
				continue
			}
			v, ok, err := doc.Value(s.Name)
			if err != nil {
				return nil, err
			}
			if !ok || looserSandbox(s.Name, sources, v, f) {
				continue
			}
			rv, err := FlagValue(v, f.Value.Target.Type(), f.Value.Enum)
			if err != nil {
				return nil, doc.Error(s.Name, err)
			}
			f.Value.Target.Set(rv)
			sources[s.Name] = path
		}
	}
	return sources, nil
}

// looserSandbox reports whether v, the value of key in a later settings file, would loosen
// the sandbox an earlier one set: the project's settings lie in the workspace, which a
// sandboxed run may write, so they may only make the sandbox stricter.
func looserSandbox(key string, sources Sources, v any, f *kong.Flag) bool {
	if key != "sandbox" || sources[key] == "" {
		return false
	}
	mode, err := sandbox.ParseMode(fmt.Sprint(v))
	if err != nil {
		return false // FlagValue names the bad value
	}
	earlier, _ := sandbox.ParseMode(f.Value.Target.String())
	return !mode.Stricter(earlier)
}

func flagsByName(kctx *kong.Context) map[string]*kong.Flag {
	flags := map[string]*kong.Flag{}
	for _, f := range kctx.Flags() {
		flags[f.Name] = f
	}
	return flags
}

// Print writes one line per setting of a command line that Apply filled in: its key, its
// value as a settings file writes it (JSON; where no file sets it, the default a run uses,
// null for no limit) and its source, a settings file or "default". effective gives what an
// empty flag stands for. asJSON writes one JSON object per setting
// ({"setting","value","from"}) instead of a table.
func Print(w io.Writer, kctx *kong.Context, sources Sources, effective map[string]any, asJSON bool) error {
	flags := flagsByName(kctx)
	out := codec.NewLineWriter(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if !asJSON {
		fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	}
	for _, s := range Keys {
		f := flags[s.Flag]
		if f == nil {
			continue // not a flag of this command line
		}
		from := sources[s.Name]
		if from == "" {
			from = "default"
		}
		value := FileValue(s.Name, f.Value.Target.Interface())
		if def, ok := effective[s.Name]; ok && from == "default" {
			value = def
		}
		text, err := json.Marshal(value)
		if err != nil {
			return err
		}
		if !asJSON {
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
