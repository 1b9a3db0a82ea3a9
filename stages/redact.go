package stages

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
)

// Redact is the redaction engine (package redact) as a stage over frames: it removes secrets from every string of every event (stream lines in either form, docs/stream.md),
// replacing each with [REDACTED:<rule-id>].
//
// Strings are redacted whole, except the text, thinking and tool-argument deltas of a block,
// which are redacted as one stream: the stage holds back only the tail that could still
// become part of a match, and releases it as soon as it cannot, or at the block's end event,
// in a text_delta (thinking_delta, toolcall_delta) of its own just before that event. The
// deltas released thus add up to the redaction of the block's whole text, and a snapshot's
// block (full form) is the text released so far: `filter deltas` and `filter expand` agree on
// the result as they did on the input.
type Redact struct {
	r      *redact.Redactor
	blocks []*redactBlock
	spare  []*redactBlock // blocks done with, started again for later blocks with their buffers
	js     *redact.Walker
	args   []byte

	// For blocks that are still open when their message ends or the stream stops: the
	// form of the last update, its messageId and its redacted snapshot.
	full     bool
	lastID   []byte
	idBuf    []byte // holds lastID, reused
	out      []byte // the line written last, valid until the next Push
	lastSnap []byte

	// The parts of a snapshot around its content last found to need no redaction, and
	// where in the prefix content's key starts.
	cleanPrefix, cleanSuffix []byte
	cleanKey                 int

	// What crossing the snapshots of the line being redacted found (see crossSnapshot):
	// valid while gen is the line's, at the memory crossed.
	gen     uint64
	crossed crossedSnapshot

	clean    cleanDelta
	deltaEnc []byte // a redacted delta's encoding, reused

	cleanFull cleanUpdate
	// While update walks a line: the block its delta went to, and where content found
	// that block's text in the line's snapshots (the starts of the string values).
	textsOf *redactBlock
	textsAt []int
}

// cleanDelta is the last line if it was a delta-form update (a delta without a snapshot)
// whose strings, its delta aside, were found to need no redaction. In a stream of deltas,
// the next line is mostly that line but for the text of its delta (Frame.repeatsDeltaOf):
// the same update with another delta, so only its delta needs redacting, and its members
// need not be found.
type cleanDelta struct {
	line  lineID
	block *redactBlock // the update's block, s.blocks[its contentIndex]
}

// cleanUpdate is the last line if it was a full-form update (a delta and its snapshots)
// that the stage passed on unchanged: its delta released as it came and its snapshots
// showing the block's text as released. The next update of the full form is mostly that
// line but for the bodies of its delta and of the block's texts in its snapshots
// (Frame.repeatsBodiesOf): when those are all that changed, the new delta is released as
// it came, and the new texts are the text released so far and that delta, the line is
// passed on unchanged in turn, its members neither found nor walked (updateAgain).
type cleanUpdate struct {
	line  lineID
	block *redactBlock
	// Where the delta's string value starts and ends in the line, and where the block's
	// texts (string values) start in its snapshots.
	deltaAt, deltaEnd int
	textsAt           []int
	movedTexts        []int // textsAt moved to the next line, by updateAgain (its buffer, reused)
}

// blockTextKeys names the members whose values change from one full-form update to the
// next: the delta, and a text or thinking block's text in the snapshots.
var blockTextKeys = []string{"delta", "text", "thinking"}

// NewRedact returns the stage, redacting with r.
func NewRedact(r *redact.Redactor) *Redact {
	return &Redact{r: r, js: redact.NewWalker(r)}
}

// Block kinds.
const (
	blockText = iota + 1
	blockThinking
	blockToolCall
)

// redactBlock is the state of one streamed content block.
type redactBlock struct {
	kind   int
	ended  bool
	stream redact.Block
	final  []byte // a finished tool call's redacted arguments
	// lent: the text released went into a typed event as a string, which must not change;
	// the block's buffers are not used again.
	lent bool
	// What crossing a snapshot found of the block's object there (see crossBlock).
	seen blockSeen
}

// blockSeen is what crossBlock found of a block's object in a snapshot of the line being
// redacted: its last member named type, and the start of a string member found to hold
// the block's released text, or -1, offsets from the object's start. Valid while gen is
// the stage's, for the object at at; textAt only while the text released is textLen long
// (the line's delta goes to the block after its snapshot in partial is crossed, and a
// block's text only grows until it starts again, when it is empty).
type blockSeen struct {
	gen     uint64
	at      *byte
	typ     codec.Member
	textAt  int
	textLen int
}

// crossedSnapshot is what crossSnapshot found of the snapshot at at, in the line being
// redacted (while gen is the stage's): its end and content, offsets from its start.
type crossedSnapshot struct {
	gen     uint64
	at      *byte
	end     int
	content codec.Member
}

// maxSpareText bounds the released text whose buffer a block done with keeps for the next.
const maxSpareText = 1 << 20

func blockKind(updateType string) int {
	switch {
	case strings.HasPrefix(updateType, "thinking"):
		return blockThinking
	case strings.HasPrefix(updateType, "toolcall"):
		return blockToolCall
	case strings.HasPrefix(updateType, "text"):
		return blockText
	}
	return 0
}

// deltaType is the delta update type of a block kind.
func deltaType(kind int) string {
	switch kind {
	case blockThinking:
		return codec.UpdateThinkingDelta
	case blockToolCall:
		return codec.UpdateToolCallDelta
	}
	return codec.UpdateTextDelta
}

// block returns the state of block idx for an update of type typ; a start begins it anew.
func (s *Redact) block(idx int64, typ string) *redactBlock {
	kind := blockKind(typ)
	if kind == 0 || idx < 0 || idx > 1<<16 {
		return nil
	}
	for int64(len(s.blocks)) <= idx {
		s.blocks = append(s.blocks, nil)
	}
	b := s.blocks[idx]
	if b == nil || b.kind != kind || strings.HasSuffix(typ, "_start") {
		s.retire(b)
		b = s.newBlock(kind)
		s.blocks[idx] = b
	}
	return b
}

// newBlock starts a block of a kind, on the buffers of one done with when there is one: a
// stream of messages allocates nothing for their blocks once the first few had theirs.
func (s *Redact) newBlock(kind int) *redactBlock {
	var b *redactBlock
	if n := len(s.spare); n > 0 {
		b, s.spare = s.spare[n-1], s.spare[:n-1]
		b.kind, b.ended, b.final = kind, false, nil
	} else {
		b = &redactBlock{kind: kind}
	}
	b.stream.Start(s.js, kind == blockToolCall)
	return b
}

// retire keeps a block done with (nil: none) for newBlock, unless its text was lent or is
// long.
func (s *Redact) retire(b *redactBlock) {
	if b != nil && !b.lent && cap(b.stream.Released()) <= maxSpareText {
		s.spare = append(s.spare, b)
	}
}

// dropBlocks forgets every block, at the start and end of an assistant message.
func (s *Redact) dropBlocks() {
	for i, b := range s.blocks {
		s.retire(b)
		s.blocks[i] = nil
	}
	s.blocks = s.blocks[:0]
}

// finish ends a block and returns the tail it held.
func (s *Redact) finish(b *redactBlock) []byte {
	tail := b.stream.Finish()
	if b.kind == blockToolCall && b.final == nil {
		b.final = codec.PartialObject(codec.UnsafeString(b.stream.Released()))
	}
	b.ended = true
	return tail
}

func (s *Redact) Push(f *Frame, emit Emit) error {
	clean, cleanFull := s.clean.line, s.cleanFull.line
	s.clean.line, s.cleanFull.line = lineID{}, lineID{}
	if f.Event == nil && f.Check() == nil {
		if f.repeatsDeltaOf(clean) {
			return s.deltaAgain(f, lineID{clean.frame, clean.n + 1}, emit)
		}
		if f.repeatsBodiesOf(cleanFull, blockTextKeys) && s.updateAgain(f, lineID{cleanFull.frame, cleanFull.n + 1}) {
			return emit(f)
		}
	}
	if u, ok := f.Event.(*codec.MessageUpdate); ok {
		return s.typedUpdate(u, emit)
	}
	if f.Event == nil && f.Check() != nil {
		// Not an event, but it may still hold a secret: redact it as plain text.
		line := f.Line()
		if out, changed := s.r.RedactText(nil, line); changed {
			return emit(LineFrame(out, f.LineNo))
		}
		return emit(f)
	}
	switch f.Type() {
	case codec.TypeMessageUpdate:
		return s.update(f, emit)
	case codec.TypeToolExecutionUpdate:
		return s.progress(f, emit)
	case codec.TypeMessageStart, codec.TypeMessageEnd:
		line := f.Line()
		var m [4]codec.Member
		f.members(updateKeys, m[:])
		msg := m[3].Raw(line)
		if codec.Find(msg, "role").View(msg) == "assistant" {
			if f.Type() == codec.TypeMessageEnd {
				var id []byte
				if m[1].Exists() {
					id = m[1].Raw(line)
				}
				if err := s.finishOpen(id, emit); err != nil {
					return err
				}
			}
			s.dropBlocks()
		}
	}
	return s.generic(f, emit)
}

// Flush releases what blocks still open (a stream cut short) hold.
func (s *Redact) Flush(emit Emit) error { return s.finishOpen(s.lastID, emit) }

// finishOpen ends the blocks still open, each with a delta carrying its tail.
func (s *Redact) finishOpen(id []byte, emit Emit) error {
	for idx, b := range s.blocks {
		if b == nil || b.ended {
			continue
		}
		tail := s.finish(b)
		if len(tail) == 0 {
			continue
		}
		var snap []byte
		if s.full && s.lastSnap != nil {
			snap = s.snapshotOf(s.lastSnap)
		}
		if err := emit(LineFrame(syntheticDelta(b.kind, idx, tail, id, snap), 0)); err != nil {
			return err
		}
	}
	return nil
}

// snapshotOf returns the snapshot raw with its blocks as released now.
func (s *Redact) snapshotOf(raw []byte) []byte {
	s.js.Reset()
	s.gen++
	s.snapshot(raw, 0)
	if len(s.js.Edits()) == 0 {
		return raw
	}
	return s.js.Splice(nil, raw)
}

// syntheticDelta builds the update that carries a block's tail, with the snapshot snap in
// the full form (nil: the delta form, with messageId id when there is one).
func syntheticDelta(kind, idx int, tail, id, snap []byte) []byte {
	out := make([]byte, 0, 128+len(tail)+2*len(snap))
	out = append(out, `{"type":"message_update"`...)
	if snap == nil && id != nil {
		out = append(out, `,"messageId":`...)
		out = append(out, id...)
	}
	out = append(out, `,"assistantMessageEvent":{"type":`...)
	out = codec.AppendString(out, deltaType(kind))
	out = append(out, `,"contentIndex":`...)
	out = strconv.AppendInt(out, int64(idx), 10)
	out = append(out, `,"delta":`...)
	out = codec.AppendString(out, codec.UnsafeString(tail))
	if snap != nil {
		out = append(out, `,"partial":`...)
		out = append(out, snap...)
		out = append(out, `},"message":`...)
		out = append(out, snap...)
		return append(out, '}')
	}
	return append(out, '}', '}')
}

// deltaAgain redacts a line that is s.clean's line but for the text of its delta: the
// next delta of the block that line's delta went to. id is the line's (repeatsDeltaOf
// found it to be the one after s.clean's).
func (s *Redact) deltaAgain(f *Frame, id lineID, emit Emit) error {
	c := &s.clean
	c.line = id // clean around its delta too, whatever its delta becomes
	line := f.Line()
	delta := f.index.ChangedValue()
	ds, de := delta.ValStart, delta.ValEnd
	// s.full and s.lastID stay as c's line left them: a delta-form update, with the same id.
	if c.block.stream.PushQuiet(line, ds, de) {
		return emit(f)
	}
	enc, asCame := s.pushDelta(c.block, line, ds, de)
	if asCame {
		return emit(f)
	}
	s.out = append(append(append(s.out[:0], line[:ds]...), enc...), line[de:]...)
	return emit(f.Edited(s.out))
}

// NextDeltas: after a delta redacted from the clean line before it, in a quiet block, the next
// deltas of the block pass as they came while the block releases each as it came
// (AcceptsDelta).
func (s *Redact) NextDeltas() NextDeltas {
	if s.clean.line != (lineID{}) && s.clean.block.stream.Quiet() {
		return AcceptDeltas
	}
	return PushDeltas
}

// AcceptsDelta gives the quiet block the delta when it releases it as it came.
func (s *Redact) AcceptsDelta(str []byte) bool {
	return s.clean.block.stream.PushQuiet(str, 0, len(str))
}

func (s *Redact) SkippedDeltas(run DeltaRun) error {
	s.clean.line = run.Last.checkedLine()
	return nil
}

// updateAgain passes on a line that is s.cleanFull's line but for the bodies of strings
// that are values of blockTextKeys (id is the line's): when those are its delta and its
// block's texts in its snapshots, and the delta is one the block releases as it came,
// and the texts are the text released and that delta, it pushes the delta and reports
// true: the line is redacted as it came. Otherwise it changes nothing and reports false.
func (s *Redact) updateAgain(f *Frame, id lineID) bool {
	c := &s.cleanFull
	ix := &f.index
	line := f.Line()
	// Where the delta and the texts are now: before a body that changed, nothing moved.
	ds := ix.Moved(c.deltaAt)
	de := ds + c.deltaEnd - c.deltaAt // unless the delta changed
	texts := c.movedTexts[:0]
	for _, at := range c.textsAt {
		texts = append(texts, ix.Moved(at))
	}
	c.movedTexts = texts
	changes, textsChanged := ix.Changes(), 0
	for i := range changes {
		if m := ix.ChangedValueAt(i); m.ValStart == ds {
			de = m.ValEnd
		} else if slices.Contains(texts, m.ValStart) {
			textsChanged++
		} else {
			return false // another string changed
		}
	}
	if textsChanged != len(texts) {
		return false // a text that did not change, though the text released grows
	}
	released, delta := c.block.stream.Released(), line[ds+1:de-1]
	for i := range changes {
		if m := ix.ChangedValueAt(i); m.ValStart != ds {
			text := line[m.ValStart+1 : m.ValEnd-1]
			if len(text) != len(released)+len(delta) || !bytes.Equal(text[:len(released)], released) ||
				!bytes.Equal(text[len(released):], delta) {
				return false
			}
		}
	}
	if !c.block.stream.PushQuiet(line, ds, de) {
		return false
	}
	c.line, c.deltaAt, c.deltaEnd = id, ds, de
	c.textsAt, c.movedTexts = texts, c.textsAt
	return true
}

// pushDelta runs the delta whose string is raw[start:end] through block b, and returns the
// string's new encoding, and whether that is raw's own (the delta released is the delta as
// it came).
func (s *Redact) pushDelta(b *redactBlock, raw []byte, start, end int) ([]byte, bool) {
	if out, asCame := b.stream.PushString(raw, start, end); !asCame {
		s.deltaEnc = codec.AppendString(s.deltaEnc[:0], codec.UnsafeString(out))
		return s.deltaEnc, false
	}
	return raw[start:end], true
}

// generic redacts every string of the frame's line.
func (s *Redact) generic(f *Frame, emit Emit) error {
	line := f.Line()
	s.js.Reset()
	s.js.Value(line, codec.SkipSpace(line, 0))
	if len(s.js.Edits()) == 0 {
		return emit(f)
	}
	s.out = s.js.Splice(s.out[:0], line)
	return emit(f.Edited(s.out))
}

// progress redacts a tool_execution_update. Its partial result's texts are a tool's output
// so far, and each update repeats and extends the one before: the texts are redacted as the
// text of a stream would be at that point, the tail that could still become part of a
// secret left out until a later update (or the tool's end) shows what it is. So no update
// shows the beginning of a secret that the next one completes.
func (s *Redact) progress(f *Frame, emit Emit) error {
	line := f.Line()
	j := s.js
	j.Reset()
	j.Object(line, codec.SkipSpace(line, 0), func(key []byte, vs int) (int, bool) {
		if string(key) != "partialResult" || line[vs] != '{' {
			return 0, false
		}
		return j.Object(line, vs, func(key []byte, cvs int) (int, bool) {
			if string(key) != "content" || line[cvs] != '[' {
				return 0, false
			}
			return j.Array(line, cvs, func(_, evs int) (int, bool) {
				if line[evs] != '{' || codec.Find(line[evs:], "type").Str(line[evs:]) != "text" {
					return 0, false
				}
				return j.Object(line, evs, func(key []byte, tvs int) (int, bool) {
					if string(key) != "text" || line[tvs] != '"' {
						return 0, false
					}
					end := codec.SkipString(line, tvs+1)
					j.PartialText(line, tvs, end)
					return end, true
				}), true
			}), true
		}), true
	})
	if len(j.Edits()) == 0 {
		return emit(f)
	}
	s.out = j.Splice(s.out[:0], line)
	return emit(f.Edited(s.out))
}

// update redacts an encoded message_update, in either form.
func (s *Redact) update(f *Frame, emit Emit) error {
	line := f.Line()
	var m [4]codec.Member
	f.members(updateKeys, m[:])
	idM, ame, msg := m[1], m[2], m[3]
	if !ame.Exists() || line[ame.ValStart] != '{' {
		return s.generic(f, emit)
	}
	s.gen++
	ev := s.nestedEvent(ame.Raw(line))
	typ := ev.typ()
	b := s.block(ev.index(), typ)

	// The block's transition first: a snapshot shows the state after it.
	var deltaText []byte // the delta's encoding, as it came or redacted
	var tail []byte
	if b != nil {
		switch typ {
		case codec.UpdateTextDelta, codec.UpdateThinkingDelta, codec.UpdateToolCallDelta:
			if d := ev.member(evDelta); d.Exists() && ev.raw[d.ValStart] == '"' {
				deltaText, _ = s.pushDelta(b, ev.raw, d.ValStart, d.ValEnd)
			}
		case codec.UpdateToolCallEnd:
			if tc := ev.member(evToolCall); tc.Exists() {
				raw := tc.Raw(ev.raw)
				if a := codec.Find(raw, "arguments"); a.Exists() {
					b.final, _ = s.r.RedactValue(a.Raw(raw))
					b.final = bytes.Clone(b.final)
				}
			}
			tail = s.finish(b)
		case codec.UpdateTextEnd, codec.UpdateThinkingEnd:
			tail = s.finish(b)
		}
	}

	base := ame.ValStart
	s.js.Reset()
	deltaWalked, deltaEdited := false, false
	s.textsOf, s.textsAt = b, s.textsAt[:0]
	s.js.Object(line, codec.SkipSpace(line, 0), func(key []byte, vs int) (int, bool) {
		switch {
		case vs == ame.ValStart:
			return s.js.Object(line, vs, func(key []byte, evs int) (int, bool) {
				switch string(key) {
				case "delta":
					if d := ev.member(evDelta); deltaText != nil && evs == base+d.ValStart {
						eve := base + d.ValEnd
						deltaWalked = true
						if !bytes.Equal(deltaText, line[evs:eve]) {
							s.js.AddEdit(codec.Edit{Start: evs, End: eve, Text: deltaText})
							deltaEdited = true
						}
						return eve, true
					}
				case "partial":
					return s.snapshotAt(line, evs), true
				case "toolCall":
					if b != nil && b.final != nil && typ == codec.UpdateToolCallEnd && line[evs] == '{' {
						return s.js.Object(line, evs, func(key []byte, avs int) (int, bool) {
							if string(key) != "arguments" {
								return 0, false
							}
							ave := codec.SkipValue(line, avs)
							if !bytes.Equal(line[avs:ave], b.final) {
								s.js.AddEdit(codec.Edit{Start: avs, End: ave, Text: b.final})
							}
							return ave, true
						}), true
					}
				}
				return 0, false
			}), true
		case vs == msg.ValStart && msg.Exists():
			return s.snapshotAt(line, vs), true
		}
		return 0, false
	})
	s.textsOf = nil
	if n := len(s.js.Edits()); deltaWalked && !msg.Exists() && !ev.has(evPartial) && (n == 0 || n == 1 && deltaEdited) {
		s.clean.line, s.clean.block = f.checkedLine(), b
	}
	if d := ev.member(evDelta); deltaWalked && len(s.js.Edits()) == 0 && (msg.Exists() || ev.has(evPartial)) &&
		b.kind != blockToolCall && b.stream.Plain() {
		c := &s.cleanFull
		c.line, c.block, c.deltaAt, c.deltaEnd = f.checkedLine(), b, base+d.ValStart, base+d.ValEnd
		c.textsAt = append(c.textsAt[:0], s.textsAt...)
	}
	out := line
	if len(s.js.Edits()) > 0 {
		s.out = s.js.Splice(s.out[:0], line)
		out = s.out
	}

	// Remember what a block left open at the end would need.
	s.full = msg.Exists() || ev.has(evPartial)
	s.lastID = nil
	if idM.Exists() {
		s.idBuf = append(s.idBuf[:0], idM.Raw(line)...)
		s.lastID = s.idBuf
	}
	var snap []byte
	switch {
	case s.full && len(s.js.Edits()) == 0: // out is the line: its members are known
		if msg.Exists() {
			snap = msg.Raw(line)
		} else {
			snap = ev.get(evPartial)
		}
		s.lastSnap = append(s.lastSnap[:0], snap...)
	case s.full:
		top := codec.Find(out, "message")
		if !top.Exists() {
			e := codec.Find(out, "assistantMessageEvent").Raw(out)
			top = codec.Find(e, "partial")
			snap = top.Raw(e)
		} else {
			snap = top.Raw(out)
		}
		s.lastSnap = append(s.lastSnap[:0], snap...)
	}

	if len(tail) > 0 {
		var id []byte
		if !s.full {
			id = s.lastID
		}
		if err := emit(LineFrame(syntheticDelta(b.kind, int(ev.index()), tail, id, snap), 0)); err != nil {
			return err
		}
	}
	if len(s.js.Edits()) == 0 {
		return emit(f)
	}
	return emit(f.Edited(out))
}

// snapshotAt redacts the snapshot at vs and returns its end: the blocks the stage streamed
// become what they released; everything else is redacted as usual.
func (s *Redact) snapshotAt(b []byte, vs int) int {
	if b[vs] != '{' {
		return s.js.Value(b, vs)
	}
	return s.snapshot(b, vs)
}

// snapshot redacts the snapshot object at vs. Snapshots of one message differ only in their
// content, so when the rest is byte for byte a rest found clean before, only the content
// is walked.
func (s *Redact) snapshot(b []byte, vs int) int {
	j := s.js
	end, content := s.crossSnapshot(b, vs)
	cs, ce := content.ValStart, content.ValEnd
	if content.Exists() && b[cs] == '[' && s.cleanPrefix != nil && bytes.Equal(b[vs:cs], s.cleanPrefix) &&
		bytes.Equal(b[ce:end], s.cleanSuffix) {
		s.content(b, cs)
		return end
	}
	mark, contentEdits := len(j.Edits()), 0
	end = j.Object(b, vs, func(key []byte, cvs int) (int, bool) {
		if string(key) != "content" || b[cvs] != '[' {
			return 0, false
		}
		before := len(j.Edits())
		e := s.content(b, cvs)
		contentEdits += len(j.Edits()) - before
		return e, true
	})
	if content.Exists() && b[cs] == '[' && len(j.Edits())-mark == contentEdits {
		s.cleanPrefix = append(s.cleanPrefix[:0], b[vs:cs]...)
		s.cleanSuffix = append(s.cleanSuffix[:0], b[ce:end]...)
		s.cleanKey = content.KeyStart - vs
	}
	return end
}

// A full-form line is mostly its blocks' texts, twice (the snapshots in partial and
// message). Finding a member after a text crosses it to its end, looking at every byte; a
// text that is what a streamed block released, which then holds no quote and no backslash
// (Block.Plain), is crossed by comparing it with that text instead.

// knownString returns the end of the string at vs of b when it is the JSON string of plain
// (Block.Plain), or 0: it opens with a quote, holds plain, and closes right after it.
func knownString(b []byte, vs int, plain []byte) int {
	if end := vs + len(plain) + 2; end <= len(b) && b[vs] == '"' && b[end-1] == '"' &&
		bytes.Equal(b[vs+1:end-1], plain) {
		return end
	}
	return 0
}

// nestedEvent is parseNestedEvent with the snapshot in partial crossed by crossSnapshot.
func (s *Redact) nestedEvent(raw []byte) (n nestedEvent) {
	n.raw = raw
	eachMember(raw, 0, func(key []byte, vs int) int {
		if string(key) == "partial" && raw[vs] == '{' {
			end, _ := s.crossSnapshot(raw, vs)
			return end
		}
		return codec.SkipValue(raw, vs)
	}, func(key []byte, m codec.Member) {
		for k, name := range eventKeys {
			if string(key) == name {
				n.m[k] = m // the last of duplicates, as codec.FindEach
				break
			}
		}
	})
	return n
}

// crossSnapshot returns the end of the snapshot object at vs of b (valid JSON) and its
// member content (the last so named, offsets in b), its blocks crossed by crossBlocks.
func (s *Redact) crossSnapshot(b []byte, vs int) (end int, content codec.Member) {
	if c := &s.crossed; c.gen == s.gen && c.at == &b[vs] { // crossed for the nested event
		content = c.content
		if content.Exists() {
			content.KeyStart, content.ValStart, content.ValEnd = vs+content.KeyStart, vs+content.ValStart, vs+content.ValEnd
		}
		return vs + c.end, content
	}
	end, content = s.crossSnapshotAgain(b, vs)
	c := &s.crossed
	c.gen, c.at, c.end, c.content = s.gen, &b[vs], end-vs, content
	if content.Exists() {
		c.content.KeyStart, c.content.ValStart, c.content.ValEnd = content.KeyStart-vs, content.ValStart-vs, content.ValEnd-vs
	}
	return end, content
}

// crossSnapshotAgain is crossSnapshot, crossing the snapshot.
func (s *Redact) crossSnapshotAgain(b []byte, vs int) (end int, content codec.Member) {
	// A snapshot made of the bytes of the clean one around another content has its
	// members where that one had them: only the content is crossed.
	if p, q := s.cleanPrefix, s.cleanSuffix; p != nil && len(b)-vs > len(p) && b[vs+len(p)] == '[' &&
		bytes.Equal(b[vs:vs+len(p)], p) {
		cs := vs + len(p)
		if ce := s.crossBlocks(b, cs); len(b)-ce >= len(q) && bytes.Equal(b[ce:ce+len(q)], q) {
			return ce + len(q), codec.Member{KeyStart: vs + s.cleanKey, ValStart: cs, ValEnd: ce}
		}
	}
	end = eachMember(b, vs, func(key []byte, cvs int) int {
		if string(key) == "content" && b[cvs] == '[' {
			return s.crossBlocks(b, cvs)
		}
		return codec.SkipValue(b, cvs)
	}, func(key []byte, m codec.Member) {
		if string(key) == "content" {
			content = m
		}
	})
	return end, content
}

// crossBlocks returns the end of the content array at cs of b, its elements crossed by
// crossBlock.
func (s *Redact) crossBlocks(b []byte, cs int) int {
	i := codec.SkipSpace(b, cs+1)
	if b[i] == ']' {
		return i + 1
	}
	for n := 0; ; n++ {
		var more bool
		if i, more = codec.NextItem(b, s.crossBlock(b, i, n)); !more {
			return i + 1
		}
	}
}

// crossBlock returns the end of element n of a snapshot's content, at i of b. When it is
// the object of a block the stage streams, it notes what content will read of it (seen):
// its type, and which string member holds the block's text as released, the block's string
// members crossed by comparing them with that text when it is plain.
func (s *Redact) crossBlock(b []byte, i, n int) int {
	if n >= len(s.blocks) || s.blocks[n] == nil || b[i] != '{' {
		return codec.SkipValue(b, i)
	}
	blk := s.blocks[n]
	seen := &blk.seen
	plain, text := blk.stream.Plain(), blk.stream.Released()
	*seen = blockSeen{gen: s.gen, at: &b[i], textAt: -1, textLen: len(text)}
	return eachMember(b, i, func(_ []byte, vs int) int {
		if plain {
			if end := knownString(b, vs, text); end > 0 {
				seen.textAt = vs - i
				return end
			}
		}
		return codec.SkipValue(b, vs)
	}, func(key []byte, m codec.Member) {
		if string(key) == "type" { // the last so named, as codec.Find finds it
			seen.typ = codec.Member{KeyStart: m.KeyStart - i, ValStart: m.ValStart - i, ValEnd: m.ValEnd - i}
		}
	})
}

// eachMember crosses the object at i of b (valid JSON) and returns its end: cross returns
// the end of the value at vs of the member named key (raw), and fn, when not nil, is told
// each member, its offsets in b.
func eachMember(b []byte, i int, cross func(key []byte, vs int) int, fn func(key []byte, m codec.Member)) int {
	i = codec.SkipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		keyEnd := codec.SkipString(b, i+1)
		vs := codec.SkipSpace(b, codec.SkipSpace(b, keyEnd)+1)
		key := b[i+1 : keyEnd-1]
		ve := cross(key, vs)
		if fn != nil {
			fn(key, codec.Member{KeyStart: i, ValStart: vs, ValEnd: ve})
		}
		var more bool
		if i, more = codec.NextItem(b, ve); !more {
			break
		}
	}
	return codec.SkipSpace(b, i) + 1
}

// content redacts a snapshot's content array at cs and returns its end.
func (s *Redact) content(b []byte, cs int) int {
	j := s.js
	return j.Array(b, cs, func(n, evs int) (int, bool) {
		if n >= len(s.blocks) || s.blocks[n] == nil || b[evs] != '{' {
			return 0, false
		}
		blk := s.blocks[n]
		seen := &blk.seen
		if seen.gen != s.gen || seen.at != &b[evs] { // crossSnapshot crosses every snapshot first
			s.crossBlock(b, evs, n)
		}
		field := ""
		switch seen.typ.View(b[evs:]) {
		case "text":
			if blk.kind == blockText {
				field = "text"
			}
		case "thinking":
			if blk.kind == blockThinking {
				field = "thinking"
			}
		case "toolCall":
			if blk.kind == blockToolCall {
				field = "arguments"
			}
		}
		if field == "" {
			return 0, false
		}
		return j.Object(b, evs, func(k []byte, fvs int) (int, bool) {
			if string(k) != field {
				return 0, false
			}
			if blk == s.textsOf {
				s.textsAt = append(s.textsAt, fvs)
			}
			if fvs-evs == seen.textAt && seen.textLen == len(blk.stream.Released()) { // the text as released
				return fvs + len(blk.stream.Released()) + 2, true
			}
			return s.blockValue(b, fvs, blk), true
		}), true
	})
}

// blockValue makes a snapshot block's text or arguments at vs what the block released, and
// returns the value's end.
func (s *Redact) blockValue(b []byte, vs int, blk *redactBlock) int {
	j := s.js
	released := blk.stream.Released()
	if blk.stream.Plain() {
		// The text as released, found without crossing it twice (to its end, then for an
		// escape) before comparing it.
		if end := knownString(b, vs, released); end > 0 {
			return end
		}
	}
	ve := codec.SkipValue(b, vs)
	if blk.kind != blockToolCall {
		if b[vs] != '"' {
			return j.Value(b, vs)
		}
		if !bytes.Equal(j.Decoded(b, vs, ve), released) {
			j.Replace(vs, ve, released)
		}
		return ve
	}
	want := blk.final
	if !blk.ended || want == nil {
		s.args = codec.AppendPartialObject(s.args[:0], codec.UnsafeString(released))
		want = s.args
	}
	if !bytes.Equal(b[vs:ve], want) {
		j.AddEdit(codec.Edit{Start: vs, End: ve, Text: bytes.Clone(want)})
	}
	return ve
}

// typedUpdate redacts a message_update made in process without encoding its snapshot: the
// snapshot is rebuilt from the blocks' released text, so that --redact --json-deltas stays
// linear. The result encodes to what update makes of the encoded event.
func (s *Redact) typedUpdate(e *codec.MessageUpdate, emit Emit) error {
	u := *e.Update
	b := s.block(u.ContentIndex, u.Type)
	var tail []byte
	if b != nil {
		switch u.Type {
		case codec.UpdateToolCallStart:
			if u.ToolCall != nil {
				u.ToolCall = &codec.ToolCall{ID: s.r.RedactString(u.ToolCall.ID), Name: s.r.RedactString(u.ToolCall.Name)}
			}
		case codec.UpdateTextDelta, codec.UpdateThinkingDelta, codec.UpdateToolCallDelta:
			if out, asCame := b.stream.Push([]byte(u.Delta)); !asCame {
				u.Delta = string(out)
			}
		case codec.UpdateTextEnd, codec.UpdateThinkingEnd:
			u.Content = s.r.RedactString(u.Content)
			tail = s.finish(b)
		case codec.UpdateToolCallEnd:
			if u.ToolCall != nil {
				tc := s.redactToolCall(u.ToolCall)
				b.final = tc.Arguments
				u.ToolCall = tc
			}
			tail = s.finish(b)
		}
	}
	snapshot := e.Message
	if snapshot == nil {
		snapshot = e.Update.Partial
	}
	var snap *codec.AssistantMessage
	if snapshot != nil {
		snap = s.typedSnapshot(snapshot)
	}
	if len(tail) > 0 {
		d := &codec.AssistantMessageEvent{Type: deltaType(b.kind), ContentIndex: u.ContentIndex, Delta: string(tail)}
		out := &codec.MessageUpdate{MessageID: e.MessageID, Update: d}
		if e.Update.Partial != nil {
			d.Partial = snap
		}
		if e.Message != nil {
			out.Message = snap
		}
		if err := emit(EventFrame(out)); err != nil {
			return err
		}
	}
	if e.Update.Partial != nil {
		u.Partial = snap
	}
	out := &codec.MessageUpdate{MessageID: e.MessageID, Update: &u}
	if e.Message != nil {
		out.Message = snap
	}
	s.full = snapshot != nil
	return emit(EventFrame(out))
}

// redactToolCall returns a redacted copy of a finished tool call block.
func (s *Redact) redactToolCall(tc *codec.ToolCall) *codec.ToolCall {
	c := *tc
	c.ID, c.Name = s.r.RedactString(tc.ID), s.r.RedactString(tc.Name)
	args := tc.Arguments
	if args == nil {
		args = codec.PartialObject(codec.UnsafeString(tc.ArgsSoFar))
	}
	out, _ := s.r.RedactValue(args)
	c.Arguments, c.ArgsSoFar = bytes.Clone(out), nil
	return &c
}

// typedSnapshot is the snapshot m with its streamed blocks as released and the rest
// redacted.
func (s *Redact) typedSnapshot(m *codec.AssistantMessage) *codec.AssistantMessage {
	c := *m
	r := s.r
	c.API, c.Provider, c.Model = r.RedactString(m.API), r.RedactString(m.Provider), r.RedactString(m.Model)
	c.StopReason, c.ErrorMessage, c.ResponseID = r.RedactString(m.StopReason), r.RedactString(m.ErrorMessage), r.RedactString(m.ResponseID)
	c.Content = make([]codec.Content, len(m.Content))
	for i, block := range m.Content {
		var blk *redactBlock
		if i < len(s.blocks) {
			blk = s.blocks[i]
		}
		if blk != nil {
			blk.lent = true // its text goes into the snapshot as a string
		}
		switch x := block.(type) {
		case *codec.TextContent:
			if blk != nil && blk.kind == blockText {
				c.Content[i] = &codec.TextContent{Text: codec.UnsafeString(blk.stream.Released()), TextSignature: x.TextSignature}
				continue
			}
		case *codec.ThinkingContent:
			if blk != nil && blk.kind == blockThinking {
				c.Content[i] = &codec.ThinkingContent{Thinking: codec.UnsafeString(blk.stream.Released()),
					ThinkingSignature: x.ThinkingSignature, Redacted: x.Redacted}
				continue
			}
		case *codec.ToolCall:
			if blk != nil && blk.kind == blockToolCall {
				tc := &codec.ToolCall{ID: r.RedactString(x.ID), Name: r.RedactString(x.Name), ThoughtSignature: x.ThoughtSignature}
				if blk.ended && blk.final != nil {
					tc.Arguments = blk.final
				} else {
					tc.ArgsSoFar = blk.stream.Released()
				}
				c.Content[i] = tc
				continue
			}
		}
		c.Content[i] = s.redactContent(block)
	}
	return &c
}

// redactContent redacts a block the stage did not stream.
func (s *Redact) redactContent(c codec.Content) codec.Content {
	out, changed := s.r.RedactValue(c.AppendJSON(nil))
	if !changed {
		return c
	}
	if parsed, err := codec.ParseContent(out); err == nil {
		return parsed
	}
	return c
}
