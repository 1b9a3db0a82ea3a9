package skills

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/userfile"
)

// Run is what a run has of skills and templates: the skills found, the catalog of the
// system prompt, the templates, and the watcher of activations.
type Run struct {
	Set       *Set
	Catalog   string   // the section of the system prompt
	Unlisted  []string // skills the catalog leaves out, past CatalogMax
	Templates []Template
	Watcher   *Watcher
	Required  []string // --require-skill: the run fails unless the model activates each
}

// Prepare finds the skills and templates of o; what cannot be used is told to warn.
func Prepare(o Options, warn func(string)) *Run {
	r := &Run{Set: Discover(o)}
	r.Catalog, r.Unlisted = Catalog(r.Set.Skills, CatalogMax)
	r.Watcher = r.Set.Watcher(o.Cwd)
	var warnings []string
	r.Templates, warnings = LoadTemplates(o.Cwd, o.Home)
	warnings = append(r.Set.Report(), warnings...)
	if len(r.Unlisted) > 0 {
		warnings = append(warnings, fmt.Sprintf("%d skills are not listed to the model: the list is capped at %d KB (%s)",
			len(r.Unlisted), CatalogMax>>10, strings.Join(r.Unlisted, ", ")))
	}
	for _, w := range warnings {
		if warn != nil {
			warn(w)
		}
	}
	return r
}

// Event is the skills_loaded event of the run; nil when it found no skill at all.
func (r *Run) Event() *codec.SkillsLoaded {
	if r == nil || len(r.Set.Skills)+len(r.Set.Refused)+len(r.Set.Disabled) == 0 {
		return nil
	}
	e := &codec.SkillsLoaded{Skills: []*codec.SkillEntry{}, Refused: []*codec.SkillRefusal{},
		Disabled: r.Set.Disabled, Unlisted: r.Unlisted, Required: r.Required}
	for _, s := range r.Set.Skills {
		e.Skills = append(e.Skills, &codec.SkillEntry{Name: s.Name, Description: s.Description, Path: s.Path})
	}
	for _, f := range r.Set.Refused {
		e.Refused = append(e.Refused, &codec.SkillRefusal{Path: f.Path, Problems: f.Problems})
	}
	return e
}

// Expand expands a /skill:NAME or a /template at the start of text, as the upstream does;
// nil expands nothing. /skill:NAME ARGS is the skill's instructions, then ARGS.
func (r *Run) Expand(text string) string {
	if r == nil {
		return text
	}
	if rest, ok := strings.CutPrefix(text, "/skill:"); ok {
		name, args, _ := strings.Cut(rest, " ")
		s := r.Set.Find(name)
		if s == nil {
			return text
		}
		data, err := userfile.Read(s.Path, MaxFileSize)
		if err != nil {
			return text
		}
		_, body, err := splitFrontMatter(string(data))
		if err != nil {
			return text
		}
		block := fmt.Sprintf("<skill name=%q location=%q>\nReferences are relative to %s.\n\n%s\n</skill>",
			s.Name, s.Path, s.Dir(), strings.TrimSpace(body))
		if args = strings.TrimSpace(args); args != "" {
			block += "\n\n" + args
		}
		return block
	}
	return Expand(text, r.Templates)
}

// RequiredError is a run that never activated a skill it was required to (--require-skill):
// it fails as a gate does.
type RequiredError struct{ Missing []string }

func (e *RequiredError) Error() string {
	return fmt.Sprintf("required skill never activated: %s (the model did not read its %s)", strings.Join(e.Missing, ", "), FileName)
}

// ExitCode is the status of a failed gate.
func (e *RequiredError) ExitCode() int { return 4 }

// Require checks that the model activated every skill of r.Required.
func (r *Run) Require() error {
	if r == nil {
		return nil
	}
	if missing := r.Watcher.Missing(r.Required); len(missing) > 0 {
		return &RequiredError{Missing: missing}
	}
	return nil
}

// SetRequired makes required the skills the run must activate; a name that no loaded skill
// has is an error at once: such a run could never pass.
func (r *Run) SetRequired(required []string) error {
	for _, name := range required {
		if r.Set.Find(name) == nil {
			return fmt.Errorf("--require-skill %s: no skill of that name is loaded", name)
		}
	}
	r.Required = required
	return nil
}

// Observe is Watcher.Observe; nil observes nothing.
func (r *Run) Observe(e codec.Event) *codec.SkillActivated {
	if r == nil {
		return nil
	}
	return r.Watcher.Observe(e)
}

// Command is a command a prompt may start with, in the shape of the upstream's RPC
// get_commands.
type Command struct {
	Name        string     `json:"name" doc:"what follows the / : a template's name, or skill:NAME"`
	Description string     `json:"description"`
	Source      string     `json:"source" enum:"prompt,skill"`
	SourceInfo  SourceInfo `json:"sourceInfo"`
}

// SourceInfo says where a command comes from, as the upstream's sourceInfo.
type SourceInfo struct {
	Path    string `json:"path" doc:"the template's file, or the skill's SKILL.md"`
	Source  string `json:"source" doc:"always local"`
	Scope   string `json:"scope" enum:"user,project,temporary" doc:"user: of the home folder; project: of the repository; temporary: given by --skill"`
	Origin  string `json:"origin" doc:"always top-level"`
	BaseDir string `json:"baseDir" doc:"the folder the command's file is in"`
}

// Commands are the templates, then the skills (as skill:NAME), as get_commands lists them.
func (r *Run) Commands() []Command {
	cmds := []Command{}
	if r == nil {
		return cmds
	}
	for _, t := range r.Templates {
		cmds = append(cmds, Command{Name: t.Name, Description: t.Description, Source: "prompt",
			SourceInfo: SourceInfo{Path: t.Path, Source: "local", Scope: t.Scope, Origin: "top-level", BaseDir: filepath.Dir(t.Path)}})
	}
	for _, s := range r.Set.Skills {
		cmds = append(cmds, Command{Name: "skill:" + s.Name, Description: s.Description, Source: "skill",
			SourceInfo: SourceInfo{Path: s.Path, Source: "local", Scope: s.Scope, Origin: "top-level", BaseDir: s.Dir()}})
	}
	return cmds
}
