package cli

import (
	"cmp"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/outputschema"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/runredact"
	"github.com/basecontext/base-context/stages"
)

// runPlan is what a run's flags resolve to, once, before anything is written: where the run
// works, its session (chosen and read), its model and provider, its system prompt and answer
// schema, and its redaction. A run (run.go) and --mode rpc (run_rpc.go) carry it out; the
// flag structs keep nothing of it.
type runPlan struct {
	cwd          string
	models       *provider.Models // models.json, read once
	source       *control.Source  // the session the run writes, read: opened by openSession
	model        provider.Model
	prov         provider.Provider
	systemPrompt string               // the built-in or given prompt, the project's instructions, the schema's
	toolNames    []string             // the tools the run has (--tools, --no-tools), checked
	schema       *outputschema.Schema // nil: no particular answer
	redaction    *runredact.Set
	resident     *control.Resident // the background process of a --detach run; nil otherwise
}

// plan resolves the flags (and the settings, a resumed session's model) into a runPlan; an
// error is a usage error, before the header. The caller closes p.source once the run is
// over (a session it opened is the run's to close).
func (c *RunCmd) plan(streams *IO, models *provider.Models, set settled, resident *control.Resident) (_ *runPlan, err error) {
	p := &runPlan{models: models, resident: resident}
	if p.cwd, err = c.workDir(); err != nil {
		return nil, err
	}
	fixedID := ""
	if resident != nil {
		fixedID = resident.ID
	}
	choice, err := c.chooseSession(streams, p.cwd, fixedID)
	if err != nil {
		return nil, err
	}
	source, err := choice.Load(streams.home().Registry())
	if err != nil {
		return nil, Wrap(ExitUsage, err)
	}
	p.source = source
	defer func() {
		if err != nil {
			source.Close()
		}
	}()
	// The model: --model, else the resumed session's own, else the settings'.
	if p.model, p.prov, err = c.ModelFlags.resolve(streams, models, cmp.Or(p.source.Model(), set.model)); err != nil {
		return nil, err
	}
	if err := agent.CheckBudget(c.MaxCost, p.model); err != nil {
		return nil, Fail(ExitUsage, "--max-cost: "+err.Error())
	}
	toolset, err := c.toolset(tools.Options{Cwd: p.cwd}) // checked before the session starts
	if err != nil {
		return nil, err
	}
	for _, t := range toolset {
		p.toolNames = append(p.toolNames, t.Name())
	}
	if p.systemPrompt, err = c.PromptFlags.systemPrompt(streams, p.cwd, p.toolNames); err != nil {
		return nil, err
	}
	if p.schema, err = c.SchemaFlags.load(); err != nil {
		return nil, err
	}
	p.systemPrompt += p.schema.Instructions()
	if p.redaction, err = c.RedactFlags.build(streams, models.Keys(c.APIKey)); err != nil {
		return nil, err
	}
	return p, nil
}

// agentConfig completes base (the session's store, the output, the permission) into the
// configuration of the agent of session id: the plan's model and prompt, the tools (their
// full outputs in the session's folder), thinking, retries, compaction, limits and gates.
func (c *RunCmd) agentConfig(streams *IO, p *runPlan, id string, base agent.Config) agent.Config {
	toolOpts := tools.Options{Cwd: p.cwd, TempDir: streams.home().Outputs(id), Redact: p.redaction.ToolRedaction()}
	toolset, err := tools.Select(toolOpts, p.toolNames)
	if err != nil {
		panic("cli: the plan's tools are known: " + err.Error())
	}
	base.Tools = toolset
	base.Provider, base.Model, base.SystemPrompt = p.prov, p.model, p.systemPrompt
	base.ThinkingLevel = c.Thinking
	base.CheckAnswer = p.schema.CheckAnswer()
	base.Retry = agent.RetryPolicy{MaxRetries: c.MaxRetries, BaseDelay: c.RetryBaseDelay, MaxDelay: c.MaxRetryDelay}
	cfg := c.LongRunFlags.apply(base, p.cwd)
	cfg.Gates.Tools = toolOpts
	return cfg
}

// outputChain is the output chain of --mode json for the session of header h: the header,
// redaction, the delta form.
func (c *RunCmd) outputChain(p *runPlan, h codec.Header) stages.Stage {
	return stages.NewOutput(stages.OutputOptions{Header: h, Redact: p.redaction.Stage(), Deltas: c.JSONDeltas})
}
