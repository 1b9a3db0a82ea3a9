package terminal

import (
	"io"
	"strings"

	"github.com/basecontext/base-context/codec"
)

// Answer writes the text of the model's messages to a terminal as it arrives. With a
// redaction, it writes whole lines (a secret cut between two pieces would pass unseen
// otherwise); each text block ends its line.
type Answer struct {
	w       io.Writer
	redact  func(string) string
	pending strings.Builder // the line being received, with a redaction
	midLine bool            // the last byte written was not a line break
	wrote   bool
	err     error
}

// NewAnswer writes the answer to w; redact, when not nil, removes secrets from each line.
func NewAnswer(w io.Writer, redact func(string) string) *Answer {
	return &Answer{w: w, redact: redact}
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
	case codec.UpdateTextDelta:
		a.text(u.Update.Delta)
	case codec.UpdateTextEnd:
		a.endLine()
	}
}

func (a *Answer) text(delta string) {
	if a.redact == nil {
		a.write(delta)
		return
	}
	for {
		line, rest, ok := strings.Cut(delta, "\n")
		if !ok {
			a.pending.WriteString(delta)
			return
		}
		a.pending.WriteString(line + "\n")
		a.write(a.redact(a.pending.String()))
		a.pending.Reset()
		delta = rest
	}
}

// endLine writes what is pending and ends the line.
func (a *Answer) endLine() {
	if a.pending.Len() > 0 {
		a.write(a.redact(a.pending.String()))
		a.pending.Reset()
	}
	if a.midLine {
		a.write("\n")
	}
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
	a.endLine()
	return a.err
}

// Wrote reports whether any of the answer was written.
func (a *Answer) Wrote() bool { return a != nil && a.wrote }
