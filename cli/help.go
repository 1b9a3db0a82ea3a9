package cli

import (
	"embed"
	"fmt"
	"github.com/basecontext/base-context/internal/similar"
	"strings"
	"text/tabwriter"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/cmdline"
)

// manPage is what the man page says besides the commands and flags of the model.
var manPage = cmdline.ManPage{
	Version:  Version,
	Exits:    exitStatuses,
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
	},
}

// printHelp is the help of every command. The top level is the help of run, the default
// command, followed by the list of commands: most people type `base-context --help` to learn
// how to run the agent. A few commands have a usage line kong cannot derive.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	selected := ctx.Selected()
	if selected == nil {
		return printTopHelp(options, ctx)
	}
	if usage, ok := usageLines[selected.Path()]; ok {
		fmt.Fprintf(ctx.Stdout, "Usage: base-context %s\n", usage)
		options.NoAppSummary = true
	}
	return kong.DefaultHelpPrinter(options, ctx)
}

// usageLines replaces kong's usage line where one positional list holds two kinds of
// argument.
var usageLines = map[string]string{
	"filter select": "filter select [TYPE ...] [FILE ...] [flags]",
}

func printTopHelp(options kong.HelpOptions, ctx *kong.Context) error {
	runCtx, err := kong.Trace(ctx.Kong, []string{"run"})
	if err != nil {
		return err
	}
	w := ctx.Stdout
	fmt.Fprintf(w, "Usage: base-context [flags] PROMPT ...      run the agent (the default command)\n")
	fmt.Fprintf(w, "       base-context <command> [flags] ...\n\n")
	fmt.Fprintf(w, "%s\n", ctx.Model.Help)
	options.NoAppSummary = true
	if err := kong.DefaultHelpPrinter(options, runCtx); err != nil {
		return err
	}
	// Every command: ctx's grammar may be run's alone (parserFor).
	whole, err := NewParser(&CLI{}, IO{Out: ctx.Stdout, Err: ctx.Stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nCommands:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, leaf := range whole.Model.Leaves(true) {
		fmt.Fprintf(tw, "  %s\t%s\n", leaf.Path(), leaf.Help)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "\nRun \"base-context help <command>\" (or <command> --help) for more on a command.\n")
	return err
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
		if best, exact := closestCommand(k.Model, c.Command[0]); !exact {
			msg := fmt.Sprintf("unknown command %q", c.Command[0])
			if best != "" {
				msg += fmt.Sprintf("; did you mean %q?", best)
			}
			return Fail(ExitUsage, msg+" ('base-context help' lists the commands)")
		}
	}
	_, err := k.Kong.Parse(append(append([]string(nil), c.Command...), "--help"))
	return err
}

// checkCommandTypo refuses a first argument that looks like a mistyped command: it would
// otherwise become a prompt, and a prompt runs a model (which may cost money and run tools).
// A single word (no spaces) that is a command's name or close to one is a command; anything
// else is a prompt. `--` makes any argument a prompt.
func checkCommandTypo(parser *kong.Kong, args []string) error {
	at, ok := firstPositional(parser, args)
	if !ok {
		return nil
	}
	word := args[at]
	if !isWord(word) {
		return nil // "/compact", "fix it", "@file": prompts
	}
	best, exact := closestCommand(parser.Model, word)
	if exact || best == "" {
		return nil // a command (kong takes it from here), or a prompt
	}
	asPrompt := append(append(quoteArgs(args[:at]), "--"), quoteArgs(args[at:])...)
	return fmt.Errorf("unknown command %q; did you mean %q? To send it as a prompt: base-context %s",
		word, best, strings.Join(asPrompt, " "))
}

// isWord reports whether s could be a mistyped command name: letters, and "-" or "_" after
// the first.
func isWord(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r == '_')) {
			return false
		}
	}
	return s != ""
}

// closestCommand is the top-level command word names or is close to (see typoDistance);
// exact reports whether it names one.
func closestCommand(app *kong.Application, word string) (best string, exact bool) {
	lower := strings.ToLower(word)
	bestDist := -1
	for _, cmd := range app.Children {
		if cmd.Hidden {
			continue
		}
		for _, name := range append([]string{cmd.Name}, cmd.Aliases...) {
			if name == word {
				return name, true
			}
			d := similar.Distance(lower, name)
			if d <= typoDistance(name) && (bestDist < 0 || d < bestDist) {
				best, bestDist = name, d
			}
		}
	}
	return best, false
}

// typoDistance is how many edits away from a command name a word still reads as that
// command: two, but one for names of four letters or less, so that ordinary short prompts
// ("hello", "test", "ls") stay prompts while "hlep" or "lsit" do not.
func typoDistance(name string) int {
	if len(name) <= 4 {
		return 1
	}
	return 2
}

// firstPositional is the index of the first argument of the default command that is not a
// flag or a flag's value; ok is false when there is none or `--` comes first.
func firstPositional(parser *kong.Kong, args []string) (int, bool) {
	var run *kong.Node
	for _, cmd := range parser.Model.Children {
		if cmd.Name == "run" {
			run = cmd
		}
	}
	takesValue := map[string]bool{}
	if run != nil {
		for _, group := range run.AllFlags(false) {
			for _, f := range group {
				if f.IsBool() || f.IsCounter() {
					continue
				}
				takesValue["--"+f.Name] = true
				if f.Short != 0 {
					takesValue["-"+string(f.Short)] = true
				}
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return 0, false
		case strings.HasPrefix(a, "-") && a != "-":
			if !strings.Contains(a, "=") && takesValue[a] {
				i++
			}
		default:
			return i, true
		}
	}
	return 0, false
}

// quoteArgs quotes the arguments that a shell would split.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\|&;<>()*?[]{}!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return out
}

//go:embed help/*.txt
var helpTexts embed.FS

// longHelp gives each command its long help, the text --help prints after the one line:
// help/<command path, dashed>.txt ("filter-select.txt"); run's ends with the exit statuses.
func longHelp(k *kong.Kong) error {
	return kong.Visit(k.Model, func(v kong.Visitable, next kong.Next) error {
		if n, ok := v.(*kong.Node); ok && n.Type == kong.CommandNode && n.Detail == "" {
			if b, err := helpTexts.ReadFile("help/" + strings.ReplaceAll(n.Path(), " ", "-") + ".txt"); err == nil {
				n.Detail = strings.TrimSuffix(string(b), "\n")
				if n.Path() == defaultCommand {
					n.Detail += "\n" + exitStatusText()
				}
			}
		}
		return next(nil)
	})
}

// exitStatusText is the exit statuses, one a line.
func exitStatusText() string {
	var b strings.Builder
	for _, s := range exitStatuses {
		codes := fmt.Sprint(s.Codes[0])
		for _, c := range s.Codes[1:] {
			codes += "/" + fmt.Sprint(c)
		}
		fmt.Fprintf(&b, "  %-12s %s\n", codes, s.Meaning)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Run prints the help of sessions when no subcommand is named, as filter does.
func (c *SessionsCmd) Run(k *kong.Context) error { return groupHelp(k, c) }
