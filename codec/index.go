package codec

import (
	"bytes"
	"math/bits"
)

// Index lists the top-level members of a line, recorded while the line is validated, so
// that stages find the members they need without scanning the line a second time.
type Index struct {
	line    []byte
	keys    [][]byte // raw key bodies, aliasing line
	members []Member
	typ     int // index in members of the last "type", -1 when there is none
	notes   scanNotes

	// Room for the members of a typical event, so indexing one allocates nothing.
	keyStore    [8][]byte
	memberStore [8]Member

	// The start of the last line indexed and where its first members end, so that the next
	// line, when it starts with the same bytes (the lines of a stream mostly do: every update
	// begins with the same type and message id), resumes after them: the same bytes have
	// the same members, and validate the same.
	memo      [memoSize]byte
	marks     [maxMarks]mark
	markCount int
}

const (
	memoSize = 256 // bytes of a line's start remembered
	maxMarks = 8   // member ends remembered
)

// mark is the indexing state of a line where a top-level member has ended: at end, its
// next key starts.
type mark struct {
	end      int // where the next key starts
	members  int // members recorded before it
	typ      int
	sameKeys bool
	keys     uint64 // keyBits so far
	checks   int
}

// CheckObjectIndexed is CheckObject that also records line's top-level members in ix
// (reusing its storage). ix is valid while line is.
func CheckObjectIndexed(line []byte, ix *Index) error {
	if ix.keys == nil {
		ix.keys, ix.members = ix.keyStore[:0], ix.memberStore[:0]
	}
	ix.line, ix.keys, ix.members, ix.typ, ix.notes = nil, ix.keys[:0], ix.members[:0], -1, scanNotes{}
	if indexObject(line, ix) {
		ix.line = line
		return nil
	}
	ix.keys, ix.members = ix.keys[:0], ix.members[:0]
	return CheckObject(line) // says what is wrong
}

// indexObject validates line as one object, recording its members. (A single loop over
// the tokens with an explicit stack, instead of a call per value, was tried: Go keeps its
// state in memory across the jumps, and it ran a third slower.)
func indexObject(b []byte, ix *Index) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b)
	}
	var keys uint64 // keyBits of the keys so far
	checks := 0     // of keys whose bit was taken (see maxKeyChecks)
	marks := 1      // marks[0] would be the first key's start: nothing to skip
	if ix.markCount > 0 {
		if m, ok := ix.resume(b); ok {
			// The same start up to m.end; white space may follow it here and not there.
			i, keys, checks, marks = SkipSpace(b, m.end), m.keys, m.checks, m.members
		}
		ix.markCount = 0 // the memo is made again if the line is valid
	}
	for {
		if marks < maxMarks && i <= memoSize && len(ix.members) > 0 {
			ix.marks[marks] = mark{end: i, members: len(ix.members), typ: ix.typ,
				sameKeys: ix.notes.sameKeys, keys: keys, checks: checks}
			marks++
		}
		if i >= len(b) || b[i] != '"' {
			return false
		}
		keyStart := i
		var ok bool
		if i, ok = validString(b, i+1); !ok {
			return false
		}
		key := b[keyStart+1 : i-1]
		bit := keyBit(key)
		if keys&bit != 0 && !ix.notes.sameKeys {
			ix.notes.sameKeys = checks == maxKeyChecks
			for _, k := range ix.keys {
				ix.notes.sameKeys = ix.notes.sameKeys || string(k) == string(key)
			}
			checks++
		}
		keys |= bit
		if string(key) == "type" {
			ix.typ = len(ix.members)
		}
		if i < len(b) && b[i] == ':' {
			i++
		} else if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
			return false
		} else {
			i++
		}
		valStart := SkipSpace(b, i)
		if valStart < len(b) && b[valStart] == '"' {
			i, ok = validString(b, valStart+1)
		} else if end := plainInt(b, valStart); end > valStart {
			i, ok = end, true
		} else {
			i, ok = validValue(b, valStart, 1, &ix.notes)
		}
		if !ok {
			return false
		}
		ix.keys = append(ix.keys, key)
		ix.members = append(ix.members, Member{KeyStart: keyStart, ValStart: valStart, ValEnd: i})
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
			continue
		}
		if i = SkipSpace(b, i); i >= len(b) {
			return false
		}
		if b[i] == '}' {
			if SkipSpace(b, i+1) != len(b) {
				return false
			}
			ix.remember(b, marks)
			return true
		}
		if b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
}

// resume restores the state of the longest start b shares with the last line indexed, up
// to the end of one of its members, and returns its mark; ok is false when b shares no
// member with it.
func (ix *Index) resume(b []byte) (m mark, ok bool) {
	same := ix.marks[ix.markCount-1].end
	if same > len(b) || string(b[:same]) != string(ix.memo[:same]) { // all of it, most often
		same = commonPrefix(b, ix.memo[:same])
	}
	for k := ix.markCount - 1; k > 0; k-- { // marks[0] is the first key: nothing to skip
		if m = ix.marks[k]; m.end <= same {
			ix.members = ix.members[:m.members]
			ix.keys = ix.keys[:m.members]
			for j, mb := range ix.members {
				ix.keys[j] = b[mb.KeyStart+1 : mb.KeyStart+1+len(ix.keys[j])]
			}
			ix.typ, ix.notes.sameKeys = m.typ, m.sameKeys
			return m, true
		}
	}
	return m, false
}

// remember keeps the start of b, a valid line, and its first marks for the next line.
func (ix *Index) remember(b []byte, marks int) {
	if marks < 2 {
		return
	}
	copy(ix.memo[:], b[:ix.marks[marks-1].end])
	ix.markCount = marks
}

// commonPrefix is the length of the longest common start of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := word(a, i) ^ word(b, i); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// Type is the line's top-level "type" member (the last of duplicates), the zero Member when
// it has none.
func (ix *Index) Type() Member {
	if ix.typ < 0 || ix.typ >= len(ix.members) {
		return Member{}
	}
	return ix.members[ix.typ]
}

// Unambiguous reports that EachAmbiguity would find nothing in the indexed line, known
// without walking it: no object has two keys with the same fingerprint, so none has a key
// twice as written, and the line has neither a \u escape (without which there is no lone
// surrogate, nor two spellings of one character but for "/") nor a \/ escape (the other
// spelling of "/"), so keys written differently are different keys. False means the line
// must be walked.
func (ix *Index) Unambiguous() bool {
	return ix.line != nil && !ix.notes.sameKeys && !hasEscapeOf(ix.line, 'u', '/')
}

// hasEscapeOf reports whether the string bodies of line (valid JSON) have an escape \a or \b.
func hasEscapeOf(line []byte, a, b byte) bool {
	for i := 0; ; i += 2 { // past a backslash and the byte it escapes
		k := bytes.IndexByte(line[i:], '\\')
		if k < 0 {
			return false
		}
		if i += k; i+1 < len(line) && (line[i+1] == a || line[i+1] == b) {
			return true
		}
	}
}

// Indexed reports whether ix holds the members of line.
func (ix *Index) Indexed(line []byte) bool {
	return ix.line != nil && len(ix.line) == len(line) && len(line) > 0 && &ix.line[0] == &line[0]
}

// FindEach is codec.FindEach over the recorded members: of duplicate keys the last wins.
func (ix *Index) FindEach(keys []string, found []Member) {
	clear(found)
	for j, k := range ix.keys {
		for i, key := range keys {
			if len(k) == len(key) && (len(k) == 0 || k[0] == key[0]) && string(k) == key {
				found[i] = ix.members[j]
				break
			}
		}
	}
}
