package skills

// SourceFlags choose which skills are loaded (kong tags; the command line embeds them).
type SourceFlags struct {
	Skill        []string `placeholder:"PATH" sep:"none" help:"Load the skills of PATH too (a SKILL.md or a folder of skills), first: it wins a name clash. Repeatable."`
	NoSkills     bool     `help:"Load no skills (.agents/skills, .base-context/skills, <home>/skills, --skill)."`
	EnableSkill  []string `placeholder:"NAME" help:"Load only these skills. Repeatable."`
	DisableSkill []string `placeholder:"NAME" help:"Do not load this skill. Repeatable."`
}

// Options are where the skills of a run in cwd come from, home being base-context's.
func (f *SourceFlags) Options(home, cwd string) Options {
	return Options{Cwd: cwd, Home: home, Paths: f.Skill, None: f.NoSkills, Enabled: f.EnableSkill, Disabled: f.DisableSkill}
}

// RunFlags are a run's skills and the ones it must activate.
type RunFlags struct {
	SourceFlags  `embed:""`
	RequireSkill []string `placeholder:"NAME" help:"Fail the run (exit 4, as a gate) unless the model activated this skill (read its SKILL.md). Repeatable."`
}

// Prepare finds the run's skills and templates (Prepare), warning of what cannot be used; a
// required skill that is not loaded is an error.
func (f *RunFlags) Prepare(home, cwd string, warn func(string)) (*Run, error) {
	r := Prepare(f.Options(home, cwd), warn)
	return r, r.SetRequired(f.RequireSkill)
}
