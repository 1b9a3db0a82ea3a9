package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Decoding turns encoded messages and content blocks back into their typed values, e.g. to
// resume a session from its file, through the same plans as the encoders (plan.go), so it is
// the inverse of AppendJSON for every role and block type: fields it does not know (scratch fields some writers leak) are ignored, absent fields
// take their zero value, and a field of the wrong JSON type is an error. Raw fields (tool-call
// arguments, details, custom content) are copied; tool-call arguments are also compacted,
// and so is any raw field that spans lines, so re-encoding cannot break a JSON-lines stream.

// ParseMessage decodes one encoded message.
func ParseMessage(raw []byte) (Message, error) {
	v, err := decodeObject(raw, "message")
	if err != nil {
		return nil, err
	}
	return decodeMessage(v, decodeMode{})
}

// DecodeMessage decodes one encoded message that a validator has accepted (Valid, or
// CheckObject on the line around it) without validating it again. Its strings share raw's
// memory, which must then stay as it is.
func DecodeMessage(raw []byte) (Message, error) {
	return decodeValidMessage(raw, decodeMode{flags: validInput})
}

// DecodeMessageInto is DecodeMessage for a message that shares nothing with raw, which the
// caller may reuse (a session's loader reads its lines into one buffer): its strings are
// copied (or unescaped) into memory that alloc gives, or the heap's when alloc is nil.
// alloc(n) returns n bytes nothing else uses; the strings take at most len(raw) bytes of it
// in all, so a loader that keeps many messages lays them in memory of its choosing.
func DecodeMessageInto(raw []byte, alloc func(n int) []byte) (Message, error) {
	return decodeValidMessage(raw, decodeMode{flags: validInput | detachStrings, alloc: alloc})
}

func decodeValidMessage(raw []byte, mode decodeMode) (Message, error) {
	v := gjson.Parse(UnsafeString(raw))
	if !v.IsObject() {
		return nil, fmt.Errorf("codec: message: expected object, got %s", decodeTypeName(v))
	}
	return decodeMessage(v, mode)
}

// decodeMode says how decoding reads its input: its flags, and where detached strings go
// (alloc; nil: the heap).
type decodeMode struct {
	flags decodeFlags
	alloc func(n int) []byte
}

type decodeFlags uint8

const (
	// detachStrings: strings are copied out of the input, which the caller reuses.
	detachStrings decodeFlags = 1 << iota
	// validInput: the input is known to be valid JSON, so its objects and arrays are read
	// with this package's scanner (validMembers, validElems), which crosses strings with
	// IndexByte and unescapes a string once, where gjson goes a byte at a time.
	validInput
)

// detached is the string v (a JSON string) in memory of its own, alloc's when it is not
// nil: gjson's Str is a slice of the input unless it had to unescape it (into alloc's
// memory, with validResult).
func detached(v gjson.Result, alloc func(n int) []byte) string {
	if v.Str == "" {
		return ""
	}
	s, raw := uintptr(unsafe.Pointer(unsafe.StringData(v.Str))), uintptr(unsafe.Pointer(unsafe.StringData(v.Raw)))
	if s < raw || s >= raw+uintptr(len(v.Raw)) {
		return v.Str
	}
	if alloc == nil {
		return strings.Clone(v.Str)
	}
	b := alloc(len(v.Str))
	copy(b, v.Str)
	return UnsafeString(b) // b is not written again
}

// ParseContent decodes one encoded content block.
func ParseContent(raw []byte) (Content, error) {
	v, err := decodeObject(raw, "content block")
	if err != nil {
		return nil, err
	}
	return decodeContent(v, decodeMode{})
}

// ParseContents decodes a JSON array of content blocks.
func ParseContents(raw []byte) ([]Content, error) {
	if !gjson.ValidBytes(raw) {
		return nil, errors.New("codec: content: invalid JSON")
	}
	v := gjson.ParseBytes(raw)
	if !v.IsArray() {
		return nil, fmt.Errorf("codec: content: expected array, got %s", decodeTypeName(v))
	}
	return decodeContents(v, decodeMode{})
}

func decodeObject(raw []byte, what string) (gjson.Result, error) {
	if !gjson.ValidBytes(raw) {
		return gjson.Result{}, fmt.Errorf("codec: %s: invalid JSON", what)
	}
	v := gjson.ParseBytes(raw)
	if !v.IsObject() {
		return gjson.Result{}, fmt.Errorf("codec: %s: expected object, got %s", what, decodeTypeName(v))
	}
	return v, nil
}

// lastMember is the member key of the object v: of duplicate keys the last, as jq reads
// them (gjson's Get takes the first).
func lastMember(v gjson.Result, key string) gjson.Result {
	var found gjson.Result
	v.ForEach(func(k, x gjson.Result) bool {
		if k.Str == key {
			found = x
		}
		return true
	})
	return found
}

// member is one member of an object as gjson reads it.
type member struct{ k, x gjson.Result }

// objectMembers appends the members of the object v to ms, in order, reading v once (a
// member's value is crossed once, however long); of duplicate keys only the last is kept,
// as jq reads them: an earlier duplicate neither counts nor fails a type check.
func objectMembers(v gjson.Result, ms []member, mode decodeMode) []member {
	if mode.flags&validInput != 0 {
		obj := unsafe.Slice(unsafe.StringData(v.Raw), len(v.Raw))
		EachMember(obj, func(key []byte, m Member) bool {
			k := gjson.Result{Type: gjson.String, Raw: UnsafeString(obj[m.KeyStart : m.KeyStart+len(key)+2])}
			k.Str = stringBody(key, nil) // a key is matched, not kept
			ms = append(ms, member{k, validResult(m.Raw(obj), mode.alloc)})
			return true
		})
	} else {
		v.ForEach(func(k, x gjson.Result) bool {
			ms = append(ms, member{k, x})
			return true
		})
	}
	if !hasDuplicateKeys(ms) {
		return ms
	}
	last := make(map[string]int, len(ms))
	for i, m := range ms {
		last[m.k.Str] = i
	}
	kept := ms[:0]
	for i, m := range ms {
		if last[m.k.Str] == i {
			kept = append(kept, m)
		}
	}
	return kept
}

// eachElem calls fn for each element of the array v until it returns false, with gjson's
// scan, or with this package's when mode says v is valid JSON.
func eachElem(v gjson.Result, mode decodeMode, fn func(elem gjson.Result) bool) {
	if mode.flags&validInput == 0 {
		v.ForEach(func(_, elem gjson.Result) bool { return fn(elem) })
		return
	}
	EachElem(unsafe.Slice(unsafe.StringData(v.Raw), len(v.Raw)), func(_ int, elem []byte) bool {
		return fn(validResult(elem, mode.alloc))
	})
}

// validResult is the gjson Result of raw, one valid JSON value, as gjson would read it: a
// string is unescaped (into alloc's memory when it is not nil), a number parsed, a container
// left for later.
func validResult(raw []byte, alloc func(n int) []byte) gjson.Result {
	r := gjson.Result{Raw: UnsafeString(raw)}
	if len(raw) == 0 { // not valid after all: nothing, rather than a panic
		return r
	}
	switch raw[0] {
	case '"':
		r.Type, r.Str = gjson.String, stringBody(raw[1:max(1, len(raw)-1)], alloc)
	case '{', '[':
		r.Type = gjson.JSON
	case 't':
		r.Type = gjson.True
	case 'f':
		r.Type = gjson.False
	case 'n':
		r.Type = gjson.Null
	default:
		r.Type = gjson.Number
		r.Num, _ = strconv.ParseFloat(r.Raw, 64)
	}
	return r
}

// stringBody is the body of a valid JSON string (without its quotes), unescaped: the body
// itself, shared, when it has no escape; else unescaped into alloc's memory (when it is not
// nil: its unused end is the caller's loss, at most the escapes' share of the body).
func stringBody(body []byte, alloc func(n int) []byte) string {
	if bytes.IndexByte(body, '\\') < 0 {
		return UnsafeString(body)
	}
	if alloc != nil {
		return UnsafeString(AppendUnescaped(alloc(len(body))[:0], body)) // never grows: unescaping shortens
	}
	b := AppendUnescaped(make([]byte, 0, len(body)), body)
	if cap(b)-len(b) > len(b)/4 {
		return string(b)
	}
	return UnsafeString(b) // b is not written again
}

func hasDuplicateKeys(ms []member) bool {
	if len(ms) <= 16 {
		for i := range ms {
			for j := range i {
				if ms[i].k.Str == ms[j].k.Str {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		if seen[m.k.Str] {
			return true
		}
		seen[m.k.Str] = true
	}
	return false
}

// get is the member key of ms (read by objectMembers), the zero Result when there is none.
func get(ms []member, key string) gjson.Result {
	for _, m := range ms {
		if m.k.Str == key {
			return m.x
		}
	}
	return gjson.Result{}
}

// TypeName names the JSON type of v for error messages: "string", "number", "boolean",
// "null", "array", "object", or "nothing" when v is absent.
func TypeName(v gjson.Result) string { return decodeTypeName(v) }

func decodeTypeName(v gjson.Result) string {
	switch v.Type {
	case gjson.Null:
		if !v.Exists() {
			return "nothing"
		}
		return "null"
	case gjson.False, gjson.True:
		return "boolean"
	case gjson.Number:
		return "number"
	case gjson.String:
		return "string"
	}
	if v.IsArray() {
		return "array"
	}
	return "object"
}

// Fields reads typed members of one object (decoded in a single pass with gjson), keeping
// the first type error. Null counts as absent.
type Fields struct {
	What string // "assistant message", "text block", ... for error messages
	Err  error

	mode decodeMode // DecodeMessage's
}

func (f *Fields) fail(key string, want string, v gjson.Result) {
	if f.Err == nil {
		f.Err = fmt.Errorf("codec: %s: field %q: expected %s, got %s", f.What, key, want, decodeTypeName(v))
	}
}

// str reads a string; null counts as absent.
func (f *Fields) Str(key string, v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		if f.mode.flags&detachStrings != 0 {
			return detached(v, f.mode.alloc)
		}
		return v.Str
	case gjson.Null:
		return ""
	}
	f.fail(key, "string", v)
	return ""
}

func (f *Fields) Int(key string, v gjson.Result) int64 {
	switch v.Type {
	case gjson.Number:
		return v.Int()
	case gjson.Null:
		return 0
	}
	f.fail(key, "number", v)
	return 0
}

func (f *Fields) OptInt(key string, v gjson.Result) *int64 {
	if v.Type == gjson.Null {
		return nil
	}
	n := f.Int(key, v)
	return &n
}

func (f *Fields) Float(key string, v gjson.Result) float64 {
	switch v.Type {
	case gjson.Number:
		return v.Num
	case gjson.Null:
		return 0
	}
	f.fail(key, "number", v)
	return 0
}

func (f *Fields) Bool(key string, v gjson.Result) bool {
	switch v.Type {
	case gjson.True:
		return true
	case gjson.False, gjson.Null:
		return false
	}
	f.fail(key, "boolean", v)
	return false
}

func (f *Fields) OptBool(key string, v gjson.Result) *bool {
	if v.Type == gjson.Null {
		return nil
	}
	b := f.Bool(key, v)
	return &b
}

// raw copies an encoded value as it is, unless it spans lines: then it is compacted, so
// that re-encoding it cannot break a JSON-lines stream.
func (f *Fields) Raw(v gjson.Result) json.RawMessage {
	if strings.ContainsAny(v.Raw, "\n\r") {
		return decodeCompact(v.Raw)
	}
	return json.RawMessage(v.Raw)
}

func (f *Fields) Contents(key string, v gjson.Result) []Content {
	if v.Type == gjson.Null {
		return []Content{}
	}
	if !v.IsArray() {
		f.fail(key, "array", v)
		return nil
	}
	cs, err := decodeContents(v, f.mode)
	if err != nil && f.Err == nil {
		f.Err = fmt.Errorf("codec: %s: field %q: %w", f.What, key, err)
	}
	return cs
}

func decodeContents(v gjson.Result, mode decodeMode) ([]Content, error) {
	cs := []Content{}
	var err error
	i := 0
	eachElem(v, mode, func(b gjson.Result) bool {
		var c Content
		if !b.IsObject() {
			err = fmt.Errorf("block %d: expected object, got %s", i, decodeTypeName(b))
			return false
		}
		c, err = decodeContent(b, mode)
		if err != nil {
			err = fmt.Errorf("block %d: %w", i, err)
			return false
		}
		cs = append(cs, c)
		i++
		return true
	})
	return cs, err
}

func decodeContent(v gjson.Result, mode decodeMode) (Content, error) {
	c, err := decodeVariant(v, "content block", "type", "type", planned().contents, mode)
	content, _ := c.(Content)
	return content, err
}

// decodeVariant decodes v as the variant its discriminator key names; what and name name
// the union and its discriminator in errors.
func decodeVariant(v gjson.Result, what, key, name string, plans map[string]*plan, mode decodeMode) (any, error) {
	var store [8]member
	ms := objectMembers(v, store[:0], mode)
	tag := get(ms, key)
	if tag.Type != gjson.String {
		return nil, fmt.Errorf("codec: %s: field %q: expected string, got %s", what, key, decodeTypeName(tag))
	}
	p := plans[tag.Str]
	if p == nil {
		return nil, fmt.Errorf("codec: %s: unknown %s %q", what, name, tag.Str)
	}
	return p.decodeNew(ms, mode)
}

// decodeCompact copies an encoded value without insignificant whitespace.
func decodeCompact(raw string) json.RawMessage {
	if raw == "" {
		return nil
	}
	var b bytes.Buffer
	b.Grow(len(raw))
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return json.RawMessage(raw) // cannot happen: the input was validated
	}
	return b.Bytes()
}

func decodeMessage(v gjson.Result, mode decodeMode) (Message, error) {
	m, err := decodeVariant(v, "message", "role", "role", planned().messages, mode)
	msg, _ := m.(Message)
	return msg, err
}

// ParseEvent decodes one line of the stream, of any event type the description knows
// (the header too).
func ParseEvent(line []byte) (Event, error) {
	v, err := decodeObject(line, "event")
	if err != nil {
		return nil, err
	}
	e, err := decodeVariant(v, "event", "type", "type", planned().events, decodeMode{})
	event, _ := e.(Event)
	return event, err
}

// ParseHeader decodes a session header line.
func ParseHeader(line []byte) (*Header, error) {
	if err := CheckObject(line); err != nil {
		return nil, err
	}
	v := gjson.ParseBytes(line)
	h := &Header{}
	header := planned().header
	f := Fields{What: header.what}
	header.decode(&f, v, unsafe.Pointer(h), "")
	if f.Err == nil {
		if typ := f.Str("type", lastMember(v, "type")); f.Err == nil && typ != TypeSession {
			f.Err = fmt.Errorf("not a session header (type %q)", typ)
		}
	}
	return h, f.Err
}
