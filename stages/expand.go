package stages

import (
	"github.com/basecontext/base-context/codec"
)

// Expand turns the delta form back into the full form: each message_update gets its
// "message" snapshot and its event's "partial" again, rebuilt from the last assistant
// message_start and the updates since (text and thinking deltas append, tool-call argument
// fragments accumulate and are parsed tolerantly, *_end content and toolCall replace what was
// accumulated), and "messageId" is dropped. A snapshot keeps every field of the message_start
// message but its content, which is how our agent writes snapshots, so that
// expand(deltas(x)) == x for our streams. Lines already in the full form pass through.
type Expand struct {
	open   bool
	prefix []byte // the message_start message up to its content array
	suffix []byte // and after it
	blocks []expandBlock
	snap   []byte
}

// NewExpand returns the expand stage.
func NewExpand() *Expand { return &Expand{} }

type expandBlock struct {
	kind  string // text, thinking, toolCall, or "" for a block taken whole
	head  []byte // text/thinking: `{"type":"text","text":"`; toolCall: up to "arguments":
	text  []byte // text/thinking: the escaped text so far
	args  []byte // toolCall: the argument fragments so far, decoded
	whole []byte // a block known in full (from message_start or an *_end event)
}

func (b *expandBlock) appendJSON(dst []byte) []byte {
	switch {
	case b.whole != nil:
		return append(dst, b.whole...)
	case b.kind == "toolCall":
		dst = append(dst, b.head...)
		dst = codec.AppendPartialObject(dst, codec.UnsafeString(b.args))
		return append(dst, '}')
	default:
		dst = append(dst, b.head...)
		dst = append(dst, b.text...)
		return append(dst, '"', '}')
	}
}

func (x *Expand) Push(f *Frame, emit Emit) error {
	typ := f.Type()
	switch typ {
	case codec.TypeMessageStart, codec.TypeMessageEnd:
		line := f.Line()
		role := codec.Role(line)
		if role != "assistant" {
			return emit(f)
		}
		if typ == codec.TypeMessageStart {
			x.start(codec.Lookup(line, "message"), line)
		} else {
			x.open = false
		}
		if id := codec.Lookup(line, "messageId"); id.Exists() {
			return emit(f.Edited(codec.Splice(nil, line, codec.DeleteEdit(line, id))))
		}
		return emit(f)
	case codec.TypeMessageUpdate:
		line := f.Line()
		if codec.Lookup(line, "message").Exists() {
			return emit(f)
		}
		ame := codec.Lookup(line, "assistantMessageEvent")
		if !ame.Exists() || line[ame.ValStart] != '{' {
			return emit(f)
		}
		return emit(f.Edited(x.update(line, ame)))
	}
	return emit(f)
}

func (x *Expand) Flush(Emit) error { return nil }

func (x *Expand) start(msg codec.Member, line []byte) {
	x.open = true
	x.blocks = x.blocks[:0]
	raw := []byte(`{"role":"assistant","content":[]}`)
	if msg.Exists() {
		raw = msg.Raw(line)
	}
	content := codec.Lookup(raw, "content")
	if !content.Exists() {
		// No content array to fill: snapshots get one at the end of the message.
		x.prefix = append(x.prefix[:0], raw[:len(raw)-1]...)
		x.prefix = codec.AppendMember(x.prefix, "content", isEmptyObject(x.prefix))
		x.suffix = append(x.suffix[:0], '}')
		return
	}
	x.prefix = append(x.prefix[:0], raw[:content.ValStart]...)
	x.suffix = append(x.suffix[:0], raw[content.ValEnd:]...)
	blocks := content.Raw(raw)
	for i := 0; ; i++ {
		b := codec.Elem(blocks, i)
		if !b.Exists() {
			break
		}
		x.blocks = append(x.blocks, expandBlock{whole: append([]byte(nil), b.Raw(blocks)...)})
	}
}

// block returns the block at index i, growing the list as needed.
func (x *Expand) block(i int64) *expandBlock {
	if i < 0 {
		i = 0
	}
	for int64(len(x.blocks)) <= i {
		x.blocks = append(x.blocks, expandBlock{whole: []byte(`{"type":"text","text":""}`)})
	}
	return &x.blocks[i]
}

func (x *Expand) update(line []byte, ame codec.Member) []byte {
	if !x.open {
		// An update with no message_start before it: start from an empty message.
		x.start(codec.Member{}, nil)
	}
	ev := ame.Raw(line)
	typ := codec.Lookup(ev, "type").Str(ev)
	idx := codec.Lookup(ev, "contentIndex").Int(ev)
	var evEdits []codec.Edit
	switch typ {
	case codec.UpdateTextStart, codec.UpdateThinkingStart:
		kind := "text"
		if typ == codec.UpdateThinkingStart {
			kind = "thinking"
		}
		*x.block(idx) = expandBlock{kind: kind,
			head: []byte(`{"type":"` + kind + `","` + kind + `":"`)}
	case codec.UpdateTextDelta, codec.UpdateThinkingDelta:
		b := x.block(idx)
		if d := codec.Lookup(ev, "delta"); d.Exists() && b.whole == nil {
			raw := d.Raw(ev)
			if len(raw) >= 2 && raw[0] == '"' {
				b.text = append(b.text, raw[1:len(raw)-1]...)
			}
		}
	case codec.UpdateTextEnd, codec.UpdateThinkingEnd:
		b := x.block(idx)
		if c := codec.Lookup(ev, "content"); c.Exists() {
			if b.whole != nil || b.head == nil {
				kind := "text"
				if typ == codec.UpdateThinkingEnd {
					kind = "thinking"
				}
				b.head = []byte(`{"type":"` + kind + `","` + kind + `":"`)
			}
			b.whole = nil
			raw := c.Raw(ev)
			if len(raw) >= 2 && raw[0] == '"' {
				b.text = append(b.text[:0], raw[1:len(raw)-1]...)
			}
		}
	case codec.UpdateToolCallStart:
		b := x.block(idx)
		*b = expandBlock{kind: "toolCall"}
		head := []byte(`{"type":"toolCall","id":`)
		if tc := codec.Lookup(ev, "toolCall"); tc.Exists() {
			ref := tc.Raw(ev)
			head = append(head, orEmptyString(codec.Find(ref, "id").Raw(ref))...)
			head = append(head, `,"name":`...)
			head = append(head, orEmptyString(codec.Find(ref, "name").Raw(ref))...)
			evEdits = append(evEdits, codec.DeleteEdit(ev, tc))
		} else {
			head = append(head, `"","name":""`...)
		}
		b.head = append(head, `,"arguments":`...)
	case codec.UpdateToolCallDelta:
		b := x.block(idx)
		if d := codec.Lookup(ev, "delta"); d.Exists() && b.whole == nil {
			b.args = append(b.args, d.Str(ev)...)
		}
	case codec.UpdateToolCallEnd:
		if tc := codec.Lookup(ev, "toolCall"); tc.Exists() {
			*x.block(idx) = expandBlock{whole: append([]byte(nil), tc.Raw(ev)...)}
		}
	}

	// The snapshot.
	x.snap = append(x.snap[:0], x.prefix...)
	x.snap = append(x.snap, '[')
	for i := range x.blocks {
		if i > 0 {
			x.snap = append(x.snap, ',')
		}
		x.snap = x.blocks[i].appendJSON(x.snap)
	}
	x.snap = append(x.snap, ']')
	x.snap = append(x.snap, x.suffix...)

	// The nested event with "partial" at its end, then "message" right after it.
	newEv := codec.Splice(make([]byte, 0, len(ev)+len(x.snap)+16), ev, evEdits...)
	closing := len(newEv) - 1
	newEv = codec.AppendMember(newEv[:closing], "partial", isEmptyObject(newEv[:closing]))
	newEv = append(newEv, x.snap...)
	newEv = append(newEv, '}')
	newEv = codec.AppendMember(newEv, "message", false)
	newEv = append(newEv, x.snap...)

	edits := []codec.Edit{{Start: ame.ValStart, End: ame.ValEnd, Text: newEv}}
	if id := codec.Lookup(line, "messageId"); id.Exists() {
		edits = append(edits, codec.DeleteEdit(line, id))
		sortEdits(edits)
	}
	return codec.Splice(make([]byte, 0, len(line)+2*len(x.snap)+32), line, edits...)
}

func orEmptyString(raw []byte) []byte {
	if len(raw) == 0 {
		return []byte(`""`)
	}
	return raw
}
