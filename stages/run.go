package stages

import (
	"fmt"
	"io"

	"github.com/basecontext/base-context/codec"
)

// Input is one named source of lines.
type Input struct {
	Name   string // for messages: a file name, or "-" / "" for stdin
	Reader io.Reader
}

// RunOptions says how Run treats lines that are not JSON objects.
type RunOptions struct {
	// SkipInvalid drops invalid lines instead of passing them through. Either way each one
	// is reported.
	SkipInvalid bool
	// Report receives one message per invalid line; nil discards them.
	Report func(msg string)
}

// RunStats counts what Run saw.
type RunStats struct {
	Lines   int
	Invalid int
}

// Run feeds every line of the inputs, in order, as one stream through st and writes what it
// emits to out. Invalid lines are reported with their file and line number and then passed
// through in place (or dropped with SkipInvalid); a stage never sees them as events. Lines
// go through byte for byte, a CR before the LF included.
//
// out is flushed whenever no whole line is left to read without waiting, and at the end: a
// batch writer then writes large blocks while input comes in large blocks, and each line as
// soon as it is produced when input comes a line at a time.
func Run(inputs []Input, out *codec.LineWriter, st Stage, opts RunOptions) (RunStats, error) {
	var stats RunStats
	emit := func(f *Frame) error { return f.WriteLine(out) }
	var frame Frame
	for _, in := range inputs {
		lr := codec.NewLineReader(in.Reader)
		for {
			// The next delta of a block is the line before but for its text: found so in
			// what is read, it is checked and split off at once.
			if n := frame.index.CheckRepeatedLine(lr.Pending()); n > 0 {
				stats.Lines++
				if err := st.Push(frame.repeated(lr.Take(n), lr.Line()), emit); err != nil {
					return stats, err
				}
				continue
			}
			if !lr.Buffered() {
				if err := out.Flush(); err != nil {
					return stats, err
				}
			}
			line, err := lr.ReadRawLine()
			if err == io.EOF {
				break
			}
			if err != nil {
				return stats, fmt.Errorf("%s: %w", displayName(in.Name), err)
			}
			stats.Lines++
			f := frame.reuse(line, lr.Line())
			if cerr := f.Check(); cerr != nil {
				stats.Invalid++
				if opts.Report != nil {
					opts.Report(fmt.Sprintf("%s:%d: %v", displayName(in.Name), lr.Line(), cerr))
				}
				if opts.SkipInvalid {
					continue
				}
			}
			if err := st.Push(f, emit); err != nil {
				return stats, err
			}
		}
	}
	if err := st.Flush(emit); err != nil {
		return stats, err
	}
	return stats, out.Flush()
}

// RunSink is Run for a chain that ends in a sink: the lines of the inputs go to sink, and out,
// the writer the sink writes to, is flushed as Run flushes its output.
func RunSink(inputs []Input, out *codec.LineWriter, sink Sink, opts RunOptions) (RunStats, error) {
	return Run(inputs, out, sinkEnd{sink}, opts)
}

// sinkEnd lets Run feed a sink where it feeds a stage: it emits nothing, so the output holds
// only what the sink writes itself.
type sinkEnd struct{ sink Sink }

func (s sinkEnd) Push(f *Frame, _ Emit) error { return s.sink.Consume(f) }
func (s sinkEnd) Flush(Emit) error            { return s.sink.Close() }

func displayName(name string) string {
	if name == "" || name == "-" {
		return "<stdin>"
	}
	return name
}
