package cli

import (
	"embed"
	"fmt"
	"io"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/cmdline"
	"github.com/basecontext/base-context/internal/exitcode"
)

// manPage is what the man page says besides the commands and flags of the model.
var manPage = cmdline.ManPage{
	Version:  Version,
	Exits:    exitcode.Statuses,
	Synopsis: []string{"[flags] PROMPT ...", "<command> [flags] [arguments ...]"},
	Environment: [][2]string{
		{"BASE_CONTEXT_HOME", "The home of settings, models.json, sessions and running sessions (default: ~/.base-context)."},
		{"ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GOOGLE_API_KEY", "The built-in providers' API keys; models.json names the variables of others ('base-context models' shows which keys are set)."},
		{"TMPDIR", "Where the sockets of running sessions go when their home's path is too long for one."},
	},
	Files: [][2]string{
		{"<home>/settings.json, <repo>/.base-context/settings.json", "Settings, the repository's over the user's ('base-context config' prints them and where each comes from)."},
		{"<home>/models.json", "Providers and models beside the built-in catalog."},
		{"<home>/sessions/", "Saved sessions, one JSON-lines file each ('base-context sessions')."},
		{"<home>/run/", "Running sessions: their registry entries and control sockets ('base-context list')."},
		{"AGENTS.md", "Project instructions, read from the working directory and its parents."},
		{"<repo>/.mcp.json, <home>/logs/", "MCP servers ('base-context mcp list'); their stderr."},
	},
}

// printHelp is the help of every command (cmdline.Help): the top level is the help of run
// followed by the list of commands.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	return cmdline.Help{
		Default: defaultCommand,
		// Where one positional list holds two kinds of argument.
		UsageLines: map[string]string{"filter select": "filter select [TYPE ...] [FILE ...] [flags]"},
		Whole: func(stdout, stderr io.Writer) (*kong.Kong, error) {
			return NewParser(&CLI{}, IO{Out: stdout, Err: stderr})
		},
	}.Print(options, ctx)
}

// HelpCmd is `help [COMMAND…]`.
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command, e.g. 'sessions list'."`
	Man     bool     `help:"Print the man page of base-context (roff, every command): base-context help --man | man -l -"`
}

// Run prints the help of the command named, as its --help would, or the man page.
func (c *HelpCmd) Run(k *kong.Context, streams *IO) error {
	if c.Man {
		return cmdline.WriteMan(streams.Out, k.Model, manPage)
	}
	if len(c.Command) > 0 {
		if best, exact := cmdline.ClosestCommand(k.Model, c.Command[0]); !exact {
			msg := fmt.Sprintf("unknown command %q", c.Command[0])
			if best != "" {
				msg += fmt.Sprintf("; did you mean %q?", best)
			}
			return exitcode.New(exitcode.Usage, msg+" ('base-context help' lists the commands)")
		}
	}
	_, err := k.Kong.Parse(append(append([]string(nil), c.Command...), "--help"))
	return err
}

//go:embed help/*.txt
var helpTexts embed.FS

// Run prints the help of sessions when no subcommand is named, as filter does.
func (c *SessionsCmd) Run(k *kong.Context) error { return groupHelp(k, c) }
