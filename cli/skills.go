package cli

import (
	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/skills"
)

// SkillSources choose which skills are loaded (docs/skills.md).
type SkillSources struct {
	Skill        []string `placeholder:"PATH" sep:"none" help:"Load the skills of PATH too (a SKILL.md or a folder of skills), first: it wins a name clash. Repeatable."`
	NoSkills     bool     `help:"Load no skills (.agents/skills, .base-context/skills, <home>/skills, --skill)."`
	EnableSkill  []string `placeholder:"NAME" help:"Load only these skills. Repeatable."`
	DisableSkill []string `placeholder:"NAME" help:"Do not load this skill. Repeatable."`
}

// SkillFlags are a run's skills and the ones it must activate. RunCmd embeds them.
type SkillFlags struct {
	SkillSources `embed:""`
	RequireSkill []string `placeholder:"NAME" help:"Fail the run (exit 4, as a gate) unless the model activated this skill (read its SKILL.md). Repeatable."`
}

// options are where the skills of a run in cwd come from.
func (f *SkillSources) options(streams *IO, cwd string) skills.Options {
	return skills.Options{Cwd: cwd, Home: string(streams.home()), Paths: f.Skill, None: f.NoSkills,
		Enabled: f.EnableSkill, Disabled: f.DisableSkill}
}

// prepare finds the run's skills and templates, warning on stderr of what cannot be used; a
// required skill that is not loaded is a usage error.
func (f *SkillFlags) prepare(streams *IO, cwd string) (*skills.Run, error) {
	r := skills.Prepare(f.options(streams, cwd), streams.warn)
	return r, Wrap(ExitUsage, r.SetRequired(f.RequireSkill))
}

// SkillsCmd is `base-context skills`.
type SkillsCmd struct {
	List     SkillsListCmd     `cmd:"" help:"List the skills a run here would load, and the ones refused."`
	Validate SkillsValidateCmd `cmd:"" help:"Check a SKILL.md, a skill's folder or a folder of skills; exit 1 with each problem."`
}

// Run prints the help of skills when no subcommand is named.
func (c *SkillsCmd) Run(k *kong.Context) error { return groupHelp(k, c) }

// SkillsListCmd is `base-context skills list`.
type SkillsListCmd struct {
	SkillSources `embed:""`
	JSON         bool `help:"One JSON object per skill and line instead of a table."`
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
	set := skills.Discover(c.options(streams, cwd))
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
