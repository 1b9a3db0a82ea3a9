package cli

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/codec"
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
func (c *FilterCmd) Run(k *kong.Context) error {
	if sel := k.Selected(); sel == nil || !sel.Target.CanAddr() || sel.Target.Addr().Interface() != any(c) {
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
func (fio *FilterIO) feed(streams *IO, run func([]stages.Input, *codec.LineWriter, stages.RunOptions) (stages.RunStats, error)) (err error) {
	inputs, closeInputs, err := fio.open(streams)
	if err != nil {
		return err
	}
	defer closeInputs()

	out, commit, err := openOutput(fio.Output, streams.Out)
	if err != nil {
		return err
	}
	defer func() { err = commit(err) }()

	// One writer for lines and text alike, flushed by Run whenever it would wait for input.
	lw := codec.NewBatchWriter(out)
	stats, err := run(inputs, lw, stages.RunOptions{
		SkipInvalid: fio.SkipInvalid,
		Report:      func(msg string) { fmt.Fprintln(streams.Err, msg) },
	})
	if err != nil {
		return err
	}
	if stats.Invalid > 0 {
		return Fail(ExitFailure, fmt.Sprintf("%d of %d lines were not JSON objects", stats.Invalid, stats.Lines))
	}
	return nil
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

// openOutput returns where to write: stdout, or a temporary file beside path that commit
// renames over path on success, so that path is never left half-written.
func openOutput(path string, stdout io.Writer) (io.Writer, func(error) error, error) {
	if path == "" || path == "-" {
		return stdout, func(err error) error { return err }, nil
	}
	// Signals are watched before the temporary file exists, so that none can leave it behind.
	var pending tempFile
	stopWatching := removeOnSignal(&pending)
	pending.mu.Lock()
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err == nil {
		pending.path = tmp.Name()
	}
	pending.mu.Unlock()
	if err != nil {
		stopWatching()
		return nil, nil, Fail(ExitUsage, err.Error())
	}
	commit := func(err error) error {
		stopWatching()
		cerr := tmp.Close()
		if err == nil {
			err = cerr
		}
		if _, ok := err.(*ExitError); err == nil || ok {
			// A complete output (even one with reported bad lines) replaces the file.
			if rerr := os.Rename(tmp.Name(), path); rerr != nil {
				os.Remove(tmp.Name())
				return rerr
			}
			return err
		}
		os.Remove(tmp.Name())
		return err
	}
	return tmp, commit, nil
}

// tempFile is the temporary file an output is written to, once it exists.
type tempFile struct {
	mu   sync.Mutex
	path string
}

// removeOnSignal removes the temporary file and ends the process, with the status the signal
// calls for, when SIGHUP, SIGINT or SIGTERM arrives before the returned stop is called: an
// interrupted filter leaves neither a half-written output nor its temporary file behind.
func removeOnSignal(tmp *tempFile) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals()...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			tmp.mu.Lock() // not while it is being created
			if tmp.path != "" {
				os.Remove(tmp.path)
			}
			code, _, _ := signalExit(s)
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
