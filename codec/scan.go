package codec

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// A small JSON scanner tuned for the stream's lines, where most bytes sit inside long
// strings (text, tool output, snapshots): short string bodies are crossed eight bytes at a
// time, the first byte that ends a run of plain characters found by a branch-free test of
// the eight; longer runs by scanPlain (32 bytes at a time with SSE2 on amd64), their UTF-8
// checked a run at a time; once a line is known to be valid, strings are crossed with
// bytes.IndexByte. gjson walks them a byte at a time, which made validation and lookups most
// of a filter's cost.

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// word is the 8 bytes of b from i on, the first in the low byte; the caller has checked
// that i+8 <= len(b), so the load is made without a second check.
func word(b []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)), 8))
}

// specials marks, with the high bit of its byte, each byte of v that is '"', '\\' or a
// control character (< 0x20); bytes >= 0x80 are not marked. A mark may be wrong only above a
// byte rightly marked (a borrow runs upwards), so the lowest mark is always right.
func specials(v uint64) uint64 {
	quote := v ^ (lsb * '"')
	bslash := v ^ (lsb * '\\')
	return ((quote - lsb) | (bslash - lsb) | (v - lsb*0x20)) &^ v & msb
}

// Valid reports whether b is exactly one JSON value, with optional surrounding white space,
// in valid UTF-8.
func Valid(b []byte) bool {
	var notes scanNotes
	i, ok := validValue(b, SkipSpace(b, 0), 0, &notes)
	return ok && SkipSpace(b, i) == len(b)
}

const maxDepth = 10000

// scanNotes is what validation notices on the way at no extra cost.
type scanNotes struct {
	// sameKeys: an object may have a key twice as written (two of its keys were found equal,
	// or too many of them shared fingerprints to compare them all). False means none has.
	sameKeys bool
	// last is the last string value crossed (not a key), where a line of a stream most often
	// differs from the line before it (the text of a delta).
	last stringValue
	// bodies lists every string value crossed, in order, when record is set: where the next
	// line may differ from this one and still be valid for the same reasons (the texts of a
	// full-form update, which grow in several places at once).
	bodies []stringValue
	record bool
}

// stringValue places a string value of a line: body is the index after its opening quote,
// end that of its closing quote, key that of the opening quote of its member's key (-1 for
// an array element), depth the number of containers around its container.
type stringValue struct {
	body, end, key, depth int
}

// keyBit is a fingerprint of an object key (its raw body): one bit of 64, chosen from its
// length and its first and last bytes. Equal keys have equal bits; an object whose keys'
// bits are all different has no duplicate key.
func keyBit(key []byte) uint64 {
	h := uint(len(key)) * 0x9e
	if len(key) > 0 {
		h += uint(key[0])*0x3b + uint(key[len(key)-1])*0x11
	}
	return 1 << ((h ^ h>>6) & 63)
}

// maxKeyChecks is how many keys of one object whose fingerprint is taken are compared with
// the keys before them; past that the object counts as having a duplicate (the ambiguity walk
// then tells), so that an object of many keys costs no more than linear time.
const maxKeyChecks = 4

// seenKeys is how many keys of an object validValue keeps the place of, to compare them.
const seenKeys = 8

// hasKeyBefore reports whether the object at b[obj] has a member with the raw key key among
// those before b[end]. seen holds where the first keys' bodies are; when more were seen
// than it holds, the object's members are walked.
func hasKeyBefore(b []byte, obj, end int, key []byte, seen [][2]int32, more bool) bool {
	if !more {
		for _, s := range seen {
			if string(b[s[0]:s[1]]) == string(key) {
				return true
			}
		}
		return false
	}
	found := false
	EachMember(b[obj:end], func(k []byte, _ Member) bool {
		found = bytes.Equal(k, key)
		return !found
	})
	return found
}

// validValue checks the value at i and returns the index after it. Values inside
// containers are crossed without a call when they are strings, the most common kind.
func validValue(b []byte, i, depth int, notes *scanNotes) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i+1)
	case c == '{':
		if depth >= maxDepth {
			return i, false
		}
		obj := i
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		var keys uint64             // the keyBits of the keys so far
		checks := 0                 // of keys whose bit was taken
		var seen [seenKeys][2]int32 // where the first keys' bodies are, to compare on a collision
		n := 0                      // keys so far
		for {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			keyStart := i + 1
			var ok bool
			if i, ok = validString(b, keyStart); !ok {
				return i, false
			}
			key := b[keyStart : i-1]
			bit := keyBit(key)
			if keys&bit != 0 && !notes.sameKeys {
				notes.sameKeys = checks == maxKeyChecks || hasKeyBefore(b, obj, keyStart-1, key, seen[:min(n, seenKeys)], n > seenKeys)
				checks++
			}
			keys |= bit
			if n < seenKeys && i < math.MaxInt32 {
				seen[n] = [2]int32{int32(keyStart), int32(i - 1)}
				n++
			} else {
				n = seenKeys + 1 // a key whose place is not kept
			}
			if i < len(b) && b[i] == ':' {
				i++
			} else if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
				return i, false
			} else {
				i++
			}
			if i, ok = validElem(b, SkipSpace(b, i), keyStart-1, depth, notes); !ok {
				return i, false
			}
			var more bool
			if i, more, ok = afterElem(b, i, '}'); !more {
				return i, ok
			}
		}
	case c == '[':
		if depth >= maxDepth {
			return i, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok, more bool
			if i, ok = validElem(b, i, -1, depth, notes); !ok {
				return i, false
			}
			if i, more, ok = afterElem(b, i, ']'); !more {
				return i, ok
			}
		}
	}
	return validScalar(b, i)
}

// validElem checks the value at i, a member's value (its key's opening quote at key) or an
// array's element (key -1) in a container at depth, and returns the index after it. Strings
// and plain integers, most values, are crossed without a call of validValue.
func validElem(b []byte, i, key, depth int, notes *scanNotes) (int, bool) {
	if i < len(b) && b[i] == '"' {
		end, ok := validString(b, i+1)
		notes.last = stringValue{body: i + 1, end: end - 1, key: key, depth: depth}
		if notes.record {
			notes.bodies = append(notes.bodies, notes.last)
		}
		return end, ok
	}
	if end := plainInt(b, i); end > i {
		return end, true
	}
	return validValue(b, i, depth+1, notes)
}

// afterElem crosses what follows an element of a container that ends with close: more is
// true when a comma does (i is then the next element's start), false at the end of the
// container (i after close; ok false when neither follows).
func afterElem(b []byte, i int, close byte) (next int, more, ok bool) {
	if i < len(b) && b[i] == ',' {
		return SkipSpace(b, i+1), true, true
	}
	if i = SkipSpace(b, i); i >= len(b) {
		return i, false, false
	}
	switch b[i] {
	case close:
		return i + 1, false, true
	case ',':
		return SkipSpace(b, i+1), true, true
	}
	return i, false, false
}

// plainInt returns the end of the plain integer at i (digits without a sign, fraction,
// exponent or leading zero) when a comma or closing bracket follows it, else i: the ids and
// indexes of most lines, crossed without a call.
func plainInt(b []byte, i int) int {
	j := i
	for j < len(b) && b[j]-'0' <= 9 {
		j++
	}
	if j == i || j >= len(b) || (b[i] == '0' && j > i+1) {
		return i
	}
	if c := b[j]; c == ',' || c == '}' || c == ']' {
		return j
	}
	return i
}

// validScalar checks the number, true, false or null at i and returns the index after it.
func validScalar(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '-' || (c >= '0' && c <= '9'):
		// Most numbers are plain integers ended by a comma or a bracket: no second pass.
		j := i
		if c == '-' {
			j++
		}
		k := j
		for k < len(b) && b[k]-'0' <= 9 {
			k++
		}
		if k > j && k < len(b) && (b[k] == ',' || b[k] == '}' || b[k] == ']') && (b[j] != '0' || k == j+1) {
			return k, true
		}
		j = i
		for j < len(b) && (b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || (b[j] >= '0' && b[j] <= '9')) {
			j++
		}
		return j, validNumber(UnsafeString(b[i:j]))
	case c == 't':
		return i + 4, bytes.HasPrefix(b[i:], []byte("true"))
	case c == 'f':
		return i + 5, bytes.HasPrefix(b[i:], []byte("false"))
	case c == 'n':
		return i + 4, bytes.HasPrefix(b[i:], []byte("null"))
	}
	return i, false
}

// validString checks a string body starting at i (after the opening quote) and returns the
// index after the closing quote.
//
// Most strings of a stream are short ASCII keys and values ("type", "text_delta", a few
// words of a delta, text with escaped line breaks): they are crossed a word at a time with
// one test that stops at any byte needing a closer look (a quote, a backslash, a control
// character or a byte of a multi-byte character), escapes checked in place. A string that
// goes on plain for longer, or holds multi-byte characters, is handed to validStringRun,
// which crosses long runs faster and checks UTF-8 a run at a time.
func validString(b []byte, i int) (int, bool) {
	plain := 0 // bytes crossed since the last escape
	for {
		var v uint64
		switch {
		case i+8 <= len(b):
			v = word(b, i)
		case len(b) >= 8 && i < len(b):
			// The line's last bytes: the word that ends the line, shifted down to start at i.
			// The zero bytes shifted in count as control characters, so a string that does
			// not end before them stops there.
			v = word(b, len(b)-8) >> ((8 - (len(b) - i)) * 8)
		default:
			return validStringRun(b, i)
		}
		if m := specials(v) | v&msb; m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if i >= len(b) {
				return i, false
			}
			switch c := b[i]; {
			case c == '"':
				return i + 1, true
			case c == '\\':
				var ok bool
				if i, ok = validEscape(b, i); !ok {
					return i, false
				}
				plain = 0
				continue
			case c >= utf8.RuneSelf:
				return validStringRun(b, i)
			}
			return i, false // a control character
		}
		i += 8
		if plain += 8; plain >= 32 {
			return validStringRun(b, i)
		}
	}
}

// validStringRun is validString for a body of any length and content, from i (the start of
// a character) on: runs of plain characters are crossed by scanPlain (16 or 32 bytes at a
// time), their UTF-8 checked a run at a time.
func validStringRun(b []byte, i int) (int, bool) {
	for {
		run := i
		var high bool
		i, high = scanPlain(b, i)
		if high && !utf8.Valid(b[run:i]) {
			return run, false
		}
		if i >= len(b) || b[i] < 0x20 {
			return i, false
		}
		if b[i] == '"' {
			return i + 1, true
		}
		var ok bool
		if i, ok = validEscape(b, i); !ok {
			return i, false
		}
	}
}

// scanPlainWords is scanPlain a word at a time in Go, for processors without its assembly
// (and to hold the assembly to).
func scanPlainWords(b []byte, i int) (end int, high bool) {
	var seen uint64
	for i+32 <= len(b) {
		v0 := word(b, i)
		v1 := word(b, i+8)
		v2 := word(b, i+16)
		v3 := word(b, i+24)
		if specials(v0)|specials(v1)|specials(v2)|specials(v3) != 0 {
			break
		}
		seen |= v0 | v1 | v2 | v3
		i += 32
	}
	for i+8 <= len(b) {
		v := word(b, i)
		if m := specials(v); m != 0 {
			skip := bits.TrailingZeros64(m) >> 3
			seen |= v & (1<<(skip<<3) - 1)
			return i + skip, seen&msb != 0
		}
		seen |= v
		i += 8
	}
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		seen |= uint64(b[i])
		i++
	}
	return i, seen&msb != 0
}

// validEscape checks the escape at b[i] (a backslash) and returns the index after it.
func validEscape(b []byte, i int) (int, bool) {
	if i+1 >= len(b) {
		return i, false
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, true
	case 'u':
		if i+6 > len(b) {
			return i, false
		}
		for _, h := range b[i+2 : i+6] {
			if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
				return i, false
			}
		}
		return i + 6, true
	}
	return i, false
}

// View is Str without a copy when the value has no escapes: the string shares obj's memory,
// so it is for comparing and reading while obj is valid, never for keeping.
func (m Member) View(obj []byte) string {
	raw := m.Raw(obj)
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return UnsafeString(raw[1 : len(raw)-1])
	}
	return m.Str(obj)
}

// The functions below assume valid JSON.

// SkipString returns the index after the closing quote of the string whose body starts at i
// (just after its opening quote); len(b) when the string does not end.
func SkipString(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		q += i
		bs := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// SkipValue returns the index after the value (string, container, number or literal)
// starting at i, crossing strings with SkipString.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return SkipString(b, i+1)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = SkipString(b, i+1)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return i
	}
}

// NextItem returns where the next member or element of a container (valid JSON) starts
// after a value that ends at ve, or where the container closes and false.
func NextItem(b []byte, ve int) (int, bool) {
	i := SkipSpace(b, ve)
	if i >= len(b) || b[i] != ',' {
		return i, false
	}
	return SkipSpace(b, i+1), true
}

// EachMember calls fn for each member of the object obj (valid JSON) in order, with the
// key's raw body (between its quotes) and the member's offsets, until fn returns false.
func EachMember(obj []byte, fn func(key []byte, m Member) bool) {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = SkipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		keyStart := i
		keyEnd := SkipString(obj, i+1)
		i = SkipSpace(obj, keyEnd)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		valStart := SkipSpace(obj, i+1)
		valEnd := SkipValue(obj, valStart)
		if !fn(obj[keyStart+1:keyEnd-1], Member{KeyStart: keyStart, ValStart: valStart, ValEnd: valEnd}) {
			return
		}
		i = SkipSpace(obj, valEnd)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// Find returns the member of obj (valid JSON) named key, matching the key as written. Of
// duplicate keys the last wins, as in jq and JavaScript.
func Find(obj []byte, key string) Member {
	var found Member
	EachMember(obj, func(k []byte, m Member) bool {
		if string(k) == key {
			found = m
		}
		return true
	})
	return found
}

// EachElem calls fn for each element of the array arr (valid JSON) in order, with its index
// and encoded value, until fn returns false.
func EachElem(arr []byte, fn func(i int, elem []byte) bool) {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = SkipSpace(arr, i+1)
	for n := 0; i < len(arr) && arr[i] != ']'; n++ {
		end := SkipValue(arr, i)
		if !fn(n, arr[i:end]) {
			return
		}
		i = SkipSpace(arr, end)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i = SkipSpace(arr, i+1)
	}
}

// FindEach looks up several members of obj (valid JSON) in one pass: found[i] is the
// member named keys[i] (the last of duplicates, as Find), the zero Member when there is none.
func FindEach(obj []byte, keys []string, found []Member) {
	clear(found)
	EachMember(obj, func(k []byte, m Member) bool {
		for i, key := range keys {
			if string(k) == key {
				found[i] = m
				break
			}
		}
		return true
	})
}
