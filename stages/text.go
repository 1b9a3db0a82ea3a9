package stages

import (
	"io"

	"github.com/basecontext/base-context/codec"
)

// TextOptions configures the text sink.
type TextOptions struct {
	// Follow writes every assistant message's text as its deltas arrive, instead of the
	// final answer once the stream has ended.
	Follow bool
	// Thinking includes thinking blocks.
	Thinking bool
	// Verdict tells the verdict that decides whether the run completed what the stream
	// cannot (gates configured, the run's stderr).
	Verdict VerdictOptions
}

// Text writes the plain text a recorded run shows: by default what text mode prints, the
// final assistant message's text, and only when the run completed by the verdict's rules
// (see Verdict); with Follow, the text of every assistant message live, one line break
// after each message.
//
// Text blocks follow one another directly (text mode joins them); a blank line separates a
// thinking block from the block before and after it. Both forms of the stream give the same
// output: deltas are read from the nested update, and a block whose deltas are missing (some
// providers send none) or fall short is completed from its end event or the final message.
// It is a sink: `filter text` ends in it.
type Text struct {
	opts    TextOptions
	out     blockWriter
	verdict *Verdict       // decides whether the run completed, as `filter verdict` does
	summary VerdictSummary // its decision, made by Close

	final   *codec.AssistantMessage // of the last assistant message_end
	written []int                   // per contentIndex, bytes of the streaming message written

	// The last line if it was a text or thinking delta, with its block: the next delta of
	// the block, which only its text tells from it, is written without parsing it again.
	lastDelta     lineID
	deltaIndex    int64
	deltaThinking bool
}

// NewText returns the text sink, writing to w.
func NewText(w io.Writer, opts TextOptions) *Text {
	return &Text{opts: opts, out: blockWriter{w: w}, verdict: NewVerdict(io.Discard, opts.Verdict)}
}

// Verdict is how the recorded run ended (valid after Close): the final answer is written
// only when its Status is VerdictCompleted, and a text command exits as the run would have.
func (t *Text) Verdict() VerdictSummary { return t.summary }

func (t *Text) Consume(f *Frame) error {
	lastDelta := t.lastDelta
	t.lastDelta = lineID{}
	if err := t.verdict.Consume(f); err != nil {
		return err
	}
	switch f.Type() {
	case codec.TypeMessageStart:
		if t.opts.Follow && f.Check() == nil && t.assistant(f) {
			return t.closeMessage()
		}
	case codec.TypeMessageUpdate:
		if t.opts.Follow && f.Check() == nil {
			return t.update(f, lastDelta)
		}
	case codec.TypeMessageEnd:
		return t.end(f)
	}
	return nil
}

// Close writes the final answer of a completed run (without Follow), or ends the line of a
// message cut short (with Follow).
func (t *Text) Close() error {
	if err := t.verdict.Close(); err != nil {
		return err
	}
	t.summary = t.verdict.Summary()
	if t.opts.Follow {
		return t.closeMessage()
	}
	if t.summary.Status != VerdictCompleted || t.final == nil {
		return nil
	}
	return t.finish(t.final)
}

func (t *Text) message(f *Frame) []byte {
	var m [1]codec.Member
	f.members(messageKey, m[:])
	if !m[0].Exists() {
		return nil
	}
	return m[0].Raw(f.Line())
}

func (t *Text) assistant(f *Frame) bool {
	msg := t.message(f)
	return codec.Find(msg, "role").View(msg) == "assistant"
}

// closeMessage ends the line of the message written so far, if it wrote anything, and
// readies the state for the next one. Called at a message's end, at the start of the next
// (the previous one was cut short) and at the end of the stream.
func (t *Text) closeMessage() error {
	cut := t.out.any
	t.written = t.written[:0]
	t.out.reset()
	if cut {
		return t.out.raw("\n")
	}
	return nil
}

func (t *Text) end(f *Frame) error {
	if f.Check() != nil || !t.assistant(f) {
		return nil
	}
	m, err := codec.ParseMessage(t.message(f))
	if err != nil {
		return nil // not a message we can read: the answer is whatever came before
	}
	am, ok := m.(*codec.AssistantMessage)
	if !ok {
		return nil
	}
	t.final = am
	if !t.opts.Follow {
		return nil
	}
	return t.finish(am)
}

// finish writes what is left of each block of m, and the line break ending the message.
func (t *Text) finish(m *codec.AssistantMessage) error {
	for i, c := range m.Content {
		switch c := c.(type) {
		case *codec.TextContent:
			if err := t.complete(int64(i), false, c.Text); err != nil {
				return err
			}
		case *codec.ThinkingContent:
			if err := t.complete(int64(i), true, c.Thinking); err != nil {
				return err
			}
		}
	}
	return t.closeMessage()
}

// complete writes the part of block i's whole text not written yet.
func (t *Text) complete(i int64, thinking bool, whole string) error {
	if n := t.wrote(i); n < len(whole) {
		return t.write(i, thinking, whole[n:])
	}
	return nil
}

func (t *Text) update(f *Frame, lastDelta lineID) error {
	if f.repeatsDeltaOf(lastDelta) {
		t.lastDelta = f.checkedLine()
		return t.write(t.deltaIndex, t.deltaThinking, f.index.ChangedValue().View(f.Line()))
	}
	var m [4]codec.Member
	f.members(updateKeys, m[:])
	ame := m[2]
	if !ame.Exists() {
		return nil
	}
	ev := parseNestedEvent(ame.Raw(f.Line()))
	i := ev.index()
	switch typ := ev.typ(); typ {
	case codec.UpdateTextDelta, codec.UpdateThinkingDelta:
		t.lastDelta, t.deltaIndex, t.deltaThinking = f.checkedLine(), i, typ == codec.UpdateThinkingDelta
		return t.write(i, t.deltaThinking, ev.view(evDelta))
	case codec.UpdateTextEnd:
		return t.complete(i, false, ev.view(evContent))
	case codec.UpdateThinkingEnd:
		return t.complete(i, true, ev.view(evContent))
	}
	return nil
}

func (t *Text) wrote(i int64) int {
	if i < 0 || i >= int64(len(t.written)) {
		return 0
	}
	return t.written[i]
}

func (t *Text) write(i int64, thinking bool, s string) error {
	if s == "" || (thinking && !t.opts.Thinking) || i < 0 {
		return nil
	}
	for int64(len(t.written)) <= i {
		t.written = append(t.written, 0)
	}
	t.written[i] += len(s)
	return t.out.block(i, thinking, s)
}

// blockWriter writes the blocks of one message, separating thinking from its neighbours.
type blockWriter struct {
	w            io.Writer
	any          bool  // something was written for this message
	last         int64 // the block written last
	lastThinking bool
	// scratch holds what raw writes, reused: io.WriteString would allocate a copy of every
	// delta for a writer without WriteString, such as the filters' LineWriter.
	scratch []byte
}

func (b *blockWriter) reset() { b.any, b.last, b.lastThinking = false, -1, false }

func (b *blockWriter) block(i int64, thinking bool, s string) error {
	if b.any && i != b.last && (thinking || b.lastThinking) {
		if err := b.raw("\n\n"); err != nil {
			return err
		}
	}
	b.any, b.last, b.lastThinking = true, i, thinking
	return b.raw(s)
}

func (b *blockWriter) raw(s string) error {
	b.scratch = append(b.scratch[:0], s...)
	_, err := b.w.Write(b.scratch)
	return err
}
