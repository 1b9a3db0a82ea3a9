package codec

import (
	"bytes"
	"math"
	"math/bits"
	"unicode/utf8"
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
	// marksUpTo: only the marks up to it hold, where a line since found to repeat the line
	// before started to differ from it (the members after it have moved).
	marksUpTo int

	// The whole last line indexed, when it is short (prev is empty otherwise), so that a line
	// that repeats it but for the bodies of some of its string values is checked by comparing
	// bytes and crossing the new parts of those strings: the next delta of a block (only the
	// body of its last string value changes) and the next update of the full form (its delta
	// and the texts of its two snapshots change) come so.
	prev        []byte
	prevBodies  bool     // notes.bodies lists every string value of prev (the last as notes.last)
	lastMember  int      // the member that holds prev's last string value: the first a change of it moves
	repeated    bool     // the line indexed last was found so
	changes     []change // when repeated: the string values whose bodies changed, in order
	next        []change // where repeatStrings lists them before they are the line's
	guesses     []int    // where the next line is likely to differ from the last (a guess only)
	lastOnly    bool     // when repeated: the only change is that of the last string value's body (changes is not made)
	lastWas     int      // then where the last string value's closing quote was in the line before
	count       int      // lines indexed, valid or not
	changeStore [2][4]change

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
	memoSize = 256 // bytes of a line's start remembered
	maxMarks = 8   // member ends remembered
	// prevSize is the longest line kept whole, when validated by a scan, to compare the next
	// with: a full-form update is ~10 KB. Keeping one costs a copy, a small part of what
	// the scan cost; a line found to repeat it is kept whatever its length.
	prevSize = 64 << 10
)

// change is a string value of a repeated line whose body is not that of the line before:
// where it is in the line (body, end, key and depth), where in its body it starts to differ
// (from: a character's start, outside any escape, the bytes before it those of the line
// before), where its closing quote was in the line before (was), and its index in notes.bodies.
type change struct {
	stringValue
	from, was, k int
}

// mark is the indexing state of a line where a top-level member has ended: at end, its
// next key starts.
type mark struct {
	end      int // where the next key starts
	members  int // members recorded before it
	typ      int
	sameKeys bool
	keys     uint64 // keyBits so far
	checks   int
	bodies   int         // string values recorded before it, -1 when they were not recorded
	last     stringValue // the last string value before it
}

// CheckObjectIndexed is CheckObject that also records line's top-level members in ix
// (reusing its storage). ix is valid while line is.
func CheckObjectIndexed(line []byte, ix *Index) error {
	ix.count++
	ix.repeated = false
	if ix.repeatLast(line, false) > 0 {
		return nil
	}
	if ix.repeatStrings(line, false) == len(line) {
		ix.stringsRepeatedAs(line)
		return nil
	}
	if ix.keyLens == nil {
		ix.keyLens, ix.members = ix.keyStore[:0], ix.memberStore[:0]
	}
	ix.line, ix.keyLens, ix.members, ix.typ = nil, ix.keyLens[:0], ix.members[:0], -1
	ix.notes = scanNotes{bodies: ix.notes.bodies[:0], record: len(line) <= prevSize}
	ix.prev, ix.prevBodies, ix.changes, ix.guesses, ix.foundN = ix.prev[:0], false, ix.changes[:0], ix.guesses[:0], 0
	if indexObject(line, ix) {
		ix.line = line
		if len(line) <= prevSize && ix.notes.last.body > 0 {
			ix.prev = append(ix.prev, line...)
			ix.prevBodies = ix.notes.record
			ix.lastMember = len(ix.members) - 1
			for ix.lastMember > 0 && ix.members[ix.lastMember].ValStart >= ix.notes.last.body {
				ix.lastMember--
			}
		}
		return nil
	}
	ix.keyLens, ix.members = ix.keyLens[:0], ix.members[:0]
	return CheckObject(line) // says what is wrong
}

// CheckRepeatedLine checks the line at the start of pending, input not yet split into lines,
// when it is the last line indexed but for the bodies of some of its string values: it
// indexes it as CheckObjectIndexed would (RepeatsStrings is then true) and returns its
// length, up to the LF after it. Otherwise it returns 0 and leaves ix as it is. A reader
// that finds the line so need not look for its end: the bytes around the bodies are those
// of a line, and a string's body holds no LF.
func (ix *Index) CheckRepeatedLine(pending []byte) int {
	if n := ix.repeatLast(pending, true); n > 0 {
		ix.count++
		return n
	}
	if n := ix.repeatStrings(pending, true); n > 0 {
		ix.count++
		ix.stringsRepeatedAs(pending[:n])
		return n
	}
	return 0
}

// repeatLast finds a line at the start of p (a whole line, or with pending input not yet
// split, followed by an LF) that is the last line indexed (valid) but for the body of that
// line's last string value: every other byte is the same, so the line is valid if that body
// is. It indexes it (its members are the last line's, moved by the change of length) and
// returns its length, or returns -1 and leaves ix as it is when p does not start with such
// a line. (One function, not a check and an indexing, for the next delta of a block: most
// lines of the delta form.)
func (ix *Index) repeatLast(p []byte, pending bool) int {
	old, last := ix.prev, ix.notes.last
	if len(old) == 0 || len(p) <= last.body || string(p[:last.body]) != string(old[:last.body]) {
		return -1
	}
	after, ok := validString(p, last.body)
	tail := old[last.end:]
	n := after - 1 + len(tail)
	if !ok || n > len(p) || string(p[after-1:n]) != string(tail) {
		return -1
	}
	if pending {
		if n == len(p) || p[n] != '\n' {
			return -1
		}
	} else if n != len(p) {
		return -1
	}
	ix.lastRepeatedAs(p[:n], after-1, last.end)
	return n
}

// sameShort is string(a) == string(b) for a and b of the same length, mostly a few bytes (the
// end of a line after its delta), where a loop costs less than the runtime's comparison.
func sameShort(a, b []byte) bool {
	if len(a) > 16 {
		return string(a) == string(b)
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hasEscapeShort is hasEscapeOf(body, 'u', '/') for a body of mostly a few bytes (a delta).
func hasEscapeShort(body []byte) bool {
	if len(body) > 16 {
		return hasEscapeOf(body, 'u', '/')
	}
	for i, c := range body {
		if c == '\\' {
			return hasEscapeOf(body[i:], 'u', '/')
		}
	}
	return false
}

// lastRepeatedAs indexes b, found to be the last line indexed but for the body of its last
// string value, now closed by the quote at end (at was in the line before b): its members are
// the last line's, those after that body moved by the change of its length.
func (ix *Index) lastRepeatedAs(b []byte, end, was int) {
	last := ix.notes.last
	moved := end - last.end
	for k := ix.lastMember; k < len(ix.members); k++ {
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
	if last.body < ix.marksUpTo {
		ix.marksUpTo = last.body
	}
	ix.lastWas, ix.notes.last.end = was, end // notes.bodies is brought up to date when it is read
	ix.line, ix.repeated, ix.lastOnly = b, true, true
}

// RepeatLastRun is CheckRepeatedLine over a run of lines: it checks the lines at the start of
// pending that each repeat the line before but for the body of its last string value (as
// repeatLast finds them, each followed by an LF), and stops before the first that does not,
// or whose new body has a \u or \/ escape: the escapes that can make a line ambiguous, so
// that Unambiguous stays known for the lines of the run without walking them. ix then holds
// the last of them, as if each had been checked in turn; RepeatLastRun returns the bytes they
// take, LFs included, and how many they are. (The next deltas of a block come so: most lines
// of the delta form, which a stage that passes them as they come need not see one by one.)
// With accept, the run also ends before the first line whose new string value (as written,
// quotes included) accept refuses; accept is asked of each line in turn.
func (ix *Index) RepeatLastRun(pending []byte, accept func(str []byte) bool) (n, lines int) {
	old, last := ix.prev, ix.notes.last
	if len(old) == 0 || last.body == 0 {
		return 0, 0
	}
	// Every line of the run has the last line's bytes before the body and after it.
	prefix, tail := old[:last.body], old[last.end:]
	at, end, was := 0, last.end, last.end // the last line of the run so far, its quote, the one before's
	for {
		p := pending[n:]
		if len(p) <= len(prefix) || string(p[:len(prefix)]) != string(prefix) {
			break
		}
		after, ok := validString(p, len(prefix))
		quote := after - 1
		k := quote + len(tail)
		if !ok || k >= len(p) || p[k] != '\n' || !sameShort(p[quote:k], tail) || hasEscapeShort(p[len(prefix):quote]) ||
			accept != nil && !accept(p[len(prefix)-1:after]) {
			break
		}
		at, was, end = n, end, quote
		n += k + 1
		lines++
	}
	if lines == 0 {
		return 0, 0
	}
	if ix.escapesKnown == ix.count { // those around the body, the same in every line of the run
		ix.escapes, ix.escapesKnown = ix.escapesAround, ix.count+lines
	}
	ix.count += lines
	ix.lastRepeatedAs(pending[at:n-1], end, was)
	return n, lines
}

// repeatStrings finds a line at the start of p (a whole line, or with pending input not yet
// split, followed by an LF) that is the last line indexed (valid) but for the bodies of some
// of its string values, each new body valid: the same bytes with the same meaning, and valid
// strings where they were. It returns the line's length, with its changes in ix.next, or -1
// when p does not start with such a line.
//
// The lines are compared from the start; where they first differ must be in (or at the end
// of) the body of a string value of the last line. From the start of the character or escape
// there, the new line's string is validated up to its closing quote, and the comparison goes
// on after the two closing quotes: and so on until both lines end together.
func (ix *Index) repeatStrings(p []byte, pending bool) int {
	old, bodies := ix.prev, ix.notes.bodies
	if len(old) == 0 || !ix.prevBodies {
		return -1
	}
	bodies[len(bodies)-1] = ix.notes.last // not kept up to date by repeatLast
	if ix.next == nil {
		ix.changes, ix.next = ix.changeStore[0][:0], ix.changeStore[1][:0]
	}
	ch := ix.next[:0]
	i, k, shift, g := 0, 0, 0, 0 // i: a place in old, i+shift in p, the same before it
	for {
		// Where the line before differed from its own line before, most lines differ
		// again (the same texts grow): the bytes up to there are compared at once.
		for g < len(ix.guesses) && ix.guesses[g] <= i {
			g++
		}
		if g < len(ix.guesses) {
			if c := ix.guesses[g]; c <= len(old) && c+shift <= len(p) && string(p[i+shift:c+shift]) == string(old[i:c]) {
				i = c
			}
		}
		if i += samePrefix(p[i+shift:], old[i:]); i >= len(old) {
			break
		}
		if i+shift >= len(p) {
			return -1
		}
		for k < len(bodies) && bodies[k].end < i {
			k++
		}
		if k == len(bodies) || bodies[k].body > i {
			return -1 // not in a string's body
		}
		v := bodies[k]
		from := safeStart(old, v.body, i)
		after, ok := validString(p, from+shift)
		if !ok {
			return -1
		}
		key := v.key
		if key >= 0 {
			key += shift
		}
		end := after - 1 // its closing quote
		ch = append(ch, change{stringValue: stringValue{body: v.body + shift, end: end, key: key, depth: v.depth},
			from: from + shift, was: v.end, k: k})
		shift = end - v.end
		k++
		i = v.end // the closing quotes, the same
	}
	ix.next = ch // kept for its storage even when not used
	n := len(old) + shift
	if len(ch) == 0 || pending && (n >= len(p) || p[n] != '\n') || !pending && n != len(p) {
		return -1
	}
	return n
}

// stringsRepeatedAs indexes b, found by repeatStrings to be the last line indexed but for
// the bodies of the string values it listed in ix.next: its members and string values are
// the last line's, moved by the changes of length before them.
func (ix *Index) stringsRepeatedAs(b []byte) {
	ix.changes, ix.next = ix.next, ix.changes
	ch := ix.changes
	first := ch[0].from // the lines are the same before it
	ix.guesses = ix.guesses[:0]
	for _, c := range ch { // a text that changed from its start, or grew
		if c.from == c.body {
			ix.guesses = append(ix.guesses, c.body)
		} else {
			ix.guesses = append(ix.guesses, c.end)
		}
	}
	c, moved := 0, 0
	for j := range ix.members {
		m := &ix.members[j]
		for ; c < len(ch) && ch[c].was < m.KeyStart; c++ {
			moved = ch[c].end - ch[c].was
		}
		m.KeyStart += moved
		m.ValStart += moved
		for ; c < len(ch) && ch[c].was < m.ValEnd; c++ {
			moved = ch[c].end - ch[c].was
		}
		m.ValEnd += moved
	}
	bodies := ix.notes.bodies
	c, moved = 0, 0
	for k := ch[0].k; k < len(bodies); k++ {
		if c < len(ch) && ch[c].k == k {
			bodies[k] = ch[c].stringValue
			moved = ch[c].end - ch[c].was
			c++
			continue
		}
		v := &bodies[k]
		v.body += moved
		v.end += moved
		if v.key >= 0 {
			v.key += moved
		}
	}
	ix.notes.last = bodies[len(bodies)-1]
	ix.prev = append(ix.prev[:first], b[first:]...)
	ix.marksUpTo = min(ix.marksUpTo, first)
	ix.line, ix.repeated, ix.lastOnly = b, true, false
}

// safeStart backs i, a position in the string body that starts at body in b (valid), up to
// a place where a body may be validated from: the start of a character, outside any escape.
func safeStart(b []byte, body, i int) int {
	for i > body && b[i-1] >= utf8.RuneSelf {
		if i--; b[i] >= 0xc0 { // the first byte of a multi-byte character
			break
		}
	}
	// An escape is at most 6 bytes long: with no backslash in the 5 bytes before it, i is not
	// inside one. Otherwise the earliest of those backslashes is not inside one either
	// unless another is before it.
	for {
		k := max(body, i-5)
		for k < i && b[k] != '\\' {
			k++
		}
		if k == i {
			return i
		}
		i = k
	}
}

// samePrefix is commonPrefix for long lines: equal blocks are crossed by the runtime's
// comparison, many bytes at a time.
func samePrefix(a, b []byte) int {
	n := min(len(a), len(b))
	if n >= 8 { // most often where a guess (see repeatStrings) led: they differ at once
		if x := word(a, 0) ^ word(b, 0); x != 0 {
			return bits.TrailingZeros64(x) >> 3
		}
	}
	i := 0
	for i+1024 <= n && string(a[i:i+1024]) == string(b[i:i+1024]) {
		i += 1024
	}
	for i+64 <= n && string(a[i:i+64]) == string(b[i:i+64]) {
		i += 64
	}
	return i + commonPrefix(a[i:n], b[i:n])
}

// Repeats reports whether the line ix holds is the line indexed just before it in ix (see
// Count) but for the body of one string value, which ChangedString and Changed tell.
func (ix *Index) Repeats() bool { return ix.repeated && (ix.lastOnly || len(ix.changes) == 1) }

// RepeatsStrings reports whether the line ix holds is the line indexed just before it in ix
// but for the bodies of one or more string values, which Changes, ChangedStringAt,
// ChangedValueAt, Changed and ChangedIn tell, and Moved follows.
func (ix *Index) RepeatsStrings() bool { return ix.repeated }

// Changes is the number of string values whose bodies changed, when RepeatsStrings.
func (ix *Index) Changes() int {
	if ix.lastOnly {
		return 1
	}
	return len(ix.changes)
}

// ChangedString names the string value whose body changed when Repeats: the key of its
// member (nil for an array element) and the number of containers around its container.
func (ix *Index) ChangedString() (key []byte, depth int) { return ix.ChangedStringAt(0) }

// ChangedStringAt is ChangedString for the string value whose body changed i-th in the line.
func (ix *Index) ChangedStringAt(i int) (key []byte, depth int) {
	c := &ix.notes.last
	if !ix.lastOnly {
		c = &ix.changes[i].stringValue
	}
	if c.key >= 0 {
		// The key's closing quote: before the value's opening quote, a colon and white space.
		end := skipSpaceBack(ix.line, skipSpaceBack(ix.line, c.body-1)-1) - 1
		key = ix.line[c.key+1 : end]
	}
	return key, c.depth
}

// ChangedValue is, when Repeats, the string value whose body changed, as a member of
// the container that holds it (KeyStart is -1 for an array element).
func (ix *Index) ChangedValue() Member { return ix.ChangedValueAt(0) }

// ChangedValueAt is ChangedValue for the string value whose body changed i-th in the line.
func (ix *Index) ChangedValueAt(i int) Member {
	c := &ix.notes.last
	if !ix.lastOnly {
		c = &ix.changes[i].stringValue
	}
	return Member{KeyStart: c.key, ValStart: c.body - 1, ValEnd: c.end + 1}
}

// ChangedIn reports, when RepeatsStrings, whether a body that changed is in the value of
// the top-level member named key (the last of duplicates, as FindEach finds).
func (ix *Index) ChangedIn(key string) bool {
	for j := len(ix.members) - 1; j >= 0; j-- {
		if string(ix.key(ix.line, j)) == key {
			return ix.Changed(ix.members[j])
		}
	}
	return false
}

// Changed reports, when RepeatsStrings, whether the value of m, a member of the line (or
// of a value in it), holds a body that changed; every other member is as it was in the
// line before, moved (see Moved).
func (ix *Index) Changed(m Member) bool {
	if ix.lastOnly {
		return m.ValStart < ix.notes.last.body && ix.notes.last.body < m.ValEnd
	}
	return ix.changedIn(m)
}

func (ix *Index) changedIn(m Member) bool {
	for _, c := range ix.changes {
		if m.ValStart < c.body && c.body < m.ValEnd {
			return true
		}
	}
	return false
}

// Moved is, when RepeatsStrings, where the byte at pos in the line before is in this one:
// pos moved by the changes of length before it. pos must not be inside a changed body.
func (ix *Index) Moved(pos int) int {
	if ix.lastOnly {
		if ix.lastWas <= pos {
			return pos + ix.notes.last.end - ix.lastWas
		}
		return pos
	}
	for k := len(ix.changes) - 1; k >= 0; k-- {
		if c := ix.changes[k]; c.was <= pos {
			return pos + c.end - c.was
		}
	}
	return pos
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
			if m.bodies < 0 {
				ix.notes.record = false // the members taken as they are have no list of strings
			}
			// The same start up to m.end; white space may follow it here and not there.
			i, keys, checks, marks = SkipSpace(b, m.end), m.keys, m.checks, m.members
		}
		ix.markCount = 0 // the memo is made again if the line is valid
	}
	for {
		if marks < maxMarks && i <= memoSize && len(ix.members) > 0 {
			ix.marks[marks] = mark{end: i, members: len(ix.members), typ: ix.typ,
				sameKeys: ix.notes.sameKeys, keys: keys, checks: checks, bodies: -1, last: ix.notes.last}
			if ix.notes.record {
				ix.marks[marks].bodies = len(ix.notes.bodies)
			}
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
	same = min(same, ix.marksUpTo)
	for k := ix.markCount - 1; k > 0; k-- { // marks[0] is the first key: nothing to skip
		if m = ix.marks[k]; m.end <= same {
			ix.members = ix.members[:m.members]
			ix.keyLens = ix.keyLens[:m.members]
			if m.bodies >= 0 && ix.notes.record {
				ix.notes.bodies = ix.notes.bodies[:m.bodies]
			}
			ix.typ, ix.notes.sameKeys, ix.notes.last = m.typ, m.sameKeys, m.last
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
	ix.markCount, ix.marksUpTo = marks, len(b)
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

// LastStringAt is where the last string value of the indexed line starts (its opening
// quote), -1 when none is known: the string whose body a line found by RepeatLastRun changes.
func (ix *Index) LastStringAt() int {
	if len(ix.prev) == 0 || ix.notes.last.body == 0 {
		return -1
	}
	return ix.notes.last.body - 1
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
		case ix.repeated && ix.lastOnly && ix.escapesKnown == ix.count-1:
			// The line before but for its last string's body: what is around it is known.
		case ix.repeated && ix.escapesKnown == ix.count-1 && !ix.escapes:
			// The line before had none: only the new parts of the changed bodies may.
			ix.escapes, ix.escapesAround = false, false
			for _, c := range ix.changes {
				if hasEscapeOf(line[c.from:c.end], 'u', '/') {
					ix.escapes = true
					ix.escapesAround = ix.escapesAround || c.body != last.body
				}
			}
			ix.escapesKnown = ix.count
			return !ix.escapes
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
