package stages

import (
	"bytes"
	"io"

	"github.com/basecontext/base-context/codec"
)

// sink is a stage with its output going to dst, gathered until flushed: what Writer and
// EventWriter share.
type sink struct {
	st   Stage
	out  *codec.LineWriter
	emit Emit
}

func (k *sink) init(st Stage, dst io.Writer) {
	k.st, k.out = st, codec.NewBatchWriter(dst)
	k.emit = func(f *Frame) error { return f.WriteLine(k.out) }
}

// close flushes the stage, then writes what is left, even when the stage failed.
func (k *sink) close() error {
	err := k.st.Flush(k.emit)
	if ferr := k.out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Writer adapts a stage to an io.Writer: lines written to it go through the stage and its
// output goes to dst, in one write for each Write. Close flushes the stage, treating an
// unterminated last line as a line.
type Writer struct {
	sink
	pending []byte
	lineNo  int
	frame   Frame
}

// NewWriter returns a Writer that sends st's output to dst.
func NewWriter(st Stage, dst io.Writer) *Writer {
	w := &Writer{}
	w.init(st, dst)
	return w
}

func (w *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(w.pending) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.pending = append(w.pending, p...)
			return n, nil
		}
		w.pending = append(w.pending, p[:i]...)
		if err := w.push(w.pending); err != nil {
			return 0, err
		}
		w.pending = w.pending[:0]
		p = p[i+1:]
	}
	rest, err := codec.SplitLines(p, w.push)
	if err != nil {
		return 0, err
	}
	w.pending = append(w.pending, rest...)
	if err := w.out.Flush(); err != nil {
		return 0, err
	}
	return n, nil
}

func (w *Writer) push(line []byte) error {
	w.lineNo++
	return w.st.Push(w.frame.reuse(line, w.lineNo), w.emit)
}

// Close pushes an unterminated last line, if any, and flushes the stage.
func (w *Writer) Close() error {
	if len(w.pending) > 0 {
		if err := w.push(w.pending); err != nil {
			return err
		}
		w.pending = nil
	}
	return w.close()
}

// Reader adapts a stage to an io.Reader: reading from it yields st's output for the lines
// of src.
type Reader struct {
	st    Stage
	lr    *codec.LineReader
	buf   bytes.Buffer
	done  bool
	err   error
	emit  Emit
	frame Frame
}

// NewReader returns a Reader of st's output over src.
func NewReader(src io.Reader, st Stage) *Reader {
	r := &Reader{st: st, lr: codec.NewLineReader(src)}
	r.emit = func(f *Frame) error {
		r.buf.Write(f.Line())
		r.buf.WriteByte('\n')
		return nil
	}
	return r
}

func (r *Reader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.done {
			return 0, io.EOF
		}
		line, err := r.lr.ReadRawLine()
		switch {
		case err == io.EOF:
			r.done = true
			r.err = r.st.Flush(r.emit)
		case err != nil:
			r.err = err
		default:
			r.err = r.st.Push(r.frame.reuse(line, r.lr.Line()), r.emit)
		}
	}
	return r.buf.Read(p)
}

// EventWriter is the output of an agent's events: each goes through the stage to dst,
// gathered until Flush (the agent flushes after each provider chunk). A nil EventWriter
// (a run that writes no events) takes every event and writes nothing.
type EventWriter struct{ sink }

// NewEventWriter returns an EventWriter that sends st's output to dst.
func NewEventWriter(st Stage, dst io.Writer) *EventWriter {
	w := &EventWriter{}
	w.init(st, dst)
	return w
}

// Event sends e through the stage.
func (w *EventWriter) Event(e codec.Event) error {
	if w == nil {
		return nil
	}
	return w.st.Push(EventFrame(e), w.emit)
}

// Flush writes what the events pushed so far produced.
func (w *EventWriter) Flush() error {
	if w == nil {
		return nil
	}
	return w.out.Flush()
}

// Close flushes the stage, then writes what is left, even when the stage failed.
func (w *EventWriter) Close() error {
	if w == nil {
		return nil
	}
	return w.close()
}
