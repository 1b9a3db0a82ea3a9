package stages

import (
	"bytes"
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
	// BeforeWait, when set, is called whenever Run is about to wait for input, once out is
	// flushed: a caller that buffers its messages (Report's) writes them out then too, so
	// that they keep up with the lines they are about.
	BeforeWait func() error
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
	var frame Frame
	var read []byte // the line last read, in the reader's buffer
	// Lines passed on as they were read are not copied: while they follow one another in
	// the reader's buffer, with their LFs, they make one span, written from there before
	// the reader reads again (or copied, when a line from elsewhere comes between).
	// A large span read from a regular file goes to a pipe from the file itself (splice): the
	// pipe gets the file's cached pages, and the bytes are not copied again.
	var span []byte
	var lr *codec.LineReader
	writeSpan := func() error {
		s := span
		span = nil
		if len(s) >= spliceSpan {
			if f, off, ok := lr.FileRange(s); ok {
				if done, err := out.SpliceFrom(f, off, len(s)); done || err != nil {
					return err
				}
			}
		}
		return out.WriteThrough(s)
	}
	pass := func(lines []byte) error { // lines in the reader's buffer, with their LFs
		if len(span) > 0 && cap(span) > len(span) && &span[:len(span)+1][len(span)] == &lines[0] {
			span = span[:len(span)+len(lines)]
			return nil
		}
		err := writeSpan()
		span = lines
		return err
	}
	emit := func(f *Frame) error {
		if f == &frame && len(f.line) == len(read) && len(read) > 0 && &f.line[0] == &read[0] {
			if line, ok := withLF(read); ok {
				return pass(line)
			}
		}
		if len(span) > 0 {
			if err := writeSpan(); err != nil {
				return err
			}
		}
		return f.WriteLine(out)
	}
	// What the stage said it does with the next deltas of a block, after the last Push.
	skipper, _ := st.(DeltaSkipper)
	var accepts func([]byte) bool // made once: a method value made per run would be allocated
	if filter, ok := st.(DeltaFilter); ok {
		accepts = filter.AcceptsDelta
	}
	next := PushDeltas
	push := func(f *Frame) error {
		err := st.Push(f, emit)
		if skipper != nil {
			next = skipper.NextDeltas()
			if (next == AcceptDeltas || next == EditDeltas) && accepts == nil {
				next = PushDeltas // a stage that cannot be given deltas
			}
		}
		return err
	}
	for _, in := range inputs {
		if len(span) > 0 { // the last input's: written while its reader is the one at hand
			if err := writeSpan(); err != nil {
				return stats, err
			}
		}
		lr = codec.NewLineReader(in.Reader)
		for {
			// The next deltas of a block that the stage passes on as they come (or drops,
			// or edits as it is given them) need not be pushed one by one: found in what is
			// read, they are checked and passed on (or dropped, or edited) together.
			if next != PushDeltas && frame.nextDeltasFollow() {
				var accept func([]byte) bool
				if next == AcceptDeltas || next == EditDeltas {
					accept = accepts
				}
				if n, count := frame.index.RepeatLastRun(lr.Pending(), accept); count > 0 {
					lines := lr.TakeLines(n, count)
					stats.Lines += count
					last := lines[bytes.LastIndexByte(lines[:n-1], '\n')+1 : n-1]
					frame.tookDeltas(last, lr.Line())
					if next == PassDeltas || next == AcceptDeltas {
						if err := pass(lines); err != nil {
							return stats, err
						}
					}
					run := DeltaRun{Lines: count, Last: &frame, lines: lines, bodyAt: frame.index.LastStringAt() + 1,
						after: len(last) - frame.index.ChangedValue().ValEnd + 1}
					if err := skipper.SkippedDeltas(run); err != nil {
						return stats, err
					}
					continue
				}
			}
			// The next delta of a block is the line before but for its text: found so in
			// what is read, it is checked and split off at once.
			if n := frame.index.CheckRepeatedLine(lr.Pending()); n > 0 {
				stats.Lines++
				read = lr.Take(n)
				if err := push(frame.repeated(read, lr.Line())); err != nil {
					return stats, err
				}
				continue
			}
			if !lr.Buffered() {
				// The reader is about to read again, into the memory the span is in.
				err := writeSpan()
				if err == nil {
					err = out.Flush()
				}
				if err == nil && opts.BeforeWait != nil {
					err = opts.BeforeWait()
				}
				if err != nil {
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
			read = line
			f := frame.reuse(line, lr.Line())
			if cerr := f.Check(); cerr != nil {
				stats.Invalid++
				if opts.Report != nil {
					opts.Report(fmt.Sprintf("%s:%d: %v", displayName(in.Name), lr.Line(), cerr))
				}
				if opts.SkipInvalid {
					next = PushDeltas
					continue
				}
			}
			if err := push(f); err != nil {
				return stats, err
			}
		}
	}
	read = nil // what the stage emits now is its own
	if err := st.Flush(emit); err != nil {
		return stats, err
	}
	if err := writeSpan(); err != nil {
		return stats, err
	}
	return stats, out.Flush()
}

// spliceSpan is the span length from which Run sends a span from its file (a system call
// that saves a copy) rather than copying it into the writer's buffer.
const spliceSpan = 64 << 10

// withLF extends line, a line in a reader's buffer, by the byte after it when that is an LF.
func withLF(line []byte) ([]byte, bool) {
	if cap(line) > len(line) && line[:len(line)+1][len(line)] == '\n' {
		return line[:len(line)+1], true
	}
	return nil, false
}

// RunSink is Run for a chain that ends in a sink: the lines of the inputs go to sink, and out,
// the writer the sink writes to, is flushed as Run flushes its output.
func RunSink(inputs []Input, out *codec.LineWriter, sink Sink, opts RunOptions) (RunStats, error) {
	return Run(inputs, out, sinkEnd{sink}, opts)
}

// RunSinkAfter is RunSink with stage st before the sink (a redaction before a report).
func RunSinkAfter(inputs []Input, out *codec.LineWriter, st Stage, sink Sink, opts RunOptions) (RunStats, error) {
	return Run(inputs, out, Chain(st, sinkEnd{sink}), opts)
}

// sinkEnd lets Run feed a sink where it feeds a stage: it emits nothing, so the output holds
// only what the sink writes itself.
type sinkEnd struct{ sink Sink }

func (s sinkEnd) Push(f *Frame, _ Emit) error { return s.sink.Consume(f) }
func (s sinkEnd) Flush(Emit) error            { return s.sink.Close() }

// A sink emits nothing: it may have the next deltas of a block go by as dropped.
func (s sinkEnd) NextDeltas() NextDeltas {
	if sk, ok := s.sink.(DeltaSkipping); ok {
		if next := sk.NextDeltas(); next == DropDeltas {
			return next
		}
	}
	return PushDeltas
}

func (s sinkEnd) SkippedDeltas(run DeltaRun) error { return s.sink.(DeltaSkipping).SkippedDeltas(run) }

func displayName(name string) string {
	if name == "" || name == "-" {
		return "<stdin>"
	}
	return name
}
