package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"unsafe"

	"github.com/tidwall/gjson"
)

// This file works on encoded lines without decoding them: look up a member, find the byte
// range it occupies, and splice. The lookups assume valid JSON, so callers check a line
// with CheckObject before editing it. The splice is ours rather than sjson's: sjson sets the
// first of duplicate keys where readers take the last, appends new members at the end
// where the stream wants them after "type", and allocates a new line per edit (docs/design.md,
// design notes; BenchmarkSetMember*).

// CheckObject reports why line is not a single JSON object, or nil when it is one.
func CheckObject(line []byte) error {
	i := SkipSpace(line, 0)
	if i == len(line) {
		return errors.New("empty line, expected a JSON object")
	}
	if Valid(line) {
		if line[i] != '{' {
			return fmt.Errorf("expected a JSON object, found %s", kindOf(line[i]))
		}
		return nil
	}
	// Slow path, errors only: let encoding/json say where and what.
	if !utf8.Valid(line) {
		return errors.New("invalid UTF-8")
	}
	var v any
	err := json.Unmarshal(line, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at column %d: %s", se.Offset, se.Error())
	}
	if err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	return errors.New("invalid JSON")
}

func kindOf(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// SkipSpace returns the index of the first byte at or after i that is not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func skipSpaceBack(b []byte, i int) int {
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t' || b[i-1] == '\n' || b[i-1] == '\r') {
		i--
	}
	return i
}

// Member is one member of an encoded object, as byte offsets into it: the key starts at
// KeyStart (its opening quote) and the value spans [ValStart, ValEnd). The zero Member is
// "not found".
type Member struct {
	KeyStart, ValStart, ValEnd int
}

// Exists reports whether the lookup found the member.
func (m Member) Exists() bool { return m.ValEnd > 0 }

// Raw returns the member's encoded value.
func (m Member) Raw(obj []byte) []byte { return obj[m.ValStart:m.ValEnd] }

// Str returns the member's value decoded as a string, "" when it is not one.
func (m Member) Str(obj []byte) string {
	raw := m.Raw(obj)
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	return string(AppendUnescaped(nil, body))
}

// Int returns the member's value as an integer, 0 when it is not a number.
func (m Member) Int(obj []byte) int64 {
	raw := m.Raw(obj)
	// Most are a few digits (message ids, content indexes), read here without a call.
	if len(raw) > 0 && len(raw) <= 18 {
		var n int64
		for _, c := range raw {
			if c-'0' > 9 {
				n = -1
				break
			}
			n = n*10 + int64(c-'0')
		}
		if n >= 0 {
			return n
		}
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n
	}
	return gjson.ParseBytes(raw).Int()
}

// Lookup finds a member by a dotted path of keys ("message.role"); a numeric step indexes
// an array ("content.1"). obj must be valid JSON.
func Lookup(obj []byte, path string) Member {
	var m Member
	base := 0
	cur := obj
	for {
		step, rest, more := strings.Cut(path, ".")
		if n, err := strconv.Atoi(step); err == nil && len(cur) > 0 && cur[SkipSpace(cur, 0)] == '[' {
			m = Elem(cur, n)
		} else {
			m = Find(cur, step)
		}
		if !m.Exists() {
			return Member{}
		}
		m.KeyStart += base
		m.ValStart += base
		m.ValEnd += base
		if !more {
			return m
		}
		base = m.ValStart
		cur = obj[m.ValStart:m.ValEnd]
		path = rest
	}
}

// Elem returns element n of the array arr (valid JSON) as a Member whose KeyStart is the
// element's start.
func Elem(arr []byte, n int) Member {
	var found Member
	EachElem(arr, func(k int, elem []byte) bool {
		if k == n {
			start := cap(arr) - cap(elem) // elem is arr[start:start+len(elem)]
			found = Member{KeyStart: start, ValStart: start, ValEnd: start + len(elem)}
		}
		return k < n
	})
	return found
}

// Edit replaces obj[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       []byte
}

// DeleteEdit is the edit that removes member m of obj together with its separating comma.
func DeleteEdit(obj []byte, m Member) Edit {
	before := skipSpaceBack(obj, m.KeyStart)
	if before > 0 && obj[before-1] == ',' {
		return Edit{Start: before - 1, End: m.ValEnd}
	}
	// First member: take the comma after it instead.
	after := SkipSpace(obj, m.ValEnd)
	if after < len(obj) && obj[after] == ',' {
		after = SkipSpace(obj, after+1)
		return Edit{Start: m.KeyStart, End: after}
	}
	return Edit{Start: m.KeyStart, End: m.ValEnd}
}

// Splice applies edits, sorted by Start and not overlapping, to src, appending to dst.
func Splice(dst, src []byte, edits ...Edit) []byte {
	pos := 0
	for _, e := range edits {
		dst = append(dst, src[pos:e.Start]...)
		dst = append(dst, e.Text...)
		pos = e.End
	}
	return append(dst, src[pos:]...)
}

// AppendMember appends `,"key":` (or `"key":` when first is true) to dst.
func AppendMember(dst []byte, key string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = AppendString(dst, key)
	return append(dst, ':')
}

// LineType returns a line's top-level "type" string, or "" when it has none. line must be
// valid JSON.
func LineType(line []byte) string { return Find(line, "type").Str(line) }

// UnsafeString views b as a string without copying, for lookups that do not outlive b.
func UnsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
