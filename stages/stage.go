// Package stages holds the streaming transforms of the event stream. Each stage works on
// frames: a frame carries either a typed event (in process, from the agent) or an encoded
// line (read from a file or pipe), and is encoded only when somebody needs its bytes. The
// same stage code serves the `filter` subcommands and the agent's in-process output chain.
package stages

import (
	"github.com/basecontext/base-context/codec"
)

// Frame is one line of the stream on its way through a chain.
type Frame struct {
	// Event is the typed event, or nil for a frame read as bytes.
	Event codec.Event
	// LineNo is the input line number of a frame read as bytes, 0 otherwise.
	LineNo int

	line    []byte
	typ     string
	checked bool
	err     error
}

// EventFrame wraps a typed event.
func EventFrame(e codec.Event) *Frame {
	return &Frame{Event: e, typ: e.EventType(), checked: true}
}

// LineFrame wraps an encoded line (without its LF). The frame does not copy line: it is
// valid for as long as line is, which for a reader's frames is until Push returns.
func LineFrame(line []byte, lineNo int) *Frame {
	return &Frame{line: line, LineNo: lineNo}
}

// Line returns the frame's encoded line, encoding a typed event on first use. A stage that
// keeps a frame past Push must call Line (or copy what it needs) before Push returns, since
// a typed event may point at state its producer goes on changing.
func (f *Frame) Line() []byte {
	if f.line == nil && f.Event != nil {
		f.line = f.Event.AppendJSON(make([]byte, 0, 256))
	}
	return f.line
}

// Check reports why the frame's line is not a JSON object, nil when it is one. The answer is
// computed once.
func (f *Frame) Check() error {
	if !f.checked {
		f.checked = true
		f.err = codec.CheckObject(f.line)
		if f.err == nil {
			f.typ = codec.LineType(f.line)
		}
	}
	return f.err
}

// Type returns the event type, or "" for a line that is not a valid JSON object or has no
// string "type". Stages pass frames of a type they do not handle through unchanged, so
// invalid lines flow through a chain in their place.
func (f *Frame) Type() string {
	f.Check()
	return f.typ
}

// Edited returns a frame holding line, a valid edit of f made by a stage.
func (f *Frame) Edited(line []byte) *Frame {
	return &Frame{line: line, LineNo: f.LineNo, typ: f.typ, checked: true}
}

// Emit hands a frame to the next stage or the output.
type Emit func(*Frame) error

// Stage is one streaming transform. Push receives frames in stream order and emits zero or
// more frames; Flush is called once at the end of the stream.
type Stage interface {
	Push(f *Frame, emit Emit) error
	Flush(emit Emit) error
}

// Chain composes stages: each stage's output is the next one's input.
func Chain(stages ...Stage) Stage {
	switch len(stages) {
	case 0:
		return passThrough{}
	case 1:
		return stages[0]
	}
	return chain(stages)
}

type chain []Stage

func (c chain) emitAt(i int, emit Emit) Emit {
	if i == len(c) {
		return emit
	}
	return func(f *Frame) error { return c[i].Push(f, c.emitAt(i+1, emit)) }
}

func (c chain) Push(f *Frame, emit Emit) error {
	return c[0].Push(f, c.emitAt(1, emit))
}

func (c chain) Flush(emit Emit) error {
	for i := range c {
		if err := c[i].Flush(c.emitAt(i+1, emit)); err != nil {
			return err
		}
	}
	return nil
}

type passThrough struct{}

func (passThrough) Push(f *Frame, emit Emit) error { return emit(f) }
func (passThrough) Flush(Emit) error               { return nil }
