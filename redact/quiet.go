package redact

import "bytes"

// Most pieces of a stream are words, digits, spaces and punctuation in which no rule can
// start: nextCandidateIn crosses them, but at a cost per piece that matters for pieces of a
// few bytes (a stream's deltas). quietStates answers the same question for such a piece
// with one table look-up a byte: an automaton over nextCandidateIn's own tables (candidate
// classes, justBefore, beforeSpaces, tellsNothing, afterValue, secretNameTail) whose state
// is just what nextCandidateIn reads of the bytes before a byte to tell that it is no
// candidate. Where it cannot tell (a rule's word at a word start, a symbol after a space, a
// byte after a separator, a second space...) it stops, and nextCandidateIn decides.

// quietState is what the automaton knows of the bytes before the next one.
type quietState struct {
	kind uint8 // quietWord, quietMute or quietSpace
	// after: a word may start after a single space after this byte and be no candidate
	// unless it is a rule's word (nextCandidateIn's afterSpaces case): the byte tells
	// nothing, or it ends a word in a letter that ends no secret's name with the one before.
	after bool
	// tail: for a word's letter that may be the first of secretNameTail's two, that letter
	// (lower case); else 0.
	tail byte
}

// The kinds of quietState: what the last byte is.
const (
	quietWord  = iota + 1 // a letter, digit or '_'
	quietMute             // another byte that tells nothing just before a value (justBefore)
	quietSpace            // a space or tab after a byte whose after is true
)

// quietStop is the state in which the automaton knows nothing: it stops there.
const quietStop = 0

// quietStates is the automaton for one candidates table: next is the state after a byte by
// the state before it (quietStop after a byte that may be a candidate, or that leaves too
// little known); context is the state after a byte of the text before a piece, where no
// byte is a candidate and quietStop means the bytes before are not known. A state's row
// starts at its number times 256.
type quietStates struct {
	next, context [quietRows * 256]uint8
}

// quietRows bounds the number of states (a power of two: masking a state with it keeps its
// row in the table without a bounds check).
const quietRows = 32

// The states' numbers: quietStop, then the words' by after and tail, the mute bytes' by
// after, and the space.
const (
	quietWords     = 1
	quietMutes     = quietWords + 2*len(nameTailFirsts)
	quietSpaceRow  = quietMutes + 2
	numQuietStates = quietSpaceRow + 1
	// quietStart is the state at the start of a text: as after a byte that tells nothing
	// (nextCandidateIn at 0 takes only a rule's word for a candidate).
	quietStart = quietMutes
)

// nameTailFirsts lists the letters that may be the first of secretNameTail's two, after
// 0 for none: a word state's tail.
var nameTailFirsts = [...]byte{0, 'r', 'w', 's', 'e', 'a', 'l'}

// number is the state's number.
func (s quietState) number() int {
	b := 0
	if s.after {
		b = 1
	}
	switch s.kind {
	case quietWord:
		for i, t := range nameTailFirsts {
			if t == s.tail {
				return quietWords + 2*i + b
			}
		}
	case quietMute:
		return quietMutes + b
	case quietSpace:
		return quietSpaceRow
	}
	return quietStop
}

// newQuietStates builds the automaton of the candidates table t (Redactor.candidates or
// rawCandidates).
func newQuietStates(t *[256]uint8) *quietStates {
	states := make([]quietState, numQuietStates)
	for i, tail := range nameTailFirsts {
		states[quietWords+2*i] = quietState{kind: quietWord, tail: tail}
		states[quietWords+2*i+1] = quietState{kind: quietWord, after: true, tail: tail}
	}
	states[quietMutes] = quietState{kind: quietMute}
	states[quietMutes+1] = quietState{kind: quietMute, after: true}
	states[quietSpaceRow] = quietState{kind: quietSpace}
	number := func(s quietState, ok bool) uint8 {
		if !ok {
			return quietStop
		}
		return uint8(s.number())
	}
	q := new(quietStates)
	for i, s := range states {
		for c := range 256 {
			k := t[c]
			if i != quietStop && !quietCandidate(s, k) {
				q.next[i<<8|c] = number(quietAfter(s, byte(c), k))
			}
			q.context[i<<8|c] = number(quietAfter(s, byte(c), k))
		}
	}
	return q
}

// quietCandidate reports whether a byte of candidate class k may be a candidate after the
// bytes of state s (not quietStop), as nextCandidateIn decides.
func quietCandidate(s quietState, k uint8) bool {
	switch {
	case k == candAlways:
		return true
	case inWord(k):
		// Inside a word nothing starts. At a word start after a byte that tells nothing, or
		// after a single space after one whose after holds, only a rule's word.
		return s.kind != quietWord && k == candRuleWord
	case k == candSymbol:
		// Just after a separator: of the bytes the states stand for, only a space is one.
		return s.kind == quietSpace
	}
	return false
}

// quietAfter is the state after byte c, of candidate class k, after the bytes of state s
// (quietStop: not known), and false when no state holds what nextCandidateIn would need.
func quietAfter(s quietState, c byte, k uint8) (quietState, bool) {
	if inWord(k) {
		n := quietState{kind: quietWord, after: tellsNothing[c]}
		if s != (quietState{}) && !n.after && beforeSpaces[c] == afterNameEnd {
			// Before the spaces, the last two letters of a word tell (precededBy): the byte
			// before c is known, a letter of s.tail or none that may begin secretNameTail's.
			n.after = !secretNameTail(s.tail, c)
		}
		if l := c | 0x20; l >= 'a' && l <= 'z' && bytes.IndexByte(nameTailFirsts[1:], l) >= 0 {
			n.tail = l
		}
		return n, true
	}
	switch justBefore[c] {
	case afterSpaces:
		return quietState{kind: quietSpace}, s.after
	case afterNothing:
		return quietState{kind: quietMute, after: tellsNothing[c]}, !afterValue[c]
	}
	return quietState{}, false
}

// contextBytes is how many bytes before a piece decide its first state: the state after a
// byte depends on the one before it (a word's last two letters), and a space's on the two
// before it.
const contextBytes = 3

// start is the state after context, the text before a piece.
func (q *quietStates) start(context []byte) uint8 {
	if len(context) == 0 {
		return uint8(quietStart)
	}
	s := uint8(quietStop)
	for _, c := range context[max(0, len(context)-contextBytes):] {
		s = q.context[int(s&(quietRows-1))<<8|int(c)]
	}
	return s
}

// run crosses piece from state s and returns the state after it, or quietStop where it
// stops: a state other than quietStop says that nextCandidateIn, with the table the
// automaton was built for, finds no candidate in piece after bytes of state s (quietStop
// says nothing).
func (q *quietStates) run(s uint8, piece []byte) uint8 {
	// The state is kept as the start of its row; the mask proves the index in the table.
	next := &q.next
	row := uint(s) << 8
	for _, c := range piece {
		if row = uint(next[(row|uint(c))&(quietRows*256-1)]) << 8; row == 0 {
			break
		}
	}
	return uint8(row >> 8)
}

// quiet reports that the automaton crosses piece after context (see run).
func (q *quietStates) quiet(context, piece []byte) bool {
	return q.run(q.start(context), piece) != quietStop
}
