package cmdline

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/alecthomas/kong"
)

// Help prints the help of every command. The top level is the help of the default command
// followed by the list of commands: most people type `base-context --help` to learn how to
// run the agent. A few commands have a usage line kong cannot derive (UsageLines, by path).
type Help struct {
	Default    string
	UsageLines map[string]string
	// Whole is the parser of every command: the one of the help may have the default
	// command's grammar alone (Grammar).
	Whole func(stdout, stderr io.Writer) (*kong.Kong, error)
}

// Print is a kong.HelpPrinter.
func (h Help) Print(options kong.HelpOptions, ctx *kong.Context) error {
	selected := ctx.Selected()
	if selected == nil {
		return h.printTop(options, ctx)
	}
	if usage, ok := h.UsageLines[selected.Path()]; ok {
		fmt.Fprintf(ctx.Stdout, "Usage: %s %s\n", ctx.Model.Name, usage)
		options.NoAppSummary = true
	}
	return kong.DefaultHelpPrinter(options, ctx)
}

func (h Help) printTop(options kong.HelpOptions, ctx *kong.Context) error {
	runCtx, err := kong.Trace(ctx.Kong, []string{h.Default})
	if err != nil {
		return err
	}
	w := ctx.Stdout
	name := ctx.Model.Name
	fmt.Fprintf(w, "Usage: %s [flags] PROMPT ...      run the agent (the default command)\n", name)
	fmt.Fprintf(w, "       %s <command> [flags] ...\n\n", name)
	fmt.Fprintf(w, "%s\n", ctx.Model.Help)
	options.NoAppSummary = true
	if err := kong.DefaultHelpPrinter(options, runCtx); err != nil {
		return err
	}
	whole, err := h.Whole(ctx.Stdout, ctx.Stderr)
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
	_, err = fmt.Fprintf(w, "\nRun \"%s help <command>\" (or <command> --help) for more on a command.\n", name)
	return err
}
