package cli

import (
	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/skills"
)

// SkillsCmd is `base-context skills`.
type SkillsCmd struct {
	List     SkillsListCmd     `cmd:"" help:"List the skills a run here would load, and the ones refused."`
	Validate SkillsValidateCmd `cmd:"" help:"Check a SKILL.md, a skill's folder or a folder of skills; exit 1 with each problem."`
}

// Run prints the help of skills when no subcommand is named.
func (c *SkillsCmd) Run(k *kong.Context) error { return groupHelp(k, c) }

// SkillsListCmd is `base-context skills list`.
type SkillsListCmd struct {
	skills.SourceFlags `embed:""`
	JSON               bool `help:"One JSON object per skill and line instead of a table."`
}

// Run lists the skills with the run's flags and settings (skills.paths, enabled, disabled).
func (c *SkillsListCmd) Run(streams *IO, kctx *kong.Context) error {
	prompt := PromptFlags{}
	if _, err := prompt.applySettings(streams, kctx); err != nil {
		return err
	}
	cwd, err := prompt.workDir()
	if err != nil {
		return err
	}
	set := skills.Discover(c.Options(string(streams.home()), cwd))
	for _, w := range set.Warnings {
		streams.warn(w)
	}
	return skills.List(streams.Out, set, c.JSON)
}

// SkillsValidateCmd is `base-context skills validate`.
type SkillsValidateCmd struct {
	Path string `arg:"" help:"A SKILL.md, a skill's folder or a folder of skills."`
}

// Run checks the path: each problem on stderr, exit 1 when there is one.
func (c *SkillsValidateCmd) Run(streams *IO) error {
	return skills.Validate(streams.Out, streams.Err, c.Path)
}
