package codec

import (
	"bytes"
	"math"
	"math/bits"
	"unsafe"
)

// Index lists the top-level members of a line, recorded while the line is validated, so
// that stages find the members they need without scanning the line a second time.
type Index struct {
	line    []byte
	keyLens []int32 // lengths of the raw key bodies, which start after members' KeyStart
	members []Member
	typ     int // index in members of the last "type", -1 when there is none
	notes   scanNotes

	// Room for the members of a typical event, so indexing one allocates nothing.
	keyStore    [8]int32
	memberStore [8]Member

	// The start of the last line indexed and where its first members end, so that the next
	// line, when it starts with the same bytes (the lines of a stream mostly do: every update
	// begins with the same type and message id), resumes after them: the same bytes have
	// the same members, and validate the same.
	memo      [memoSize]byte
	marks     [maxMarks]mark
	markCount int

	// The whole last line indexed, when it is short (prev is empty otherwise), so that a line
	// that repeats it but for the body of its last string value (the next delta of a block:
	// only its text changes) is checked by comparing bytes and crossing that one string.
	prev     []byte
	repeated bool // the line indexed last was found so
	count    int  // lines indexed, valid or not

	// What the last FindEach found while the members stay those of one line layout (a
	// repeated line has its members where the line before had them): the keys it was
	// asked for and the index of the member found for each, -1 for none.
	foundKeys [maxFound]string
	foundAt   [maxFound]int8
	foundN    int // 0 when nothing is remembered

	// Whether the line numbered escapesKnown (see Count) has a \u or \/ escape, which
	// Unambiguous asks, and whether it has one outside the body of its last string value.
	escapes, escapesAround bool
	escapesKnown           int
}

// maxFound is how many keys a FindEach may ask for to be remembered.
const maxFound = 8

const (
	memoSize = 256  // bytes of a line's start remembered
	maxMarks = 8    // member ends remembered
	prevSize = 4096 // longest line kept whole to compare the next with
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
	ix.count++
	ix.repeated = false
	if n, end := ix.repeatLength(line); n == len(line) {
		ix.repeatedAs(line, end)
		return nil
	}
	if ix.keyLens == nil {
		ix.keyLens, ix.members = ix.keyStore[:0], ix.memberStore[:0]
	}
	ix.line, ix.keyLens, ix.members, ix.typ, ix.notes = nil, ix.keyLens[:0], ix.members[:0], -1, scanNotes{}
	ix.prev, ix.foundN = ix.prev[:0], 0
	if indexObject(line, ix) {
		ix.line = line
		if len(line) <= prevSize && ix.notes.last.body > 0 {
			ix.prev = append(ix.prev, line...)
		}
		return nil
	}
	ix.keyLens, ix.members = ix.keyLens[:0], ix.members[:0]
	return CheckObject(line) // says what is wrong
}

// CheckRepeatedLine checks the line at the start of pending, input not yet split into lines,
// when it is the last line indexed but for the body of that line's last string value: it
// indexes it as CheckObjectIndexed would (Repeats is then true) and returns its length, up
// to the LF after it. Otherwise it returns 0 and leaves ix as it is. A reader that finds the
// line so need not look for its end: the bytes around the body are those of a line, and a
// string's body holds no LF.
func (ix *Index) CheckRepeatedLine(pending []byte) int {
	n, end := ix.repeatLength(pending)
	if n < 0 || n >= len(pending) || pending[n] != '\n' {
		return 0
	}
	ix.count++
	ix.repeatedAs(pending[:n], end)
	return n
}

// repeatLength finds a line at the start of p (a whole line, or input not yet split) that
// is the last line indexed (valid) but for the body of that line's last string value: every
// other byte is the same, so the line is valid if that body is. It returns the line's length
// and where the body ends in it, or -1 when p does not start with such a line.
func (ix *Index) repeatLength(p []byte) (n, end int) {
	old, last := ix.prev, ix.notes.last
	if len(old) == 0 || len(p) <= last.body || string(p[:last.body]) != string(old[:last.body]) {
		return -1, 0
	}
	after, ok := validString(p, last.body)
	tail := old[last.end:]
	n = after - 1 + len(tail)
	if !ok || n > len(p) || string(p[after-1:n]) != string(tail) {
		return -1, 0
	}
	return n, after - 1
}

// repeatedAs indexes b, found to be the last line indexed but for the body of its last
// string value, which ends at end in b: its members are the last line's, moved by the
// change of length.
func (ix *Index) repeatedAs(b []byte, end int) {
	last := &ix.notes.last
	moved := end - last.end
	for k := range ix.members {
		m := &ix.members[k]
		if m.KeyStart > last.body {
			m.KeyStart += moved
			m.ValStart += moved
		}
		if m.ValEnd > last.body {
			m.ValEnd += moved
		}
	}
	ix.prev = append(ix.prev[:last.body], b[last.body:]...)
	last.end = end
	ix.line, ix.repeated = b, true
}

// Repeats reports whether the line ix holds is the line indexed just before it in ix (see
// Count) but for the body of one string value, which ChangedString and Changed tell.
func (ix *Index) Repeats() bool { return ix.repeated }

// ChangedString names the string value whose body changed when Repeats: the key of its
// member (nil for an array element) and the number of containers around its container.
func (ix *Index) ChangedString() (key []byte, depth int) {
	last := ix.notes.last
	if last.key >= 0 {
		// The key's closing quote: before the value's opening quote, a colon and white space.
		end := skipSpaceBack(ix.line, skipSpaceBack(ix.line, last.body-1)-1) - 1
		key = ix.line[last.key+1 : end]
	}
	return key, last.depth
}

// ChangedValue is, when Repeats, the string value whose body changed, as a member of
// the container that holds it (KeyStart is -1 for an array element).
func (ix *Index) ChangedValue() Member {
	last := ix.notes.last
	return Member{KeyStart: last.key, ValStart: last.body - 1, ValEnd: last.end + 1}
}

// ChangedIn reports, when Repeats, whether the body that changed is in the value of the
// top-level member named key (the last of duplicates, as FindEach finds).
func (ix *Index) ChangedIn(key string) bool {
	j := len(ix.members) - 1 // the member the body is in: the last that starts before it
	for j >= 0 && ix.members[j].ValStart >= ix.notes.last.body {
		j--
	}
	if j < 0 || !ix.Changed(ix.members[j]) || string(ix.key(ix.line, j)) != key {
		return false
	}
	for k := j + 1; k < len(ix.members); k++ {
		if string(ix.key(ix.line, k)) == key {
			return false // a later member of that name is the one read
		}
	}
	return true
}

// Changed reports, when Repeats, whether the value of m, a member of the line, holds the
// body that changed; every other member is as it was in the line before.
func (ix *Index) Changed(m Member) bool {
	return m.ValStart < ix.notes.last.body && ix.notes.last.body < m.ValEnd
}

// key is the raw body of the key of member j of line b, the line indexed.
func (ix *Index) key(b []byte, j int) []byte {
	start := ix.members[j].KeyStart + 1
	return b[start : start+int(ix.keyLens[j])]
}

// Count is the number of lines CheckObjectIndexed has checked with ix: a caller that saw
// the line checked before (count one less) knows what Repeated compares with.
func (ix *Index) Count() int { return ix.count }

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
			for j := range ix.members {
				ix.notes.sameKeys = ix.notes.sameKeys || string(ix.key(b, j)) == string(key)
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
		if i, ok = validElem(b, valStart, keyStart, 0, &ix.notes); !ok {
			return false
		}
		ix.keyLens = append(ix.keyLens, int32(len(key)))
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
			ix.keyLens = ix.keyLens[:m.members]
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
	if ix.line == nil || ix.notes.sameKeys {
		return false
	}
	if ix.escapesKnown != ix.count {
		line, last := ix.line, ix.notes.last
		switch {
		case ix.repeated && ix.escapesKnown == ix.count-1:
			// The line before but for one string's body: what is around it is known.
		case last.body > 0:
			ix.escapesAround = hasEscapeOf(line[:last.body], 'u', '/') || hasEscapeOf(line[last.end:], 'u', '/')
		default:
			ix.escapesAround = hasEscapeOf(line, 'u', '/')
		}
		ix.escapes = ix.escapesAround || last.body > 0 && hasEscapeOf(line[last.body:last.end], 'u', '/')
		ix.escapesKnown = ix.count
	}
	return !ix.escapes
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
	if ix.foundAgain(keys) {
		for i, at := range ix.foundAt[:len(keys)] {
			found[i] = Member{}
			if at >= 0 {
				found[i] = ix.members[at]
			}
		}
		return
	}
	clear(found)
	remember := len(keys) <= maxFound && len(ix.members) <= math.MaxInt8
	if remember {
		for i := range keys {
			ix.foundAt[i] = -1
		}
	}
	for j := range ix.members {
		k := ix.key(ix.line, j)
		for i, key := range keys {
			if len(k) == len(key) && (len(k) == 0 || k[0] == key[0]) && string(k) == key {
				found[i] = ix.members[j]
				if remember {
					ix.foundAt[i] = int8(j)
				}
				break
			}
		}
	}
	ix.foundN = 0
	if remember {
		ix.foundN = copy(ix.foundKeys[:], keys)
	}
}

// foundAgain reports whether the last FindEach was asked for the very keys (the same
// strings, which cannot change) with the members where they are now.
func (ix *Index) foundAgain(keys []string) bool {
	if ix.foundN != len(keys) || ix.foundN == 0 {
		return false
	}
	for i, k := range keys {
		if len(k) != len(ix.foundKeys[i]) || unsafe.StringData(k) != unsafe.StringData(ix.foundKeys[i]) {
			return false
		}
	}
	return true
}
