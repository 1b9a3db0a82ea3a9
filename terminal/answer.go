package terminal

import (
	"io"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
)

// Answer writes the text of the model's messages to a terminal as it arrives. With a
// redaction, each text block goes through a redact.Block, which holds back only what could
// still become part of a secret, so that what is written adds up to the redaction of the
// whole text (a secret over several lines or pieces included); each text block ends its line.
type Answer struct {
	w       io.Writer
	walker  *redact.Walker // nil: no redaction
	block   redact.Block
	inBlock bool
	midLine bool // the last byte written was not a line break
	wrote   bool
	err     error
}

// NewAnswer writes the answer to w, redacted with r's rules when r is not nil.
func NewAnswer(w io.Writer, r *redact.Redactor) *Answer {
	a := &Answer{w: w}
	if r != nil {
		a.walker = redact.NewWalker(r)
	}
	return a
}

// Event takes the text of one event of the run's stream; a nil Answer takes none.
func (a *Answer) Event(e codec.Event) {
	if a == nil {
		return
	}
	u, ok := e.(*codec.MessageUpdate)
	if !ok || u.Update == nil {
		return
	}
	switch u.Update.Type {
	case codec.UpdateTextStart:
		if a.walker != nil {
			a.block.Start(a.walker, false)
			a.inBlock = true
		}
	case codec.UpdateTextDelta:
		if !a.inBlock {
			a.write(u.Update.Delta)
			return
		}
		out, _ := a.block.Push([]byte(u.Update.Delta))
		a.writeBytes(out)
	case codec.UpdateTextEnd:
		a.endBlock()
	}
}

// endBlock writes what the block held back and ends the line.
func (a *Answer) endBlock() {
	if a.inBlock {
		a.writeBytes(a.block.Finish())
		a.inBlock = false
	}
	if a.midLine {
		a.write("\n")
	}
}

func (a *Answer) writeBytes(b []byte) {
	if len(b) == 0 || a.err != nil {
		return
	}
	_, a.err = a.w.Write(b)
	a.midLine = b[len(b)-1] != '\n'
	a.wrote = true
}

func (a *Answer) write(s string) {
	if s == "" || a.err != nil {
		return
	}
	_, a.err = io.WriteString(a.w, s)
	a.midLine = s[len(s)-1] != '\n'
	a.wrote = true
}

// Close ends the last line; the error is the first write's that failed. A nil Answer
// writes nothing.
func (a *Answer) Close() error {
	if a == nil {
		return nil
	}
	a.endBlock()
	return a.err
}

// Wrote reports whether any of the answer was written.
func (a *Answer) Wrote() bool { return a != nil && a.wrote }
