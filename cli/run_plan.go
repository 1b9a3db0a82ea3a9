package cli

import (
	"cmp"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/runner"
)

// plan resolves the flags (and the settings, a resumed session's model) into a runPlan; an
// error is a usage error, before the header. The caller closes p.Source once the run is
// over (a session it opened is the run's to close).
func (c *RunCmd) plan(streams *IO, models *provider.Models, set settled, resident *control.Resident) (_ *runner.Plan, err error) {
	p := &runner.Plan{Models: models, Resident: resident}
	if p.Cwd, err = c.workDir(); err != nil {
		return nil, err
	}
	fixedID := ""
	if resident != nil {
		fixedID = resident.ID
	}
	choice, err := c.chooseSession(streams, p.Cwd, fixedID)
	if err != nil {
		return nil, err
	}
	source, err := choice.Load(streams.home().Registry())
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	p.Source = source
	defer func() {
		if err != nil {
			source.Close()
		}
	}()
	// The model: --model, else the resumed session's own, else the settings'.
	if p.Model, p.Provider, err = c.ModelFlags.resolve(streams, models, cmp.Or(p.Source.Model(), set.model)); err != nil {
		return nil, err
	}
	if err := agent.CheckBudget(c.MaxCost, p.Model); err != nil {
		return nil, exitcode.New(exitcode.Usage, "--max-cost: "+err.Error())
	}
	toolset, err := c.toolset(tools.Options{Cwd: p.Cwd}) // checked before the session starts
	if err != nil {
		return nil, err
	}
	for _, t := range toolset {
		p.ToolNames = append(p.ToolNames, t.Name())
	}
	where, err := mcpWhere(streams, p.Cwd)
	if err != nil {
		return nil, err
	}
	if p.MCPServers, p.MCPOptions, err = c.ConfigFlags.Load(where); err != nil {
		return nil, err
	}
	p.Warn = streams.warn
	if p.Skills, err = c.RunFlags.Prepare(string(streams.home()), p.Cwd, streams.warn); err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	if p.SystemPrompt, err = c.PromptFlags.systemPrompt(streams, p.Cwd, p.ToolNames, p.Skills.Catalog); err != nil {
		return nil, err
	}
	if p.Schema, err = c.SchemaFlags.Schema(); err != nil {
		return nil, err
	}
	p.SystemPrompt += p.Schema.Instructions()
	if p.Redaction, err = c.RedactFlags.Build(models.Keys(c.APIKey), streams.Getenv, streams.Err); err != nil {
		return nil, err
	}
	// Last, as it makes a folder; a mode this kernel cannot enforce exits 2 here (docs/sandbox.md).
	if p.Sandbox, err = c.SandboxFlags.Open(p.Cwd, streams.warn); err != nil {
		return nil, err
	}
	return p, nil
}

// runOptions are the run flags every agent of the run shares (runner.Options).
func (c *RunCmd) runOptions(streams *IO) runner.Options {
	return runner.Options{Thinking: c.Thinking, Deltas: c.JSONDeltas, Outputs: streams.home().Outputs, LongRun: c.LongRunFlags.Apply,
		Retry: agent.RetryPolicy{MaxRetries: c.MaxRetries, BaseDelay: c.RetryBaseDelay, MaxDelay: c.MaxRetryDelay}}
}
