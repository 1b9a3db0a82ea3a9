// Package runner assembles a run of the agent from what its flags resolved to: the plan
// (model, prompt, tools, schema, redaction, session), the agent's configuration, and, for
// text and json mode, the run itself (session store, status line, answer stream, event
// output, follow-ups). The command line maps flags to it and its outcome to an exit status;
// --mode rpc (package rpc) builds its agents and output chains from the same plan.
package runner

import (
	"context"
	"io"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/outputschema"
	"github.com/basecontext/base-context/agent/prompt"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/runredact"
	"github.com/basecontext/base-context/mcp"
	"github.com/basecontext/base-context/sandbox"
	"github.com/basecontext/base-context/skills"
	"github.com/basecontext/base-context/stages"
	"github.com/basecontext/base-context/terminal"
)

// Plan is what a run's flags resolve to, once, before anything is written: where the run
// works, its session (chosen and read), its model and provider, its system prompt and answer
// schema, and its redaction. A run (Run) and --mode rpc carry it out.
type Plan struct {
	Cwd          string
	Models       *provider.Models // models.json, read once
	Source       *control.Source  // the session the run writes, read
	Model        provider.Model
	Provider     provider.Provider
	SystemPrompt string               // the built-in or given prompt, the project's instructions, the schema's
	ToolNames    []string             // the tools the run has (--tools, --no-tools), checked
	Schema       *outputschema.Schema // nil: no particular answer
	Redaction    *runredact.Set
	Resident     *control.Resident // the background process of a --detach run; nil otherwise
	Sandbox      *sandbox.Sandbox  // what the tools run under (--sandbox); nil: off
	Skills       *skills.Run       // the skills and prompt templates; nil: none

	MCPServers []*mcp.Server // configured (mcp.Load)
	MCPOptions mcp.Options
	MCP        *mcp.Set     // the servers, started (StartMCP); nil before
	Warn       func(string) // a warning on stderr
}

// MCPWrites says whether tool is an MCP tool that --read-only refuses (not annotated
// readOnlyHint); it may be asked before StartMCP.
func (p *Plan) MCPWrites(tool string) bool { return p.MCP.Writes(tool) }

// StartMCP starts the plan's MCP servers, all at once, before any model call; their tools
// join every agent's. A failed optional server is a warning; a failed required one is the
// error (a *mcp.StartError: exit 2). The caller closes p.MCP when the run is over.
func (p *Plan) StartMCP(ctx context.Context) error {
	p.MCP = mcp.Start(ctx, p.MCPServers, p.MCPOptions)
	for _, note := range p.MCP.Notes() {
		p.Warn(note)
	}
	return p.MCP.Required()
}

// Options are the run flags every agent of a run shares.
type Options struct {
	Thinking string
	Retry    agent.RetryPolicy
	Deltas   bool // --json-deltas: the output chain's delta form
	// Outputs is the folder of the tools' full outputs of session id.
	Outputs func(id string) string
	// LongRun completes a configuration with compaction, autonomy, limits and gates.
	LongRun func(cfg agent.Config, cwd string) agent.Config
	// CallEnv adds to the environment of the commands of a tool call (Run.Telemetry's).
	CallEnv func(callID string) []string
}

// AgentConfig completes base (the session's store, the output, the permission) into the
// configuration of the agent of session id: the plan's model and prompt, the tools (their
// full outputs in the session's folder), thinking, retries, compaction, limits and gates.
func (p *Plan) AgentConfig(o Options, id string, base agent.Config) agent.Config {
	toolOpts := tools.Options{Cwd: p.Cwd, TempDir: o.Outputs(id), Redact: p.Redaction.ToolRedaction(), Sandbox: p.Sandbox, CallEnv: o.CallEnv}
	if h, ok := base.Permission.(agent.Hider); ok {
		toolOpts.Hidden = h.Hidden // what grep, find and ls show follows the deny rules
	}
	toolset, err := tools.Select(toolOpts, p.ToolNames)
	if err != nil {
		panic("runner: the plan's tools are known: " + err.Error())
	}
	base.Tools = append(toolset, p.MCP.Tools(toolOpts)...)
	base.Provider, base.Model, base.SystemPrompt = p.Provider, p.Model, p.SystemPrompt
	base.ThinkingLevel = o.Thinking
	base.CheckAnswer = p.Schema.CheckAnswer()
	base.Retry = o.Retry
	if p.Skills != nil {
		base.Preserve = p.Skills.Watcher.Preserve // compaction keeps the activated skills
	}
	cfg := o.LongRun(base, p.Cwd)
	cfg.Gates.Tools = toolOpts
	return cfg
}

// OutputChain is the output chain of --mode json for the session of header h: the header,
// redaction, the delta form.
func (p *Plan) OutputChain(o Options, h codec.Header) stages.Stage {
	return stages.NewOutput(stages.OutputOptions{Header: h, Redact: p.Redaction.Stage(), Deltas: o.Deltas})
}

// Store wraps the store of a session the run writes in the redaction of what is saved, and
// records the run's model and thinking level in it.
func (p *Plan) Store(o Options, s session.Store) session.Store {
	store := p.Redaction.Store(s)
	store.AppendModelChange(p.Model.Provider, p.Model.ID)
	store.AppendThinkingLevel(o.Thinking)
	return store
}

// Run is one run of text or json mode on an open session.
type Run struct {
	Plan       *Plan
	Options    Options
	Session    *control.Registered
	Permission agent.Permission
	Prompts    *prompt.Prompts
	Status     *terminal.Status
	Answer     *terminal.Answer // text mode on a terminal: the answer as it arrives; nil otherwise
	Events     io.Writer        // json mode: where the event stream goes; nil in text mode
	Telemetry  *Telemetry       // --otel; nil without
}

// Execute runs the agent on the prompts: the first opens the run (after what the session
// left undelivered), the others wait in the agent's queue as follow-ups. The answer stream
// and the event output are closed before it returns; their errors become outcome.Err when
// the run had none.
func (r Run) Execute(ctx context.Context) agent.Outcome {
	p, sess := r.Plan, r.Session
	header, store := sess.Header, p.Store(r.Options, sess.Store)

	// The output chain (json mode): the agent's full events go through the stages to one
	// writer. Its first stage writes the session header ahead of the first event. The writer
	// holds what a provider chunk produces until the agent flushes it, after the chunk.
	var events *stages.EventWriter // text mode writes no events
	if r.Events != nil {
		h := *header
		h.Sandbox = p.Sandbox.Header() // this run's, which a resumed session's file cannot know
		events = stages.NewEventWriter(p.OutputChain(r.Options, h), r.Events)
	}
	r.Status.SetModel(p.Model.Provider + "/" + p.Model.ID)
	r.Telemetry.Event(header)
	if r.Telemetry != nil {
		r.Options.CallEnv = r.Telemetry.CallEnv
	}
	emit := func(e codec.Event) error {
		r.Telemetry.Event(e)
		r.Status.Event(e)
		r.Answer.Event(e)
		if err := events.Event(e); err != nil {
			return err
		}
		if activated := p.Skills.Observe(e); activated != nil {
			return events.Event(activated)
		}
		return nil
	}
	ag := agent.New(p.AgentConfig(r.Options, header.ID, agent.Config{
		Store: store, Emit: emit, Flush: events.Flush, Permission: r.Permission, HistoryEntryIDs: sess.HistoryIDs,
	}), sess.History)
	ctx = sess.Manage(ctx, expanding{ag, p.Skills}) // `stop` cancels ctx, `send` queues into ag
	if p.MCP != nil {                               // one status per server, after the header, before the first run
		for _, st := range p.MCP.Statuses() {
			emit(st)
		}
	}

	if loaded := p.Skills.Event(); loaded != nil {
		emit(loaded) // after the header, before the run: an error shows at the run's first event
	}
	for _, prompt := range r.Prompts.Rest {
		ag.FollowUp(prompt)
	}
	outcome := ag.Prompt(ctx, agent.Opening(sess.Undelivered, r.Prompts.First)...)
	r.Status.Clear()
	if err := r.Answer.Close(); err != nil && outcome.Err == nil {
		outcome.Err = err
	}
	if err := events.Close(); err != nil && outcome.Err == nil {
		outcome.Err = err
	}
	return outcome
}

// expanding is the agent's queue as `send` reaches it: a /template at the start of a
// message is expanded first.
type expanding struct {
	*agent.Agent
	skills *skills.Run
}

func (q expanding) Offer(steer bool, text string) error {
	return q.Agent.Offer(steer, q.skills.Expand(text))
}
