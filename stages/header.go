package stages

import (
	"bytes"
	"strconv"

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
	seq     int64
	buf     []byte
	ins     []byte // members inserted by stamp, reused
	num     []byte
}

// NewHeader returns the header stage.
func NewHeader(opts HeaderOptions) *Header {
	h := &Header{opts: opts}
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
	if !h.started {
		h.started = true
		if f.Type() == codec.TypeSession {
			f = h.replace(f)
			h.adopt(f)
			return emit(f)
		}
		if err := h.writeHeader(emit); err != nil {
			return err
		}
	}
	if f.Type() == codec.TypeSession {
		h.adopt(f)
		return emit(f)
	}
	if (!h.opts.Stamp && !h.opts.Seq) || f.Check() != nil {
		return emit(f)
	}
	return emit(h.stamp(f))
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

// stamp adds (or updates) "sessionId" and "seq" right after "type", by splicing: every
// other byte of the line stays as it was.
func (h *Header) stamp(f *Frame) *Frame {
	line := f.Line()
	var m [3]codec.Member
	f.members(stampKeys, m[:])
	typ, sid, seq := m[0], m[1], m[2]

	var edits [3]codec.Edit
	n := 0
	ins := h.ins[:0] // members to insert after "type"
	if h.opts.Stamp {
		if !sid.Exists() {
			ins = append(append(ins, `,"sessionId":`...), h.id...)
		} else if !bytes.Equal(sid.Raw(line), h.id) {
			edits[n] = codec.Edit{Start: sid.ValStart, End: sid.ValEnd, Text: h.id}
			n++
		}
	}
	if h.opts.Seq {
		h.seq++
		num := strconv.AppendInt(h.num[:0], h.seq, 10)
		h.num = num
		if !seq.Exists() {
			ins = append(append(ins, `,"seq":`...), num...)
		} else if !bytes.Equal(seq.Raw(line), num) {
			edits[n] = codec.Edit{Start: seq.ValStart, End: seq.ValEnd, Text: num}
			n++
		}
	}
	if len(ins) > 0 {
		if typ.Exists() {
			edits[n] = codec.Edit{Start: typ.ValEnd, End: typ.ValEnd, Text: ins}
		} else {
			// No "type": the members go first, before whatever the object holds.
			open := bytes.IndexByte(line, '{') + 1
			text := ins[1:]
			if bytes.IndexByte(line[open:], '"') >= 0 {
				text = append(text, ',')
			}
			edits[n] = codec.Edit{Start: open, End: open, Text: text}
		}
		n++
	}
	h.ins = ins
	if n == 0 {
		return f
	}
	sortEdits(edits[:n])
	// The line is valid until the next Push, like a line read from input.
	h.buf = codec.Splice(h.buf[:0], line, edits[:n]...)
	return f.Edited(h.buf)
}
