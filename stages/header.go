package stages

import (
	"bytes"

	"github.com/basecontext/base-context/codec"
)

// HeaderOptions configures the header stage.
type HeaderOptions struct {
	// Header is written first when the stream does not start with a session header (and is
	// the whole output for an empty stream). Its fields are written as given.
	Header codec.Header
	// Replace names the fields of Header ("id", "timestamp", "cwd") that replace the values
	// of a header the stream already starts with; that header is otherwise left as it is.
	Replace []string
	// Stamp adds "sessionId" (the id of the header in effect) after "type" in every later
	// object; Seq adds "seq", counting those objects from 1. A value already there is
	// overwritten, so stamping a stamped stream again changes nothing.
	Stamp, Seq bool
}

// Header makes sure the stream starts with a session header (docs/stream.md "The session header")
// and can stamp every later event with its session: it is the first stage of the agent's
// output chain and `filter header`.
//
// A later "session" line (streams concatenated) passes through unchanged and its id is
// stamped from then on. Lines that are not JSON objects pass through unstamped.
type Header struct {
	opts    HeaderOptions
	started bool   // the first frame has been seen
	id      []byte // the encoded session id stamped on events
	num     []byte // the number seq stamped last, in decimal ("0" before the first)
	ins     []byte // members inserted by stamp, reused

	// The line stamped last (by stamp, or restamped by Push) and what the next may reuse of
	// it: the line it was made from, checked in its frame; the end of what stamp read and
	// edited in that line; how much longer the stamped line is; where its seq number is and
	// how long that is.
	buf           []byte
	last          lineID
	fixed, shift  int
	seqAt, seqLen int
	restamped     bool  // the line pushed last was restamped so
	out           Frame // the frame of a line restamped in a run of deltas

	// For a run of the next deltas of the line restamped last: where its delta's body
	// starts, what follows that delta (in the line, then kept in tail), and where the
	// lines made go.
	runBody     int
	after, tail []byte
	emit        Emit
}

// NewHeader returns the header stage.
func NewHeader(opts HeaderOptions) *Header {
	h := &Header{opts: opts, num: []byte{'0'}}
	h.id = codec.AppendString(nil, opts.Header.ID)
	return h
}

// Header fields that Replace may name, in the order the spec writes them.
var headerFields = []string{"id", "timestamp", "cwd"}

func (h *Header) field(name string) string {
	switch name {
	case "id":
		return h.opts.Header.ID
	case "timestamp":
		return h.opts.Header.Timestamp
	case "cwd":
		return h.opts.Header.Cwd
	}
	return ""
}

func (h *Header) replaces(name string) bool {
	for _, r := range h.opts.Replace {
		if r == name {
			return true
		}
	}
	return false
}

func (h *Header) Push(f *Frame, emit Emit) error {
	// The line after the one stamped last, repeating it but for the bodies of string values
	// after everything stamp read and edited in it (the next delta of a block comes so, and
	// the next update of the full form), is valid, of the same type and stamped the same way
	// but for its number: it is restamped, from that stamped line, in h.buf, which up to the
	// first changed body stays as it is, but for the digits of seq, and from there on is the
	// new line's. (h.last is zero before any line is stamped: the line after it names no line
	// checked.) Here, not in a function of its own: most lines of the delta form come so.
	if h.last.frame != 0 && f.checkedLine() == (lineID{h.last.frame, h.last.n + 1}) && f.index.RepeatsStrings() {
		if v := f.index.ChangedValueAt(0); v.ValStart+1 >= h.fixed {
			h.restamped, h.emit, h.runBody, h.after = true, emit, v.ValStart+1, f.line[v.ValEnd:]
			return emit(f.Edited(h.restamp(f.line, v.ValStart+1)))
		}
	}
	h.restamped = false
	typ := f.Type()
	if !h.started || typ == codec.TypeSession {
		return h.pushHeader(f, typ, emit)
	}
	if (h.opts.Stamp || h.opts.Seq) && (typ != "" || f.Check() == nil) {
		return emit(h.stamp(f))
	}
	return emit(f)
}

// pushHeader is Push for the first frame and session headers.
func (h *Header) pushHeader(f *Frame, typ string, emit Emit) error {
	if typ == codec.TypeSession {
		if !h.started {
			h.started = true
			f = h.replace(f)
		}
		h.adopt(f)
		return emit(f)
	}
	h.started = true
	if err := h.writeHeader(emit); err != nil {
		return err
	}
	return h.Push(f, emit)
}

// Flush writes the header of an empty stream.
func (h *Header) Flush(emit Emit) error {
	if h.started {
		return nil
	}
	h.started = true
	return h.writeHeader(emit)
}

func (h *Header) writeHeader(emit Emit) error {
	hd := h.opts.Header
	return emit(EventFrame(&hd))
}

// adopt takes the id of the header f as the one stamped from now on.
func (h *Header) adopt(f *Frame) {
	if e, ok := f.Event.(*codec.Header); ok {
		h.id = codec.AppendString(h.id[:0], e.ID)
		return
	}
	var m [1]codec.Member
	f.members(idKey, m[:])
	if line := f.Line(); m[0].Exists() && line[m[0].ValStart] == '"' {
		h.id = append(h.id[:0], m[0].Raw(line)...)
	}
}

var idKey = []string{"id"}

// replace gives the stream's own header the fields named by Replace.
func (h *Header) replace(f *Frame) *Frame {
	if len(h.opts.Replace) == 0 {
		return f
	}
	if e, ok := f.Event.(*codec.Header); ok {
		c := *e
		for _, name := range h.opts.Replace {
			switch name {
			case "id":
				c.ID = h.opts.Header.ID
			case "timestamp":
				c.Timestamp = h.opts.Header.Timestamp
			case "cwd":
				c.Cwd = h.opts.Header.Cwd
			}
		}
		return EventFrame(&c)
	}
	line := f.Line()
	var m [3]codec.Member
	f.members(headerFields, m[:])
	var edits []codec.Edit
	var missing []byte // fields the header lacks, added at its end
	for i, name := range headerFields {
		if !h.replaces(name) {
			continue
		}
		value := codec.AppendString(nil, h.field(name))
		if m[i].Exists() {
			edits = append(edits, codec.Edit{Start: m[i].ValStart, End: m[i].ValEnd, Text: value})
		} else {
			missing = append(codec.AppendMember(missing, name, false), value...)
		}
	}
	if len(missing) > 0 {
		end := bytes.LastIndexByte(line, '}')
		edits = append(edits, codec.Edit{Start: end, End: end, Text: missing})
	}
	return f.Edited(codec.Splice(make([]byte, 0, len(line)+64), line, edits...))
}

var stampKeys = []string{"type", "sessionId", "seq"}

// stampEdit is an edit stamp makes, and where the digits of seq end up in its text.
type stampEdit struct {
	codec.Edit
	seqAt int // offset in Text of the seq number, -1 when Text does not hold it
}

// stamp adds (or updates) "sessionId" and "seq" right after "type", by splicing: every
// other byte of the line stays as it was.
func (h *Header) stamp(f *Frame) *Frame {
	if h.opts.Seq {
		h.num = incrementDecimal(h.num)
	}
	line := f.Line()
	var m [3]codec.Member
	f.members(stampKeys, m[:])
	typ, sid, seq := m[0], m[1], m[2]

	var edits [3]stampEdit
	n := 0
	ins := h.ins[:0] // members to insert after "type"
	insSeq := -1     // offset of the seq number in ins
	if h.opts.Stamp {
		if !sid.Exists() {
			ins = append(append(ins, `,"sessionId":`...), h.id...)
		} else if !bytes.Equal(sid.Raw(line), h.id) {
			edits[n] = stampEdit{codec.Edit{Start: sid.ValStart, End: sid.ValEnd, Text: h.id}, -1}
			n++
		}
	}
	seqSame := false // the line's seq is the number already
	if h.opts.Seq {
		if !seq.Exists() {
			ins = append(ins, `,"seq":`...)
			insSeq = len(ins)
			ins = append(ins, h.num...)
		} else if seqSame = bytes.Equal(seq.Raw(line), h.num); !seqSame {
			edits[n] = stampEdit{codec.Edit{Start: seq.ValStart, End: seq.ValEnd, Text: h.num}, 0}
			n++
		}
	}
	if len(ins) > 0 {
		if typ.Exists() {
			edits[n] = stampEdit{codec.Edit{Start: typ.ValEnd, End: typ.ValEnd, Text: ins}, insSeq}
		} else {
			// No "type": the members go first, before whatever the object holds.
			open := bytes.IndexByte(line, '{') + 1
			text := ins[1:]
			if bytes.IndexByte(line[open:], '"') >= 0 {
				text = append(text, ',')
			}
			edits[n] = stampEdit{codec.Edit{Start: open, End: open, Text: text}, max(insSeq-1, -1)}
		}
		n++
	}
	h.ins = ins
	h.last = lineID{}
	if n == 0 {
		return f
	}
	if seqSame {
		// Rewritten as it is, so that the stamped line says where its number is.
		edits[n] = stampEdit{codec.Edit{Start: seq.ValStart, End: seq.ValEnd, Text: h.num}, 0}
		n++
	}
	for i := 1; i < n; i++ {
		for j := i; j > 0 && edits[j].Start < edits[j-1].Start; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
	// The line is valid until the next Push, like a line read from input.
	buf, pos := h.buf[:0], 0
	h.fixed = max(typ.ValEnd, sid.ValEnd, seq.ValEnd)
	for _, e := range edits[:n] {
		buf = append(buf, line[pos:e.Start]...)
		if e.seqAt >= 0 {
			h.seqAt = len(buf) + e.seqAt
		}
		buf = append(buf, e.Text...)
		pos = e.End
		h.fixed = max(h.fixed, e.End)
	}
	h.buf = append(buf, line[pos:]...)
	h.shift = len(h.buf) - len(line)
	h.seqLen = len(h.num)
	h.last = f.checkedLine()
	return f.Edited(h.buf)
}

// restamp stamps line, the line after the one stamped last, repeating it but for the bodies
// of string values from body on (after everything stamp read and edited), from that stamped
// line, in h.buf: up to body it stays as it is, but for the digits of seq, and from there on
// it is line's.
func (h *Header) restamp(line []byte, body int) []byte {
	h.bumpSeq(body)
	h.buf = append(h.buf[:body+h.shift], line[body:]...)
	h.last.n++
	return h.buf
}

// bumpSeq counts the line restamped, in h.num and in the stamped line up to body.
func (h *Header) bumpSeq(body int) {
	if h.opts.Seq {
		last := len(h.num) - 1
		if d := h.num[last]; d != '9' { // only the last digit changes (nine lines in ten)
			h.num[last] = d + 1
			h.buf[h.seqAt+last] = d + 1
		} else {
			h.carry(body)
		}
	}
}

// NextDeltas: after a line restamped from the one before, the next deltas of its block are
// restamped alike, each from the one before (the delta, whose body changed, lies after
// everything stamped), as Run finds them (AcceptsDelta). What follows the delta in the line
// pushed, the same in each of them, is kept for that (the line is read over in the run).
func (h *Header) NextDeltas() NextDeltas {
	if !h.restamped || len(h.after) > maxAfterDelta {
		return PushDeltas
	}
	h.tail = append(h.tail[:0], h.after...)
	return EditDeltas
}

// maxAfterDelta: what follows a delta in its line is a few closing brackets; a longer rest
// (a full-form update, whose delta is not its last string) is not worth keeping.
const maxAfterDelta = 64

// AcceptsDelta restamps the next delta of a run, str its delta as written, from the line
// stamped before it, and emits it: that line up to the delta (its seq counted on), the delta,
// what follows it. It refuses only when the output failed (which stays failed).
func (h *Header) AcceptsDelta(str []byte) bool {
	h.bumpSeq(h.runBody)
	h.buf = append(append(h.buf[:h.runBody+h.shift], str[1:]...), h.tail...)
	h.last.n++
	return h.emit(h.out.reuse(nil, 0).Edited(h.buf)) == nil
}

func (h *Header) SkippedDeltas(DeltaRun) error { return nil }

// carry counts a restamped line whose number before ends in 9, in h.num and in the stamped
// line (up to body, in the line before), which moves on by one after the number when it
// gains a digit.
func (h *Header) carry(body int) {
	h.num = incrementDecimal(h.num)
	if len(h.num) > h.seqLen {
		end := body + h.shift
		h.buf = append(h.buf[:end], 0)
		copy(h.buf[h.seqAt+len(h.num):], h.buf[h.seqAt+h.seqLen:end])
		h.shift++
		h.seqLen++
	}
	copy(h.buf[h.seqAt:], h.num)
}

// incrementDecimal adds one to the decimal number digits, in place unless it gains a digit.
func incrementDecimal(digits []byte) []byte {
	for i := len(digits) - 1; i >= 0; i-- {
		if digits[i] != '9' {
			digits[i]++
			return digits
		}
		digits[i] = '0'
	}
	// All nines, now all zeros: a one before them.
	digits = append(digits, '0')
	digits[0] = '1'
	return digits
}
