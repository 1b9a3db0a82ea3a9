package stages

import (
	"bytes"
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

	final    []byte // a copy of the message of the last assistant message_end (without Follow)
	hasFinal bool
	written  []int // per contentIndex, bytes of the streaming message written

	// Reused for each message read: where its blocks' texts are, the message without
	// them, and a text decoded.
	blocks   []textPlace
	edits    []codec.Edit
	stripped []byte
	decoded  []byte
	// The message without its texts read last and what the decoder made of it: the same
	// message again (streams concatenated, a retry) is not decoded again.
	lastStripped []byte
	lastRead     *codec.AssistantMessage

	// The last line if it was a text or thinking delta, with its block: the next delta of
	// the block, which only its text tells from it, is written without parsing it again.
	lastDelta     lineID
	deltaIndex    int64
	deltaThinking bool
	writeDelta    func(body []byte) error // writes a delta of that block (made once: a method value made per run would be allocated)
}

// NewText returns the text sink, writing to w.
func NewText(w io.Writer, opts TextOptions) *Text {
	t := &Text{opts: opts, out: blockWriter{w: w}, verdict: NewVerdict(io.Discard, opts.Verdict)}
	t.writeDelta = func(body []byte) error { return t.write(t.deltaIndex, t.deltaThinking, t.decodeBody(body)) }
	return t
}

// NextDeltas: the next deltas of a block are, besides lines to the verdict, their texts,
// written one after the other (with Follow; nothing without it).
func (t *Text) NextDeltas() NextDeltas {
	if t.verdict.NextDeltas() != DropDeltas || t.opts.Follow && t.lastDelta == (lineID{}) {
		return PushDeltas
	}
	return DropDeltas
}

func (t *Text) SkippedDeltas(run DeltaRun) error {
	if err := t.verdict.SkippedDeltas(run); err != nil || !t.opts.Follow {
		return err
	}
	t.lastDelta = run.Last.checkedLine()
	return run.EachDelta(t.writeDelta)
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
	if t.summary.Status != VerdictCompleted || !t.hasFinal {
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
		return t.out.raw(lineBreak)
	}
	return nil
}

func (t *Text) end(f *Frame) error {
	if f.Check() != nil || !t.assistant(f) {
		return nil
	}
	msg := t.message(f)
	if t.opts.Follow {
		return t.finish(msg)
	}
	if m, _ := t.read(msg); m != nil {
		t.final, t.hasFinal = append(t.final[:0], msg...), true
	}
	return nil // else not a message we can read: the answer is whatever came before
}

// textPlace is where the text of a content block is in its message: the last "text" and
// "thinking" members of the block, which the decoder reads.
type textPlace struct{ text, thinking codec.Member }

// read decodes msg as codec.ParseMessage does, nil when that is not an assistant message.
// The decoder is given msg with the texts of its blocks emptied (whatever a string says, it
// decodes as a string), so that the texts, the bulk of a message, are neither parsed nor
// copied: whole is false, and t.blocks says where they are in msg. When a key has an escape
// the members as written may not be those the decoder reads: then it reads msg as it is,
// and whole is true.
func (t *Text) read(msg []byte) (m *codec.AssistantMessage, whole bool) {
	t.blocks = t.blocks[:0]
	plain := true // no key has an escape
	var content codec.Member
	codec.EachMember(msg, func(key []byte, member codec.Member) bool {
		plain = plain && bytes.IndexByte(key, '\\') < 0
		if string(key) == "content" {
			content = member
		}
		return true
	})
	arr := content.Raw(msg)
	codec.EachElem(arr, func(_ int, elem []byte) bool {
		var b textPlace
		if len(elem) > 0 && elem[0] == '{' {
			at := content.ValStart + cap(arr) - cap(elem) // where elem starts in msg
			codec.EachMember(elem, func(key []byte, member codec.Member) bool {
				plain = plain && bytes.IndexByte(key, '\\') < 0
				member.KeyStart, member.ValStart, member.ValEnd = member.KeyStart+at, member.ValStart+at, member.ValEnd+at
				switch string(key) {
				case "text":
					b.text = member
				case "thinking":
					b.thinking = member
				}
				return true
			})
		}
		t.blocks = append(t.blocks, b)
		return plain
	})
	if !plain {
		if decoded, err := codec.ParseMessage(msg); err == nil {
			m, _ = decoded.(*codec.AssistantMessage)
		}
		return m, true
	}
	t.edits = t.edits[:0]
	for _, b := range t.blocks {
		first, second := b.text, b.thinking
		if second.ValStart < first.ValStart {
			first, second = second, first
		}
		t.edits = appendEmptied(appendEmptied(t.edits, msg, first), msg, second)
	}
	t.stripped = codec.Splice(t.stripped[:0], msg, t.edits...)
	if t.lastStripped != nil && bytes.Equal(t.stripped, t.lastStripped) {
		return t.lastRead, false
	}
	if decoded, err := codec.ParseMessage(t.stripped); err == nil {
		m, _ = decoded.(*codec.AssistantMessage)
	}
	// Kept: what the decoder made holds no byte of t.stripped.
	t.lastStripped, t.stripped, t.lastRead = t.stripped, t.lastStripped[:0], m
	return m, false
}

// appendEmptied appends the edit that empties the body of m when m is a string of msg.
func appendEmptied(edits []codec.Edit, msg []byte, m codec.Member) []codec.Edit {
	if !m.Exists() || msg[m.ValStart] != '"' || m.ValEnd-m.ValStart == 2 {
		return edits
	}
	return append(edits, codec.Edit{Start: m.ValStart + 1, End: m.ValEnd - 1})
}

// finish writes what is left of each text and thinking block of msg, an encoded assistant
// message, and the line break ending the message. A message the codec cannot read is left
// as it was streamed.
func (t *Text) finish(msg []byte) error {
	m, whole := t.read(msg)
	if m == nil {
		return nil
	}
	for i, c := range m.Content {
		var err error
		switch c := c.(type) {
		case *codec.TextContent:
			if whole {
				err = t.complete(int64(i), false, []byte(c.Text))
			} else {
				err = t.complete(int64(i), false, t.decode(t.blocks[i].text.Raw(msg)))
			}
		case *codec.ThinkingContent:
			if whole {
				err = t.complete(int64(i), true, []byte(c.Thinking))
			} else {
				err = t.complete(int64(i), true, t.decode(t.blocks[i].thinking.Raw(msg)))
			}
		}
		if err != nil {
			return err
		}
	}
	return t.closeMessage()
}

// decode returns the text of raw, an encoded string (nothing for anything else): its body,
// decoded into t.decoded when it has escapes.
func (t *Text) decode(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return nil
	}
	return t.decodeBody(raw[1 : len(raw)-1])
}

// decodeBody returns the text of body, the body of an encoded string, decoded into
// t.decoded when it has escapes.
func (t *Text) decodeBody(body []byte) []byte {
	if bytes.IndexByte(body, '\\') < 0 {
		return body
	}
	t.decoded = codec.AppendUnescaped(t.decoded[:0], body)
	return t.decoded
}

// complete writes the part of block i's whole text not written yet.
func (t *Text) complete(i int64, thinking bool, whole []byte) error {
	if n := t.wrote(i); n < len(whole) {
		return t.write(i, thinking, whole[n:])
	}
	return nil
}

func (t *Text) update(f *Frame, lastDelta lineID) error {
	if f.repeatsDeltaOf(lastDelta) {
		t.lastDelta = f.checkedLine()
		return t.write(t.deltaIndex, t.deltaThinking, t.decode(f.index.ChangedValue().Raw(f.Line())))
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
		return t.write(i, t.deltaThinking, t.decode(ev.get(evDelta)))
	case codec.UpdateTextEnd:
		return t.complete(i, false, t.decode(ev.get(evContent)))
	case codec.UpdateThinkingEnd:
		return t.complete(i, true, t.decode(ev.get(evContent)))
	}
	return nil
}

func (t *Text) wrote(i int64) int {
	if i < 0 || i >= int64(len(t.written)) {
		return 0
	}
	return t.written[i]
}

func (t *Text) write(i int64, thinking bool, s []byte) error {
	if len(s) == 0 || (thinking && !t.opts.Thinking) || i < 0 {
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
}

func (b *blockWriter) reset() { b.any, b.last, b.lastThinking = false, -1, false }

func (b *blockWriter) block(i int64, thinking bool, s []byte) error {
	if b.any && i != b.last && (thinking || b.lastThinking) {
		if err := b.raw(blankLine); err != nil {
			return err
		}
	}
	b.any, b.last, b.lastThinking = true, i, thinking
	return b.raw(s)
}

var lineBreak, blankLine = []byte("\n"), []byte("\n\n")

func (b *blockWriter) raw(p []byte) error {
	_, err := b.w.Write(p)
	return err
}
