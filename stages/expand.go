package stages

import (
	"slices"
	"strings"

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
	// snapSize is the size of the last snapshot, to size the next line's buffer.
	snapSize int
	out      []byte // the line written last, valid until the next Push
}

// NewExpand returns the expand stage.
func NewExpand() *Expand { return &Expand{} }

type expandBlock struct {
	whole      []byte // a block known in full (from message_start or a toolcall_end)
	isToolCall bool
	head       []byte // text/thinking: `{"type":"text","text":"`; toolCall: up to "arguments":
	text       []byte // text/thinking: the escaped text so far
	args       []byte // toolCall: the argument fragments so far, decoded
}

var (
	textHead     = []byte(`{"type":"text","text":"`)
	thinkingHead = []byte(`{"type":"thinking","thinking":"`)
)

// stringBlockHead is the start of the text or thinking block an update type belongs to.
func stringBlockHead(updateType string) []byte {
	if strings.HasPrefix(updateType, "thinking") {
		return thinkingHead
	}
	return textHead
}

// stringBody is an encoded string without its quotes: deltas are appended escaped, as they
// came, so that the snapshot keeps the stream's own escaping.
func stringBody(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return nil
	}
	return raw[1 : len(raw)-1]
}

func (b *expandBlock) appendJSON(dst []byte) []byte {
	switch {
	case b.whole != nil:
		return append(dst, b.whole...)
	case b.isToolCall:
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
	case codec.TypeMessageStart, codec.TypeMessageEnd, codec.TypeMessageUpdate:
	default:
		return emit(f)
	}
	line := f.Line()
	var m [4]codec.Member
	f.members(updateKeys, m[:])
	id, ame, msg := m[1], m[2], m[3]
	if typ == codec.TypeMessageUpdate {
		if msg.Exists() || !ame.Exists() || line[ame.ValStart] != '{' {
			return emit(f) // already in the full form, or nothing to expand
		}
		return emit(f.Edited(x.update(line, id, ame)))
	}
	if !msg.Exists() {
		return emit(f)
	}
	if raw := msg.Raw(line); codec.Find(raw, "role").View(raw) != "assistant" {
		return emit(f)
	}
	if typ == codec.TypeMessageStart {
		x.start(msg, line)
	} else {
		x.open = false
	}
	if id.Exists() {
		x.out = codec.Splice(x.out[:0], line, codec.DeleteEdit(line, id))
		return emit(f.Edited(x.out))
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
	codec.EachElem(blocks, func(_ int, b []byte) bool {
		x.blocks = append(x.blocks, expandBlock{whole: append([]byte(nil), b...)})
		return true
	})
}

// block returns the block at index i. Blocks missing from a stream that skipped their
// start (or is cut) come in as empty blocks of the kind the update names, so that no delta
// is lost.
func (x *Expand) block(i int64, updateType string) *expandBlock {
	if i < 0 {
		i = 0
	}
	for int64(len(x.blocks)) <= i {
		b := expandBlock{head: stringBlockHead(updateType)}
		if strings.HasPrefix(updateType, "toolcall") {
			b = expandBlock{isToolCall: true, head: []byte(`{"type":"toolCall","id":"","name":"","arguments":`)}
		}
		x.blocks = append(x.blocks, b)
	}
	return &x.blocks[i]
}

func (x *Expand) update(line []byte, id, ame codec.Member) []byte {
	if !x.open {
		// An update with no message_start before it: start from an empty message.
		x.start(codec.Member{}, nil)
	}
	ev := ame.Raw(line)
	n := parseNestedEvent(ev)
	typ, idx := n.typ(), n.index()
	var evEditStore, beforeStore, afterStore [1]codec.Edit // at most one edit each
	evEdits := evEditStore[:0]
	switch typ {
	case codec.UpdateTextStart, codec.UpdateThinkingStart:
		*x.block(idx, typ) = expandBlock{head: stringBlockHead(typ)}
	case codec.UpdateTextDelta, codec.UpdateThinkingDelta:
		if b := x.block(idx, typ); b.whole == nil {
			b.text = append(b.text, stringBody(n.get(evDelta))...)
		}
	case codec.UpdateTextEnd, codec.UpdateThinkingEnd:
		if n.has(evContent) {
			*x.block(idx, typ) = expandBlock{head: stringBlockHead(typ),
				text: append(x.block(idx, typ).text[:0], stringBody(n.get(evContent))...)}
		}
	case codec.UpdateToolCallStart:
		head := []byte(`{"type":"toolCall","id":`)
		if n.has(evToolCall) {
			ref := n.get(evToolCall)
			head = append(head, orEmptyString(codec.Find(ref, "id").Raw(ref))...)
			head = append(head, `,"name":`...)
			head = append(head, orEmptyString(codec.Find(ref, "name").Raw(ref))...)
			evEdits = append(evEdits, codec.DeleteEdit(ev, n.member(evToolCall)))
		} else {
			head = append(head, `"","name":""`...)
		}
		*x.block(idx, typ) = expandBlock{isToolCall: true, head: append(head, `,"arguments":`...)}
	case codec.UpdateToolCallDelta:
		if b := x.block(idx, typ); b.whole == nil {
			b.args = append(b.args, n.view(evDelta)...)
		}
	case codec.UpdateToolCallEnd:
		if n.has(evToolCall) {
			*x.block(idx, typ) = expandBlock{whole: append([]byte(nil), n.get(evToolCall)...)}
		}
	}

	// The line with messageId dropped, and the nested event ending in "partial":S, then
	// "message":S right after it. The snapshot S is built once, in place, and copied once.
	before, after := beforeStore[:0], afterStore[:0]
	if id.Exists() {
		del := codec.DeleteEdit(line, id)
		if del.End <= ame.ValStart {
			before = append(before, del)
		} else {
			after = append(after, codec.Edit{Start: del.Start - ame.ValEnd, End: del.End - ame.ValEnd})
		}
	}
	out := slices.Grow(x.out[:0], len(line)+2*x.snapSize+32)
	out = codec.Splice(out, line[:ame.ValStart], before...)
	out = codec.Splice(out, ev[:len(ev)-1], evEdits...)
	out = codec.AppendMember(out, "partial", isEmptyObject(out))
	snapStart := len(out)
	out = append(out, x.prefix...)
	out = append(out, '[')
	for i := range x.blocks {
		if i > 0 {
			out = append(out, ',')
		}
		out = x.blocks[i].appendJSON(out)
	}
	out = append(out, ']')
	out = append(out, x.suffix...)
	snapEnd := len(out)
	x.snapSize = snapEnd - snapStart
	out = append(out, '}')
	out = codec.AppendMember(out, "message", false)
	out = append(out, out[snapStart:snapEnd]...)
	x.out = codec.Splice(out, line[ame.ValEnd:], after...)
	return x.out
}

func orEmptyString(raw []byte) []byte {
	if len(raw) == 0 {
		return []byte(`""`)
	}
	return raw
}
