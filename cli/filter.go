package cli

import (
	"context"
	"io"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/stages"
)

// FilterCmd is the group of stream filters, run over lines read from files or stdin: each
// one a stage (those of the agent's own output chain among them) or, for text and verdict,
// a sink.
type FilterCmd struct {
	Deltas DeltasCmd `cmd:"" help:"Convert the full form of a stream to the delta form (what --json-deltas writes)."`
	Expand ExpandCmd `cmd:"" help:"Convert the delta form of a stream back to the full form."`
	Header HeaderCmd `cmd:"" help:"Start the stream with a session header; stamp events with its id."`
	Select SelectCmd `cmd:"" help:"Keep (or drop) events by type, role and tool name."`
	Text   TextCmd   `cmd:"" help:"Print the answer text of a recorded run (plain text, not JSON)."`

	Verdict  VerdictCmd  `cmd:"" help:"Decide how a recorded run ended: exit with its status, print a JSON summary."`
	Validate ValidateCmd `cmd:"" help:"Check a stream against its specification (docs/stream.md); report each violation on stderr."`
	Redact   RedactCmd   `cmd:"" help:"Replace secrets (API keys, tokens, private keys, passwords) in every string with [REDACTED:<rule>]."`
	HTML     HTMLCmd     `cmd:"" name:"html" help:"Write a self-contained HTML report of a recorded run: verdict, cost, timeline, problems, transcript."`
	Otel     OtelCmd     `cmd:"" help:"Export the runs of a recorded stream as OpenTelemetry traces (docs/telemetry.md); the stream passes through unchanged."`
}

// Run lists the filters when none is named: `base-context filter` is a question, not a
// mistake. Kong also runs it ahead of a named filter's Run, which it then leaves alone.
func (c *FilterCmd) Run(k *kong.Context) error { return groupHelp(k, c) }

// groupHelp prints the help of the group of commands group when it is the command selected
// (none of its subcommands is named); kong also runs a group's Run ahead of the named
// subcommand's, and then it does nothing.
func groupHelp(k *kong.Context, group any) error {
	if sel := k.Selected(); sel == nil || !sel.Target.CanAddr() || sel.Target.Addr().Interface() != group {
		return nil
	}
	return k.PrintUsage(false)
}

// FilterIO is the flag group every filter shares.
type FilterIO struct {
	Files       []string `arg:"" optional:"" help:"Input files, read in order as one stream (default: stdin; - is stdin)."`
	Output      string   `short:"o" placeholder:"FILE" help:"Write to FILE instead of stdout (replaced atomically when the filter ends)."`
	SkipInvalid bool     `help:"Drop lines that are not JSON objects instead of passing them through (they are still reported)."`
}

// DeltasCmd is `filter deltas`.
type DeltasCmd struct {
	FilterIO
}

// Run runs the filter.
func (c *DeltasCmd) Run(streams *IO) error { return c.run(streams, stages.NewDeltas()) }

// ExpandCmd is `filter expand`.
type ExpandCmd struct {
	FilterIO
}

// Run runs the filter.
func (c *ExpandCmd) Run(streams *IO) error { return c.run(streams, stages.NewExpand()) }

// run runs stage st over the inputs (filters.Job.Stage).
func (fio *FilterIO) run(streams *IO, st stages.Stage) error {
	return fio.job(streams, false).Stage(st)
}

// runInto is run for a filter that ends in a sink (plain text, a summary): newSink gets the
// output the filter writes to.
func (fio *FilterIO) runInto(streams *IO, newSink func(out io.Writer) stages.Sink) error {
	return fio.job(streams, false).Sink(nil, newSink)
}

// job is the run of a filter with these flags; discard writes nowhere unless -o names a file.
func (fio *FilterIO) job(streams *IO, discard bool) filters.Job {
	return filters.Job{
		Files: fio.Files, Output: fio.Output, SkipInvalid: fio.SkipInvalid, Discard: discard,
		Stdin: streams.In, Stdout: streams.Out, Stderr: streams.Err,
		Watch: func() (context.Context, func() error) {
			return streams.signals.Context(), func() error { return signalErr(streams.signals) }
		},
	}
}
