package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/codec"
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

// run feeds the inputs through st. Invalid lines are reported as they are met and make the
// filter exit 1 at the end, once everything else has been written.
func (fio *FilterIO) run(streams *IO, st stages.Stage) error {
	return fio.feed(streams, func(inputs []stages.Input, out *codec.LineWriter, opts stages.RunOptions) (stages.RunStats, error) {
		return stages.Run(inputs, out, st, opts)
	})
}

// runInto is run for a filter that ends in a sink (plain text, a summary): newSink gets the
// output the filter writes to.
func (fio *FilterIO) runInto(streams *IO, newSink func(out io.Writer) stages.Sink) error {
	return fio.feed(streams, func(inputs []stages.Input, out *codec.LineWriter, opts stages.RunOptions) (stages.RunStats, error) {
		return stages.RunSink(inputs, out, newSink(out), opts)
	})
}

// feed opens the inputs and the output and has run read the one and write the other.
func (fio *FilterIO) feed(streams *IO, run func([]stages.Input, *codec.LineWriter, stages.RunOptions) (stages.RunStats, error)) error {
	inputs, closeInputs, err := fio.open(streams)
	if err != nil {
		return err
	}
	defer closeInputs()
	diag := filters.NewDiagnostics(streams.Err)
	defer diag.Flush()
	stats, err := fio.write(streams, false, func(lw *codec.LineWriter) (stages.RunStats, error) {
		return run(inputs, lw, stages.RunOptions{SkipInvalid: fio.SkipInvalid, Report: diag.Println, BeforeWait: diag.Flush})
	})
	if err != nil {
		return err
	}
	if stats.Invalid > 0 {
		return Fail(ExitFailure, fmt.Sprintf("%d of %d lines were not JSON objects", stats.Invalid, stats.Lines))
	}
	return nil
}

// write runs filter over the output: stdout, or -o FILE, which is replaced only once filter
// has written all of it; discard writes nowhere unless -o names a file. One writer serves
// lines and text alike; Run flushes it whenever it would wait for input.
func (fio *FilterIO) write(streams *IO, discard bool, filter func(*codec.LineWriter) (stages.RunStats, error)) (stats stages.RunStats, err error) {
	if discard && fio.Output == "" {
		return filter(codec.NewBatchWriter(io.Discard))
	}
	out, commit, err := openOutput(fio.Output, streams)
	if err != nil {
		return stats, err
	}
	defer func() { err = commit(err == nil, err) }()
	lw := codec.NewBatchWriter(out)
	if out == streams.Out {
		return filter(lw)
	}
	if stats, err = untilSignal(streams, func() (stages.RunStats, error) { return filter(lw) }); err == nil {
		err = streams.signals.err() // a signal that came as the filter ended cuts it all the same
	}
	return stats, err
}

// untilSignal runs filter until it returns or a stop signal arrives. On a signal it returns
// at once with the signal's error, leaving filter blocked on its input: the process is about
// to exit, and the output is dropped.
func untilSignal(streams *IO, filter func() (stages.RunStats, error)) (stages.RunStats, error) {
	ctx := streams.signals.context()
	type result struct {
		stats stages.RunStats
		err   error
	}
	done := make(chan result, 1)
	go func() {
		stats, err := filter()
		done <- result{stats, err}
	}()
	select {
	case r := <-done:
		return r.stats, r.err
	case <-ctx.Done():
		return stages.RunStats{}, streams.signals.err()
	}
}

func (fio *FilterIO) open(streams *IO) ([]stages.Input, func(), error) {
	if len(fio.Files) == 0 {
		return []stages.Input{{Name: "-", Reader: streams.In}}, func() {}, nil
	}
	var inputs []stages.Input
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, name := range fio.Files {
		if name == "-" {
			inputs = append(inputs, stages.Input{Name: "-", Reader: streams.In})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			closeAll()
			return nil, nil, Fail(ExitUsage, err.Error())
		}
		files = append(files, f)
		inputs = append(inputs, stages.Input{Name: name, Reader: f})
	}
	return inputs, closeAll, nil
}

// openOutput returns where to write: stdout, or the file -o names (filters.Create), which
// commit puts in place once the output is complete. The stop signals are watched
// (signalWatch) before any temporary file exists, so that none can end the process before
// commit removes it.
func openOutput(path string, streams *IO) (io.Writer, func(complete bool, err error) error, error) {
	if path == "" || path == "-" {
		return streams.Out, func(_ bool, err error) error { return err }, nil
	}
	streams.signals.context()
	out, err := filters.Create(path)
	if err != nil {
		return nil, nil, Fail(ExitUsage, err.Error())
	}
	commit := func(complete bool, err error) error {
		// A complete output (even one with reported bad lines) replaces the file.
		if cerr := out.Commit(complete); err == nil {
			err = cerr
		}
		return err
	}
	return out, commit, nil
}
