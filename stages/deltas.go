package stages

import (
	"bytes"
	"strconv"

	"github.com/basecontext/base-context/codec"
)

// Deltas turns the full form of the stream into the delta form (docs/stream.md "The delta form"):
// assistant message_start/update/end gain "messageId" after "type"; message_update loses its
// "message" snapshot and its event's "partial"; toolcall_start gains "toolCall":{id,name}.
// Every other line passes through as it came, and a line already in the delta form is left
// as it is, so the stage is idempotent.
type Deltas struct {
	ids messageIDs
	buf []byte
	ev  []byte // the nested event's new encoding, reused
	out []byte // the line written last, valid until the next Push

	// passed is the line passed on last if it was an update already in the delta form:
	// the next delta of its block, which only its text tells from it, passes too.
	passed lineID

	// converted is the line converted last if it was a full-form update whose conversion
	// only added its id and dropped its snapshots, the event's "partial" at partial in it:
	// the next update of its block, which differs from it only in its delta and in the
	// texts of its snapshots, is converted alike without looking into its event.
	converted lineID
	partial   codec.Member
}

// NewDeltas returns the delta stage.
func NewDeltas() *Deltas { return &Deltas{} }

// messageIDs numbers the assistant messages of a stream: a message_start opens the next id,
// updates and the end belong to the open one, and an update or end with none open (a stream
// cut before its start) opens one. An id already present in the input is adopted, so that a
// stream in the delta form keeps its numbers.
type messageIDs struct {
	last int64
	open bool
}

func (m *messageIDs) next(typ string, present int64) int64 {
	switch {
	case present > 0:
		m.last = present
	case typ == codec.TypeMessageStart || !m.open:
		m.last++
	}
	m.open = typ != codec.TypeMessageEnd
	return m.last
}

func (d *Deltas) Push(f *Frame, emit Emit) error {
	passed := d.passed
	d.passed = lineID{}
	switch f.Type() {
	case codec.TypeMessageStart, codec.TypeMessageEnd, codec.TypeMessageUpdate:
	default:
		return emit(f)
	}
	if f.Event != nil {
		return emit(d.typed(f))
	}
	if f.repeatsDeltaOf(passed) {
		d.passed = f.checkedLine()
		return emit(f)
	}
	converted := d.converted // only the line after it can repeat it: no other line needs to clear it
	d.converted = lineID{}
	if f.repeatsBodiesOf(converted, changingTexts) {
		if out, ok := d.again(f); ok {
			return emit(f.Edited(out))
		}
	}
	out, ok := d.raw(f)
	if !ok {
		return emit(f)
	}
	return emit(f.Edited(out))
}

func (d *Deltas) Flush(Emit) error { return nil }

// NextDeltas: after an update already in the delta form, passed as it came, the next deltas
// of its block pass too.
func (d *Deltas) NextDeltas() NextDeltas {
	if d.passed != (lineID{}) {
		return PassDeltas
	}
	return PushDeltas
}

func (d *Deltas) SkippedDeltas(run DeltaRun) error {
	d.passed = run.Last.checkedLine()
	return nil
}

// typed converts an event in process, without encoding any snapshot.
func (d *Deltas) typed(f *Frame) *Frame {
	switch e := f.Event.(type) {
	case *codec.MessageStart:
		if e.Message.Role() == "assistant" {
			c := *e
			c.MessageID = d.ids.next(codec.TypeMessageStart, e.MessageID)
			return EventFrame(&c)
		}
	case *codec.MessageEnd:
		if e.Message.Role() == "assistant" {
			c := *e
			c.MessageID = d.ids.next(codec.TypeMessageEnd, e.MessageID)
			return EventFrame(&c)
		}
	case *codec.MessageUpdate:
		// Dropping the snapshot is all: a toolcall_start made in process already carries
		// its ToolCall, which the delta form writes as {id, name}.
		u := *e.Update
		u.Partial = nil
		return EventFrame(&codec.MessageUpdate{
			MessageID: d.ids.next(codec.TypeMessageUpdate, e.MessageID),
			Update:    &u,
		})
	}
	return f
}

// raw converts an encoded line by splicing; ok is false when the line is left as it is.
func (d *Deltas) raw(f *Frame) (out []byte, ok bool) {
	line, typ := f.Line(), f.Type()
	var m [4]codec.Member
	f.members(updateKeys, m[:])
	typM, idM, ameM, msgM := m[0], m[1], m[2], m[3]
	if typ != codec.TypeMessageUpdate {
		msg := msgM.Raw(line)
		if !msgM.Exists() || codec.Find(msg, "role").View(msg) != "assistant" {
			return nil, false
		}
	}
	var present int64
	if idM.Exists() {
		present = idM.Int(line)
	}
	id := d.ids.next(typ, present)

	var editStore [3]codec.Edit
	edits := editStore[:0]
	if present == 0 {
		d.buf = strconv.AppendInt(append(d.buf[:0], `,"messageId":`...), id, 10)
		edits = append(edits, codec.Edit{Start: typM.ValEnd, End: typM.ValEnd, Text: d.buf})
	}
	partial := codec.Member{KeyStart: -1}
	if typ == codec.TypeMessageUpdate {
		if ameM.Exists() && line[ameM.ValStart] == '{' {
			if e, dropped, changed := deltaEvent(d.ev[:0], line, ameM, msgM); changed {
				d.ev = e.Text
				edits = append(edits, e)
				partial = dropped
			}
		}
		if msgM.Exists() {
			edits = append(edits, codec.DeleteEdit(line, msgM))
		}
	}
	if len(edits) == 0 {
		if typ == codec.TypeMessageUpdate && present > 0 {
			d.passed = f.checkedLine() // its id adopted, no snapshot, nothing to add
		}
		return nil, false
	}
	sortEdits(edits)
	d.out = codec.Splice(d.out[:0], line, edits...)
	if partial.KeyStart >= 0 && present == 0 {
		d.converted, d.partial = f.checkedLine(), partial
	}
	return d.out, true
}

// changingTexts are the members whose string values change from one full-form update of a
// block to the next: its delta, and the text (or thinking) of the block in its snapshots.
var changingTexts = []string{"delta", "text", "thinking"}

// again converts f, whose line is the line d.converted but for the bodies of some strings
// named in changingTexts: when those are its event's delta or inside the snapshots it drops,
// its conversion is that line's (the same id added, the same members dropped), made without
// looking into its event. ok is false otherwise.
func (d *Deltas) again(f *Frame) (out []byte, ok bool) {
	line, ix := f.Line(), &f.index
	partial := codec.Member{KeyStart: ix.Moved(d.partial.KeyStart), ValStart: ix.Moved(d.partial.ValStart), ValEnd: ix.Moved(d.partial.ValEnd)}
	var m [4]codec.Member
	f.members(updateKeys, m[:])
	typM, ameM, msgM := m[0], m[2], m[3]
	for i := range ix.Changes() {
		v := ix.ChangedValueAt(i)
		switch {
		case within(v, partial), msgM.Exists() && within(v, msgM):
		default:
			if key, depth := ix.ChangedStringAt(i); depth != 1 || string(key) != "delta" || !within(v, ameM) {
				return nil, false
			}
		}
	}
	id := d.ids.next(codec.TypeMessageUpdate, 0)
	d.buf = strconv.AppendInt(append(d.buf[:0], `,"messageId":`...), id, 10)
	edits := [3]codec.Edit{{Start: typM.ValEnd, End: typM.ValEnd, Text: d.buf}, codec.DeleteEdit(line, partial)}
	n := 2
	if msgM.Exists() {
		edits[2], n = codec.DeleteEdit(line, msgM), 3
	}
	sortEdits(edits[:n])
	d.out = codec.Splice(d.out[:0], line, edits[:n]...)
	d.converted, d.partial = f.checkedLine(), partial
	return d.out, true
}

// within reports whether the value of v lies inside the value of m.
func within(v, m codec.Member) bool { return m.ValStart < v.ValStart && v.ValEnd <= m.ValEnd }

// deltaEvent is the edit that drops "partial" from the nested event and, on a
// toolcall_start, adds the started block's {id, name}; its text is appended to buf. When
// the edit only drops "partial", dropped is where that is in line (KeyStart -1 otherwise).
func deltaEvent(buf, line []byte, ame, msg codec.Member) (e codec.Edit, dropped codec.Member, changed bool) {
	dropped.KeyStart = -1
	ev := ame.Raw(line)
	if !mayNeedDeltaEdit(ev) {
		return codec.Edit{}, dropped, false
	}
	n := parseNestedEvent(ev)
	partial := n.member(evPartial)
	needRef := n.typ() == codec.UpdateToolCallStart && !n.has(evToolCall)
	if !partial.Exists() && !needRef {
		return codec.Edit{}, dropped, false
	}
	if !needRef {
		dropped = codec.Member{KeyStart: ame.ValStart + partial.KeyStart, ValStart: ame.ValStart + partial.ValStart, ValEnd: ame.ValStart + partial.ValEnd}
	}
	var text []byte
	if partial.Exists() {
		text = codec.Splice(buf, ev, codec.DeleteEdit(ev, partial))
	} else {
		text = append(buf, ev...)
	}
	if needRef {
		snapshot := partial.Raw(ev)
		if !partial.Exists() && msg.Exists() {
			snapshot = msg.Raw(line)
		}
		block := codec.Lookup(snapshot, "content."+strconv.FormatInt(n.index(), 10)).Raw(snapshot)
		id, name := codec.Find(block, "id"), codec.Find(block, "name")
		if id.Exists() && name.Exists() {
			closing := len(text) - 1 // the event object's closing brace
			ref := append([]byte(nil), text[closing:]...)
			text = codec.AppendMember(text[:closing], "toolCall", isEmptyObject(text[:closing]))
			text = append(text, `{"id":`...)
			text = append(text, id.Raw(block)...)
			text = append(text, `,"name":`...)
			text = append(text, name.Raw(block)...)
			text = append(text, '}')
			text = append(text, ref...)
		}
	}
	return codec.Edit{Start: ame.ValStart, End: ame.ValEnd, Text: text}, dropped, true
}

// mayNeedDeltaEdit tells most events already in the delta form without walking them: those
// that start with a plain "type" other than toolcall_start and have no "partial" member.
func mayNeedDeltaEdit(ev []byte) bool {
	rest, ok := bytes.CutPrefix(ev, []byte(`{"type":"`))
	if !ok {
		return true
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 || string(rest[:end]) == codec.UpdateToolCallStart {
		return true
	}
	return bytes.Contains(rest[end:], []byte(`"partial"`))
}

func isEmptyObject(open []byte) bool {
	for i := len(open) - 1; i >= 0; i-- {
		switch open[i] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return true
}

func sortEdits(es []codec.Edit) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Start < es[j-1].Start; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}
