package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/outputschema"
	"github.com/basecontext/base-context/agent/policy"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/cmdline"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/runner"
	"github.com/basecontext/base-context/internal/runredact"
	"github.com/basecontext/base-context/mcp"
	"github.com/basecontext/base-context/report"
	"github.com/basecontext/base-context/sandbox"
	"github.com/basecontext/base-context/skills"
	"github.com/basecontext/base-context/stages"
)

// RunCmd runs the agent: the default command.
type RunCmd struct {
	Prompts []string `arg:"" optional:"" help:"Prompts, run one after another in one stream; @FILE (a path without spaces) adds a file to the first prompt (an image as an image); - reads stdin."`

	// Flags are grouped in --help (runFlagGroups in cli.go); a new flag names its group.
	Mode       string `enum:"text,json,rpc" default:"text" group:"output" help:"Output: text (the final answer), json (the event stream, one JSON object per line, as docs/stream.md describes) or rpc (commands on stdin, responses and events on stdout; see docs/rpc.md)."`
	Print      bool   `short:"p" group:"output" help:"Print only the final answer (text mode)."`
	JSONDeltas bool   `name:"json-deltas" group:"output" help:"With --mode json: compact streaming updates (the delta form of docs/stream.md)."`
	StatusFlags

	ModelFlags `group:"model"`
	Thinking   string `enum:"off,minimal,low,medium,high,xhigh" default:"off" group:"model" help:"Thinking level: ${enum}."`

	Tools   string `placeholder:"LIST" group:"tools" help:"Comma-separated tools to enable (default: ${tools})."`
	NoTools bool   `group:"tools" help:"Enable no tools."`

	SessionDirFlag `group:"session"`
	NoSession      bool `group:"session" help:"Keep the session in memory only."`
	SessionFlags   `group:"session"`

	MaxRetries     int           `default:"3" group:"model" help:"Retries of a transient provider failure."`
	RetryBaseDelay time.Duration `default:"2s" group:"model" help:"Delay before the first retry; it doubles for each next one."`
	MaxRetryDelay  time.Duration `default:"60s" group:"model" help:"Longest Retry-After a provider may ask for; a longer one ends the run instead of waiting."`

	policy.PolicyFlags       `embed:"" group:"tools"`   // --allow, --deny, --permission-mode, --read-only
	mcp.ConfigFlags          `embed:"" group:"tools"`   // --mcp-config, --strict-mcp-config, --no-mcp
	sandbox.SandboxFlags     `embed:"" group:"tools"`   // --sandbox, --add-dir, --sandbox-network
	outputschema.SchemaFlags `embed:"" group:"output"`  // --output-schema
	PromptFlags              `embed:"" group:"project"` // --system-prompt, --append-system-prompt, --no-context-files, -C (run_prompt.go)
	agent.LongRunFlags       `group:"limits"`           // compaction, --autonomous, limits, gates
	runredact.RedactFlags    `group:"redaction"`        // --redact, --redact-session, --redact-*
	skills.RunFlags          `embed:"" group:"project"` // --skill, --no-skills, --require-skill

	runner.OtelFlags `group:"output"` // --otel, --otel-content, --otel-timeout
}

// Validate checks flag combinations kong cannot express.
func (c *RunCmd) Validate(kctx *kong.Context) error {
	if c.JSONDeltas && c.Mode != "json" && c.Mode != "rpc" {
		return fmt.Errorf("--json-deltas requires --mode json (or rpc)")
	}
	if c.Mode == "rpc" {
		if err := c.validateRPC(); err != nil {
			return err
		}
	}
	if c.Print && c.Mode != "text" {
		return fmt.Errorf("-p (--print) prints the final answer of text mode: it cannot be used with --mode %s", c.Mode)
	}
	if c.NoTools && c.Tools != "" {
		return fmt.Errorf("--tools and --no-tools exclude each other")
	}
	if err := cmdline.CheckBounds(kctx); err != nil {
		return err
	}
	return c.LongRunFlags.Validate()
}

// Run runs the agent.
func (c *RunCmd) Run(streams *IO, kctx *kong.Context) error {
	if c.Export != "" { // the upstream's --export SESSION_FILE [OUT.html]
		out := strings.TrimSuffix(c.Export, ".jsonl") + ".html"
		if len(c.Prompts) > 0 {
			out = c.Prompts[0]
		}
		return (&report.Flags{}).Settings(streams.Getenv, streams.Err, stages.VerdictOptions{}).Export(c.Export, out, streams.Out)
	}
	if err := c.checkHome(streams); err != nil { // before the settings: they live there too
		return err
	}
	if err := checkLimitsGiven(kctx); err != nil { // the settings' limits: checkSetting
		return err
	}
	set, err := c.settle(streams, kctx)
	if err != nil {
		return err
	}
	if c.Mode == "rpc" {
		return c.runRPC(streams, set)
	}
	if c.Detach {
		if err := unsupported("--detach"); err != nil {
			return err
		}
		return c.detach(streams, set)
	}
	return c.run(streams.signals.Context(), streams, set, nil)
}

// run runs the agent on the prompts, writing the stream (json) or the answer (text) to
// streams.Out. resident is the background process of a --detach run, nil otherwise.
func (c *RunCmd) run(ctx context.Context, streams *IO, set settled, resident *control.Resident) (err error) {
	models := newModels(streams)
	// From here every text for stderr goes through the status line, redacted (status.go).
	status, streams := c.StatusFlags.start(streams, c.Mode, c.StreamIdleTimeout, c.RedactFlags.StderrRedaction(models.Keys(c.APIKey), streams.Getenv))
	defer status.Close()
	defer status.Clear()
	defer func() {
		err = runredact.Error(err, c.RedactFlags.StderrRedaction(models.Keys(c.APIKey), streams.Getenv))
	}() // the error: line
	p, err := c.plan(streams, models, set, resident)
	if err != nil {
		return err
	}
	defer p.Source.Close() // a session the run never opened
	defer p.Sandbox.Close()
	prompts, err := c.prompts(ctx, streams, status, p)
	if err != nil {
		return err
	}
	// No client to ask in text and json mode: --permission-mode ask refuses what it would ask.
	perm, err := c.permission(p, set.sources, nil)
	if err != nil {
		return err
	}
	err = p.StartMCP(ctx) // before the session: a required server that failed exits 2 before the header
	defer p.MCP.Close()
	if err != nil {
		return err
	}
	defer p.Redaction.PrintReport(streams.Err)
	// A new session, or the one --resume, --continue or --fork names, registered (run_sessions.go).
	sess, err := c.openSession(streams, p)
	if err != nil {
		return err
	}
	defer sess.Close()
	streams.home().PruneOutputs()
	var events io.Writer // text mode writes no events
	if c.Mode == "json" {
		events = streams.Out
	}
	tel, err := c.OtelFlags.Start(streams.Getenv, c.RedactRule.Redaction("redact-", models.Keys(c.APIKey)), len(c.Gate) > 0, versionString())
	if err != nil {
		return err
	}
	answer := c.answerStream(streams, p) // text mode on a terminal: the answer as it arrives
	outcome := runner.Run{Plan: p, Options: c.runOptions(streams), Session: sess, Permission: perm, Prompts: prompts,
		Status: status, Answer: answer, Events: events, Telemetry: tel}.Execute(ctx)
	text, err := runner.Ending{Outcome: outcome, StoppedByRequest: sess.StoppedByRequest(), Signal: streams.signals.Received()}.Answer(p)
	tel.End(err, streams.Err)
	if err != nil {
		return err
	}
	// Text mode prints the answer of a completed run only: an interrupted or failed run has
	// none (its reason goes to stderr), not even the text received so far.
	if c.Mode == "text" && !answer.Wrote() {
		if text := p.Redaction.Answer(text); text != "" {
			if _, err := io.WriteString(streams.Out, text+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *RunCmd) toolset(opts tools.Options) ([]tools.Tool, error) {
	switch {
	case c.NoTools:
		return nil, nil
	case c.Tools != "":
		ts, err := tools.SelectList(opts, c.Tools)
		return ts, exitcode.Wrap(exitcode.Usage, err)
	}
	return tools.All(opts), nil
}

// checkHome refuses a run that would save its session without a home folder to put it in.
func (c *RunCmd) checkHome(streams *IO) error {
	if c.NoSession {
		return nil
	}
	return c.folder(streams).Check()
}
