package cli

import (
	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/settings"
)

// settingSources says where each setting in effect came from: a settings file, or "flag".
type settingSources map[string]string

// applySettings sets the run flags not given on the command line from the settings files
// (package settings; the project's winning over the user's), and returns where each value
// came from.
func applySettings(streams *IO, cwd string, kctx *kong.Context) (settingSources, error) {
	flags := map[string]*kong.Flag{}
	for _, f := range kctx.Flags() {
		flags[f.Name] = f
	}
	given := map[string]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			given[p.Flag.Name] = true
		}
	}
	sources := settingSources{}
	for _, path := range settings.Paths(homeDir(streams), cwd) {
		doc, err := settings.Read(path)
		if err != nil {
			return nil, Fail(ExitUsage, err.Error())
		}
		for _, s := range settings.Keys {
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
				return nil, Fail(ExitUsage, err.Error())
			}
			if !ok {
				continue
			}
			rv, err := settings.FlagValue(v, f.Value.Target.Type(), f.Value.Enum)
			if err != nil {
				return nil, Fail(ExitUsage, doc.Error(s.Name, err).Error())
			}
			f.Value.Target.Set(rv)
			sources[s.Name] = path
		}
	}
	return sources, nil
}

// settled is what the settings files add to a run's flags besides their values: where each
// setting came from, and the settings' model, which is only a default (a resumed session
// keeps its own model).
type settled struct {
	sources settingSources
	model   string
}

// settle fills in the run flags the command line does not give from the settings files,
// then checks the combination again.
func (c *RunCmd) settle(streams *IO, kctx *kong.Context) (settled, error) {
	cwd, err := c.workDir()
	if err != nil {
		return settled{}, err
	}
	sources, err := applySettings(streams, cwd, kctx)
	if err != nil {
		return settled{}, err
	}
	s := settled{sources: sources}
	if from := sources["model"]; from != "" && from != "flag" {
		s.model, c.Model = c.Model, ""
	}
	if err := c.Validate(); err != nil {
		return settled{}, Fail(ExitUsage, err.Error())
	}
	return s, nil
}
