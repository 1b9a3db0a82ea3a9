// Package cli is the command line of base-context: kong parsing, wiring and exit statuses.
// Commands get their streams from IO, so tests run them in process.
package cli

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/cmdline"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/pipes"
	"github.com/basecontext/base-context/internal/signals"
	"github.com/basecontext/base-context/terminal"
)

// Version is set at build time with -ldflags "-X github.com/basecontext/base-context/cli.Version=…".
var Version = "0.1.0-dev"

// IO is the process's streams, injected so commands can run in tests.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	// Which streams are interactive terminals: text mode then streams the answer to stdout
	// and shows a status line on stderr, TerminalWidth columns wide (nil: the default).
	StdinIsTerminal, StdoutIsTerminal, StderrIsTerminal bool
	TerminalWidth                                       func() int

	signals *signals.Watch // set by Run: the stop signals, for the commands that ask
}

// home is base-context's own folder (control.Home) in this environment.
func (s *IO) home() control.Home { return control.HomeOf(s.Getenv) }

// warn prints a warning on stderr.
func (s *IO) warn(msg string) { fmt.Fprintf(s.Err, "warning: %s\n", msg) }

// CLI is the whole command line.
type CLI struct {
	VersionFlag versionFlag `name:"version" help:"Print the version and exit."`

	Run    RunCmd    `cmd:"" default:"withargs" help:"Run the agent on prompts (the default command)."`
	Filter FilterCmd `cmd:"" help:"Stream filters: read JSON lines (files or stdin); reshape, cut, summarise or check them."`
	Models ModelsCmd `cmd:"" help:"List the models available: the built-in catalog and <home>/models.json."`
	Skills SkillsCmd `cmd:"" help:"Skills: list the ones a run here loads, validate a skill's folder (docs/skills.md)."`
	Config ConfigCmd `cmd:"" help:"Print the settings in effect (<home>/settings.json, <repo>/.base-context/settings.json) and where each comes from."`

	Sessions SessionsCmd `cmd:"" help:"Saved sessions: list, show, rm."`
	List     ListCmd     `cmd:"" help:"List the running sessions (started here or detached)."`
	Stop     StopCmd     `cmd:"" help:"Stop a running session as Ctrl-C would; it exits 1 with 'stopped by request'."`
	Send     SendCmd     `cmd:"" help:"Queue a message into a running session (--steer or --follow-up)."`
	Attach   AttachCmd   `cmd:"" help:"Print a detached run's stream from the start (or --from-now) and follow it to its end; exit with its status."`
	Compact  CompactCmd  `cmd:"" help:"Summarise the older part of a saved session, so that resuming it continues from the summary."`
	MCP      MCPCmd      `cmd:"" name:"mcp" help:"The MCP servers configured here: list them (connected to), or one's tools."`
	Sandbox  SandboxCmd  `cmd:"" help:"The tools' Landlock sandbox: check what this kernel enforces; exec one command under a mode."`
	Batch    BatchCmd    `cmd:"" help:"Run many tasks from a JSON-lines file, resumably, in parallel or in shards (docs/batch.md)."`

	Help       HelpCmd       `cmd:"" help:"Show the help of base-context or of a command."`
	Version    VersionCmd    `cmd:"" help:"Print the version, commit and Go version."`
	Completion CompletionCmd `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
	Schema     SchemaCmd     `cmd:"" help:"Print the JSON Schema of one line of the stream (--deltas: of the delta form; --rpc: of --mode rpc's lines)."`
	Complete   CompleteCmd   `cmd:"" name:"__complete" hidden:"" help:"Completion candidates for the words given (used by the completion scripts)."`
}

// runFlagGroups are the titles of the run flags' groups in --help, in this order. A new run
// flag joins one with a group:"…" tag.
var runFlagGroups = []kong.Group{
	{Key: "output", Title: "Output:"},
	{Key: "model", Title: "Model:"},
	{Key: "session", Title: "Session:"},
	{Key: "project", Title: "Project and prompt:"},
	{Key: "tools", Title: "Tools and policy:"},
	{Key: "redaction", Title: "Redaction:"},
	{Key: "limits", Title: "Limits and gates (long runs):"},
}

// Main runs the command line of the process and returns its exit status.
func Main() int {
	// With SIGPIPE delivered to us rather than killing the process, a write to a closed
	// pipe fails with EPIPE, which ends the command quietly with status 0.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	pipes.Grow()
	return Run(os.Args[1:], IO{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv,
		StdinIsTerminal:  terminal.Is(os.Stdin),
		StdoutIsTerminal: terminal.Is(os.Stdout),
		StderrIsTerminal: terminal.Is(os.Stderr),
		TerminalWidth:    func() int { return terminal.Width(os.Stderr) },
	})
}

// exitRequest is how kong's --help and --version end a parse.
type exitRequest struct{ code int }

// NewParser builds the kong parser; exported for tests of the grammar.
func NewParser(cli *CLI, streams IO) (*kong.Kong, error) {
	return kong.New(cli, parserOptions(streams)...)
}

// parserOptions are the options of every parser, of the whole CLI or of part of it
// (parserFor).
func parserOptions(streams IO) []kong.Option {
	return []kong.Option{
		kong.Name("base-context"),
		kong.Description("A coding agent whose output is a JSON-lines event stream, and filters to reshape that stream."),
		kong.Writers(streams.Out, streams.Err),
		kong.Exit(func(code int) { panic(exitRequest{code}) }),
		kong.Vars{"tools": strings.Join(tools.Names(), ",")},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Help(printHelp),
		cmdline.LongHelp(helpTexts, "help/", defaultCommand, exitcode.Statuses),
		kong.ExplicitGroups(runFlagGroups),
		kong.Bind(&streams),
	}
}

// Run parses args, runs the command and returns the exit status.
func Run(args []string, streams IO) (code int) {
	if streams.Getenv == nil {
		streams.Getenv = func(string) string { return "" }
	}
	streams.signals = &signals.Watch{}
	defer streams.signals.Stop()
	parser, err := parserFor(args, streams)
	if err != nil {
		return printExit(streams, exitcode.Wrap(exitcode.Usage, err))
	}
	defer func() {
		if r := recover(); r != nil {
			req, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			code = req.code
			if code != 0 {
				code = exitcode.Usage
			}
		}
	}()
	ctx, err := cmdline.Parse(parser, args, defaultCommand)
	if err != nil { // EPIPE, the reader of --help gone (| head), exits 0 quietly
		return printExit(streams, exitcode.Wrap(exitcode.Usage, err))
	}
	if err := cmdline.CheckBounds(ctx); err != nil { // the flags' bound tags, for every command
		return printExit(streams, exitcode.Wrap(exitcode.Usage, err))
	}
	if cmd := strings.Fields(ctx.Command()); len(cmd) > 0 {
		if err := unsupported(cmd[0]); err != nil {
			return printExit(streams, err)
		}
	}
	return printExit(streams, ctx.Run())
}

// printExit prints the error line of err, if any, and returns the exit status.
func printExit(streams IO, err error) int {
	code, msg := exitcode.Of(err)
	if msg != "" {
		fmt.Fprintf(streams.Err, "error: %s\n", msg)
	}
	return code
}
