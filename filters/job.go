package filters

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/stages"
)

// Job is one run of a filter over its inputs (files read in order as one stream, "-" or
// none for stdin) into its output (stdout, or the file -o names: Create).
type Job struct {
	Files       []string
	Output      string // "" or "-": stdout
	SkipInvalid bool
	Discard     bool // write nowhere unless Output names a file
	Stdin       io.Reader
	Stdout      io.Writer
	Stderr      io.Writer
	// Watch, when set, is called before a temporary output file is created and returns the
	// context of the stop signals and the error a signal ends the run with: on one, Run
	// returns at once (the process is about to exit), leaving the filter blocked on its
	// input, and the temporary file is removed.
	Watch func() (stop context.Context, err func() error)
}

// OpenError is an input or output that could not be opened: a usage error.
type OpenError struct{ Err error }

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }
func (e *OpenError) ExitCode() int { return exitcode.Usage }

// Stage runs stage st as the filter; Sink a sink that writes to the output it is given.
// Invalid lines are reported as they are met and make the job fail (exit 1) at the end,
// once everything else has been written.
func (j Job) Stage(st stages.Stage) error {
	return j.check(j.Run(func(inputs []stages.Input, out *codec.LineWriter, opts stages.RunOptions) (stages.RunStats, error) {
		return stages.Run(inputs, out, st, opts)
	}))
}

// Sink: see Stage. before, when not nil, is a stage the lines go through first.
func (j Job) Sink(before stages.Stage, newSink func(out io.Writer) stages.Sink) error {
	return j.check(j.Run(func(inputs []stages.Input, out *codec.LineWriter, opts stages.RunOptions) (stages.RunStats, error) {
		if before != nil {
			return stages.RunSinkAfter(inputs, out, before, newSink(out), opts)
		}
		return stages.RunSink(inputs, out, newSink(out), opts)
	}))
}

func (j Job) check(stats stages.RunStats, err error) error {
	if err == nil && stats.Invalid > 0 {
		return exitcode.New(exitcode.Failure, fmt.Sprintf("%d of %d lines were not JSON objects", stats.Invalid, stats.Lines))
	}
	return err
}

// Filter is what a Job runs: stages.Run of a stage, stages.RunSink of a sink, or its like.
type Filter func(inputs []stages.Input, out *codec.LineWriter, opts stages.RunOptions) (stages.RunStats, error)

// Run runs filter from the inputs to the output, with diagnostics buffered (Diagnostics);
// an -o file is put in place only once filter has written all of it. One writer serves
// lines and text alike; stages.Run flushes it whenever it would wait for input.
func (j Job) Run(filter Filter) (stats stages.RunStats, err error) {
	inputs, closeInputs, err := j.open()
	if err != nil {
		return stats, err
	}
	defer closeInputs()
	diag := NewDiagnostics(j.Stderr)
	defer func() {
		if ferr := diag.Flush(); err == nil {
			err = ferr
		}
	}()
	opts := stages.RunOptions{SkipInvalid: j.SkipInvalid, Report: diag.Println, BeforeWait: diag.Flush}
	if j.Output == "" || j.Output == "-" {
		out := j.Stdout
		if j.Discard {
			out = io.Discard
		}
		return filter(inputs, codec.NewBatchWriter(out), opts)
	}
	var stop context.Context
	stopErr := func() error { return nil }
	if j.Watch != nil {
		stop, stopErr = j.Watch()
	}
	out, err := Create(j.Output)
	if err != nil {
		return stats, &OpenError{err}
	}
	finished := false // the filter returned: a panic leaves the file as it was
	defer func() {
		// A complete output (even one with reported bad lines) replaces the file.
		if cerr := out.Commit(finished && err == nil); err == nil {
			err = cerr
		}
	}()
	lw := codec.NewBatchWriter(out)
	if stop == nil {
		stats, err = filter(inputs, lw, opts)
		finished = true
		return stats, err
	}
	type result struct {
		stats stages.RunStats
		err   error
	}
	done := make(chan result, 1)
	go func() {
		stats, err := filter(inputs, lw, opts)
		done <- result{stats, err}
	}()
	select {
	case r := <-done:
		finished = true
		if r.err == nil {
			r.err = stopErr() // a signal that came as the filter ended cuts it all the same
		}
		return r.stats, r.err
	case <-stop.Done():
		if e := stopErr(); e != nil {
			return stats, e
		}
		return stats, context.Cause(stop) // stopped without a signal: not complete either
	}
}

func (j Job) open() ([]stages.Input, func(), error) {
	if len(j.Files) == 0 {
		return []stages.Input{{Name: "-", Reader: j.Stdin}}, func() {}, nil
	}
	var inputs []stages.Input
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, name := range j.Files {
		if name == "-" {
			inputs = append(inputs, stages.Input{Name: "-", Reader: j.Stdin})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			closeAll()
			return nil, nil, &OpenError{err}
		}
		files = append(files, f)
		inputs = append(inputs, stages.Input{Name: name, Reader: f})
	}
	return inputs, closeAll, nil
}
