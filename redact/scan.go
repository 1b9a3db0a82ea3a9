// Package redact is the redaction engine: the built-in rules, the user's patterns and
// literals, the scanner that finds them in text (whole or arriving in pieces), and the
// walkers that apply it to encoded JSON without re-encoding what they do not change. It
// knows JSON and the stream's content blocks, not the stream: the stage over frames is
// stages.Redact; the session file, the tools' outputs and text mode's answer use the
// engine directly. It imports only codec.
package redact

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/basecontext/base-context/internal/candidates"
)

// Redactor holds a compiled rule set: the built-in rules chosen, --pattern regexps and
// literal values. It is immutable once built (apart from its counters) and shared by the
// stage, the session writer and every stream.
type Redactor struct {
	on       [numBuiltinRules]bool
	ids      []string // rule index → id; built-ins first, then patterns, then literals
	markers  [][]byte // rule index → "[REDACTED:<id>]"
	patterns []*userPattern
	literals []literal
	maxLit   int
	// The first byte and the first two bytes of each literal (all at least MinLiteral long).
	literalFirst [256]bool
	literalPairs *bytePairs
	counts       []atomic.Int64
	// minText is the length below which no rule can match a whole string.
	minText int
	// wordsSafe: a string shorter than minToken made of letters and '_' alone cannot match
	// (no --pattern, no short literal), as member names and enumerations are.
	wordsSafe bool
	// builtinOnly: no --pattern, no literal; only the built-in rules can match.
	builtinOnly bool
	// candidates classes each byte for nextCandidate; rawCandidates also stops at a
	// backslash, for the body of a JSON string that may hold escapes.
	candidates, rawCandidates [256]uint8
	// textQuiet and rawQuiet are the automata of quietStates for those tables.
	textQuiet, rawQuiet *quietStates
}

// minToken is the shortest built-in match without a digit, ':' or '.': a token (AKIA and
// 16 more); every shorter match (assignments, bearer tokens, URLs, JWTs) has one of them.
const minToken = 20

// minBuiltinMatch is the shortest text a built-in rule can match: a generic value of 8
// bytes (or a member's value of 8); every token, URL and header is longer.
const minBuiltinMatch = 8

type literal struct {
	value []byte
	rule  int
}

// Literal is a value to redact wherever it occurs, under its own rule id.
type Literal struct {
	ID    string
	Value string
}

// Options chooses the rules of a Redactor.
type Options struct {
	// Rules names the built-in rules to use; nil means all of them.
	Rules []string
	// NoDefaultRules uses no built-in rule (Rules is then ignored).
	NoDefaultRules bool
	// Patterns are regular expressions (Go syntax), each its own rule pattern-1, pattern-2, ….
	Patterns []string
	// Literals are exact values.
	Literals []Literal
}

// PatternError is a user pattern New cannot use; the caller names the option it
// came from.
type PatternError struct {
	Pattern string
	Err     error
}

func (e *PatternError) Error() string { return fmt.Sprintf("pattern %q: %v", e.Pattern, e.Err) }
func (e *PatternError) Unwrap() error { return e.Err }

// MinLiteral is the shortest literal value accepted: shorter ones would redact ordinary text.
const MinLiteral = 4

// New compiles the options.
func New(opts Options) (*Redactor, error) {
	r := &Redactor{}
	for i := range builtinRules {
		r.ids = append(r.ids, builtinRules[i].ID)
	}
	switch {
	case opts.NoDefaultRules:
	case opts.Rules == nil:
		for i := range r.on {
			r.on[i] = true
		}
	default:
		for _, id := range opts.Rules {
			k := slices.Index(r.ids[:numBuiltinRules], id)
			if k < 0 {
				return nil, fmt.Errorf("unknown rule %q (the rules are: %s)", id, candidates.Join(r.ids[:numBuiltinRules]))
			}
			r.on[k] = true
		}
	}
	for i, p := range opts.Patterns {
		up, err := compilePattern(p)
		if err != nil {
			return nil, &PatternError{Pattern: p, Err: err}
		}
		up.rule = len(r.ids)
		r.ids = append(r.ids, fmt.Sprintf("pattern-%d", i+1))
		r.patterns = append(r.patterns, up)
	}
	seen := map[string]int{}
	for _, l := range opts.Literals {
		if len(l.Value) < MinLiteral {
			return nil, fmt.Errorf("%s: a value to redact must be at least %d bytes long", l.ID, MinLiteral)
		}
		rule, ok := seen[l.ID]
		if !ok {
			rule = len(r.ids)
			seen[l.ID] = rule
			r.ids = append(r.ids, l.ID)
		}
		r.literals = append(r.literals, literal{value: []byte(l.Value), rule: rule})
		if r.literalPairs == nil {
			r.literalPairs = new(bytePairs)
		}
		r.literalFirst[l.Value[0]] = true
		r.literalPairs.add(l.Value[0], l.Value[1])
		r.maxLit = max(r.maxLit, len(l.Value))
	}
	// Longer literals first, so that of two starting at one place the longer wins.
	sort.SliceStable(r.literals, func(a, b int) bool { return len(r.literals[a].value) > len(r.literals[b].value) })
	for _, id := range r.ids {
		r.markers = append(r.markers, []byte("[REDACTED:"+id+"]"))
	}
	r.counts = make([]atomic.Int64, len(r.ids))
	r.minText = minBuiltinMatch
	for _, l := range r.literals {
		r.minText = min(r.minText, len(l.value))
	}
	if len(r.patterns) > 0 {
		r.minText = 1
	}
	r.builtinOnly = len(r.patterns) == 0 && len(r.literals) == 0
	r.candidates = r.candidateClasses()
	r.rawCandidates = r.candidates
	r.rawCandidates['\\'] = candAlways
	r.textQuiet, r.rawQuiet = newQuietStates(&r.candidates), newQuietStates(&r.rawCandidates)
	r.wordsSafe = len(r.patterns) == 0 && (len(r.literals) == 0 || r.minText >= minToken)
	for _, id := range r.ids {
		if !validID(id) {
			return nil, fmt.Errorf("rule id %q: use letters, digits and _ . : - only", id)
		}
	}
	return r, nil
}

// validID: markers are written into JSON strings as they are, so ids need no escaping.
func validID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !alnum[c] && c != '_' && c != '.' && c != ':' && c != '-' {
			return false
		}
	}
	return true
}

// RuleCount is how many redactions one rule made.
type RuleCount struct {
	ID    string
	Count int64
}

// Counts returns the redactions made so far per rule, in rule order, rules with none left
// out.
func (r *Redactor) Counts() []RuleCount {
	var out []RuleCount
	for i := range r.counts {
		if n := r.counts[i].Load(); n > 0 {
			out = append(out, RuleCount{r.ids[i], n})
		}
	}
	return out
}

// scanState is what a stream carries from one piece of text to the next, besides the text
// it holds back: whether it is inside a token or key block being swallowed.
type scanState struct {
	mode     uint8
	swallow  *charClass
	keyValue int  // the string is the value of a member whose name has this kind
	started  bool // false until the first byte of the string was consumed
}

// judgingWhole: the string is a member's value that is judged whole from its first byte,
// which has not been scanned yet.
func (st *scanState) judgingWhole() bool { return st.keyValue != kindNone && !st.started }

const (
	modeNormal = iota
	modeSwallow
	modeKeyBlock
)

// span is a piece of the scanned text to drop, replaced by the rule's marker unless silent.
type span struct {
	start, end int
	rule       int
	silent     bool
}

// scan redacts w[base:], where w[:base] is context (text before, already released). It
// returns the spans to drop and cut: w[base:cut] is final and may be released, w[cut:] must
// be held back until more text arrives. With atEOF, cut is len(w).
func (r *Redactor) scan(w []byte, base int, atEOF bool, st *scanState, spans []span) ([]span, int) {
	if r.quiet(w, base, st) {
		return spans, len(w) // no rule can start in the text: most pieces of a stream
	}
	return r.scanAll(w, base, atEOF, st, spans)
}

// quiet reports that no rule can start in w[base:], w[:base] being its context, in state
// st: the scan of it redacts nothing and holds nothing back.
func (r *Redactor) quiet(w []byte, base int, st *scanState) bool {
	return st.mode == modeNormal && !st.judgingWhole() && r.quietFrom(w, base, &r.candidates)
}

// quietFrom is quiet for a scanner between matches, with the candidates table t:
// r.candidates, or r.rawCandidates for w[base:] the body of a JSON string as encoded, so
// that it is also false where the body holds an escape (and when true the body is its
// decoded text).
func (r *Redactor) quietFrom(w []byte, base int, t *[256]uint8) bool {
	return nextCandidateIn(w, base, t) == len(w) && (r.builtinOnly || !r.literalFrom(w, base) && !r.patternFrom(w, base))
}

// scanAll is scan, trying every rule where it may start.
func (r *Redactor) scanAll(w []byte, base int, atEOF bool, st *scanState, spans []span) ([]span, int) {
	pos := base
	var cache hitCache
	for pos < len(w) {
		switch st.mode {
		case modeSwallow:
			e := pos
			for e < len(w) && st.swallow[w[e]] {
				e++
			}
			if e > pos {
				spans = append(spans, span{start: pos, end: e, silent: true})
			}
			if e == len(w) && !atEOF {
				return spans, e
			}
			st.mode, pos = modeNormal, e
		case modeKeyBlock:
			end, hold := keyBlockEnd(w, pos, atEOF)
			if end < 0 {
				if hold > pos {
					spans = append(spans, span{start: pos, end: hold, silent: true})
				}
				return spans, hold
			}
			spans = append(spans, span{start: pos, end: end, silent: true})
			st.mode, pos = modeNormal, end
		default:
			h := cache.next(r, w, pos, base, atEOF, st)
			switch h.status {
			case noMatch:
				return spans, len(w)
			case needMore:
				if !atEOF {
					return spans, h.start
				}
				pos = h.start + 1 // cannot happen: at the end of the text nothing needs more
				continue
			}
			r.counts[h.rule].Add(1)
			spans = append(spans, span{start: h.start, end: h.end, rule: h.rule})
			pos = h.end
			switch {
			case h.keyBlock:
				st.mode = modeKeyBlock
			case h.swallow != nil:
				st.mode, st.swallow = modeSwallow, h.swallow
			}
		}
	}
	return spans, len(w)
}

// hitCache keeps each family's next hit (built-in rules, patterns, literals) while the
// scan moves on: a hit at or after the new position is still the family's next one.
type hitCache struct {
	builtin, literal hit
	haveB, haveL     bool
}

// next returns the leftmost hit at or after pos over all families; at one position the
// built-in rules come first, then patterns, then literals. A needMore hit holds the text
// from its start.
func (c *hitCache) next(r *Redactor, w []byte, pos, base int, atEOF bool, st *scanState) hit {
	if r.builtinOnly {
		return r.nextBuiltin(w, pos, base, atEOF, st) // its hit is passed before the next call
	}
	if !c.haveB || c.builtin.start < pos {
		c.builtin, c.haveB = r.nextBuiltin(w, pos, base, atEOF, st), true
	}
	best := c.builtin
	if len(r.patterns) > 0 {
		if p := r.nextPattern(w, pos, atEOF); p.status != noMatch && (best.status == noMatch || p.start < best.start) {
			best = p
		}
	}
	if len(r.literals) > 0 {
		if !c.haveL || c.literal.start < pos {
			c.literal, c.haveL = r.nextLiteral(w, pos, atEOF), true
		}
		if l := c.literal; l.status != noMatch && (best.status == noMatch || l.start < best.start) {
			best = l
		}
	}
	return best
}

// nextBuiltin scans w from pos for the first position where a built-in rule matches or
// needs more text.
func (r *Redactor) nextBuiltin(w []byte, pos, base int, atEOF bool, st *scanState) hit {
	// A member's value is judged whole, from its first byte (see valueStringAt).
	if st.judgingWhole() && pos == base && (r.on[ruleGeneric] || st.keyValue == kindAuthorization && r.on[ruleBasicAuth]) {
		if h := valueStringAt(w, pos, st.keyValue, atEOF); h.status != noMatch {
			return h
		}
	}
	for i := r.nextCandidate(w, pos); i < len(w); i = r.nextCandidate(w, i+1) {
		if h := r.builtinAt(w, i, atEOF); h.status != noMatch {
			return h
		}
	}
	return hit{start: len(w)}
}

// builtinAt tries the built-in rules that may start at w[i], a candidate: a word start (an
// identifier character after none), a dash, or a symbol after a separator.
func (r *Redactor) builtinAt(w []byte, i int, atEOF bool) hit {
	c := w[i]
	if identChars[c] {
		return r.wordStartAt(w, i, atEOF)
	}
	if c == '-' && r.on[rulePrivateKey] {
		if h := privateKeyAt(w, i, atEOF); h.status != noMatch {
			return h
		}
	}
	if valueStart[c] && i > 0 && afterValue[w[i-1]] {
		// A value that begins with a symbol (PASSWORD=!x…, user:~x…@host).
		return r.afterAt(w, i, atEOF)
	}
	return hit{status: noMatch}
}

// nextCandidate returns the first position at or after i where a built-in rule may start,
// or len(w): a word start that begins a rule's word or follows what afterAt looks for, the
// dashes of a private key, or a symbol just after a separator. At every other position
// each built-in matcher answers no match, so scanning crosses them at table speed.
func (r *Redactor) nextCandidate(w []byte, i int) int {
	return nextCandidateIn(w, i, &r.candidates)
}

// nextCandidateIn is nextCandidate with the table t: r.candidates, or r.rawCandidates to
// stop at an escape too.
func nextCandidateIn(w []byte, i int, t *[256]uint8) int {
	for uint(i) < uint(len(w)) {
		switch k := t[w[i]]; k {
		case candNone:
			i++
			continue
		case candWord, candRuleWord:
			if i == 0 {
				if k == candRuleWord {
					return i
				}
			} else if c := w[i-1]; !inWord(t[c]) {
				// A word start: a candidate when it may begin a rule's word, or when it
				// follows what afterAt looks for (precededBy, found by a table when a
				// single space follows a byte that tells nothing, as between words).
				switch justBefore[c] {
				case afterNothing:
					if k == candRuleWord {
						return i
					}
				case afterSpaces:
					if k == candRuleWord || (i < 2 || !tellsNothing[w[i-2]]) && precededBy(w, i) != afterNothing {
						return i
					}
				default:
					return i
				}
			}
			for i++; uint(i) < uint(len(w)) && inWord(t[w[i]]); i++ {
				// within a word no rule starts
			}
		case candSymbol:
			if i > 0 && afterValue[w[i-1]] {
				return i
			}
			i++
		default: // candAlways
			return i
		}
	}
	return len(w)
}

// What a byte may start, for nextCandidate.
const (
	candNone     = iota
	candWord     // a letter, digit or '_': a word start that follows what afterAt looks for
	candRuleWord // a byte a rule's word starts with (wordRuleStart): any word start
	candSymbol   // a symbol a value may begin with (valueStart), just after a separator
	candAlways   // a private key's dash, when that rule is on; an escape, in a raw string
)

// inWord reports whether a byte of candidate class k is a letter, digit or '_'.
func inWord(k uint8) bool { return k-candWord <= candRuleWord-candWord }

// candidateClasses is the table of nextCandidate for the built-in rules that are on.
func (r *Redactor) candidateClasses() (t [256]uint8) {
	for c := range 256 {
		switch {
		case identChars[c] && wordRuleStart[c]:
			t[c] = candRuleWord
		case identChars[c]:
			t[c] = candWord
		case c == '-' && r.on[rulePrivateKey]:
			t[c] = candAlways
		case valueStart[c]:
			t[c] = candSymbol
		}
	}
	return t
}

// tellsNothing marks the bytes that, before spaces, make precededBy answer afterNothing.
var tellsNothing = func() (t charClass) {
	for c := range 256 {
		t[c] = beforeSpaces[c] == afterNothing && !isSpace(byte(c))
	}
	return t
}()

// valueStart marks the symbols a value may begin with (a value beginning with a letter or
// digit is tried at its word start).
var valueStart = func() (t charClass) {
	for c := range 256 {
		t[c] = (valueChars[c] || passChars[c]) && !identChars[c]
	}
	return t
}()

// afterValue marks what may stand just before a value: a separator, a quote or a space.
var afterValue = newClass("=:>'`\" \t")

// wordRuleStart marks the bytes a rule that starts with a word may start with: a token's
// prefix (tokensByFirst), eyJ (jwtAt), hooks.slack.com (webhookAt), SG. (sendgridAt).
var wordRuleStart = func() (t charClass) {
	for c := range t {
		t[c] = len(tokensByFirst[c]) > 0
	}
	t['e'], t['h'], t['S'] = true, true, true
	return t
}()

// wordStartAt tries the rules that start at a word start, in priority order: tokens with a
// known prefix, then values recognised by what precedes them.
func (r *Redactor) wordStartAt(w []byte, i int, atEOF bool) hit {
	c := w[i]
	for k := range tokensByFirst[c] {
		t := &tokensByFirst[c][k]
		if !r.on[t.rule] {
			continue
		}
		if h := t.at(w, i, atEOF); h.status != noMatch {
			return h
		}
	}
	switch {
	case c == 'e' && r.on[ruleJWT]:
		if h := jwtAt(w, i, atEOF); h.status != noMatch {
			return h
		}
	case c == 'h' && r.on[ruleSlackWebhook]:
		if h := webhookAt(w, i, atEOF); h.status != noMatch {
			return h
		}
	case c == 'S' && r.on[ruleSendGrid]:
		if h := sendgridAt(w, i, atEOF); h.status != noMatch {
			return h
		}
	}
	if i == 0 {
		return hit{start: i}
	}
	return r.afterAt(w, i, atEOF)
}

// afterAt tries the rules that recognise a value at i by what precedes it: URL passwords,
// -pVALUE, credentials after Bearer and Basic, assignments and flags.
func (r *Redactor) afterAt(w []byte, i int, atEOF bool) hit {
	switch precededBy(w, i) {
	case afterNothing:
		return hit{start: i}
	case afterColon:
		if r.on[ruleURLPassword] {
			if h := urlPasswordAt(w, i, atEOF); h.status != noMatch {
				return h
			}
		}
	case afterDash:
		if r.on[rulePasswordFlag] {
			return dashPAt(w, i, atEOF)
		}
		return hit{start: i}
	case afterBearer:
		if r.on[ruleBearer] {
			return bearerAt(w, i, atEOF)
		}
		return hit{start: i}
	case afterBasic:
		if r.on[ruleBasicAuth] {
			return basicAt(w, i, atEOF)
		}
		return hit{start: i}
	}
	if r.on[ruleGeneric] || r.on[ruleAWSSecretKey] || r.on[ruleAzureStorage] || r.on[rulePasswordFlag] {
		h := assignmentAt(w, i, atEOF)
		if h.status != match || r.on[h.rule] {
			return h
		}
	}
	return hit{start: i}
}

// What precedes a value tells which of afterAt's matchers may apply.
const (
	afterNothing    = iota
	afterColon      // a URL's password (scheme://user:PASSWORD@host), or an assignment
	afterDash       // -pVALUE
	afterBearer     // spaces after a word ending in r: Bearer TOKEN
	afterBasic      // spaces after a word ending in c: Basic CREDENTIALS
	afterAssignment // a separator, a quote, or a flag's name and spaces: NAME=VALUE, --password VALUE
	afterSpaces     // (in justBefore) spaces: what stands before them tells
	afterNameEnd    // (in beforeSpaces) a letter that may end a secret's name: --password VALUE
)

// justBefore classifies the byte before a value, beforeSpaces the byte before the spaces
// before a value.
var justBefore, beforeSpaces = func() (jb, bs [256]uint8) {
	jb[':'], jb['-'], jb[' '], jb['\t'] = afterColon, afterDash, afterSpaces, afterSpaces
	for _, c := range "=\"'`>" {
		jb[c] = afterAssignment
	}
	for _, c := range "=:>\"'`" {
		bs[c] = afterAssignment
	}
	for c := range 256 {
		switch {
		case c|0x20 == 'r':
			bs[c] = afterBearer
		case c|0x20 == 'c':
			bs[c] = afterBasic
		}
		for a := byte('a'); a <= 'z' && bs[c] == afterNothing; a++ {
			if secretNameTail(a, byte(c)) {
				bs[c] = afterNameEnd
			}
		}
	}
	return jb, bs
}()

// precededBy tells, from the bytes before i (i > 0), which of afterAt's matchers may apply
// at i.
func precededBy(w []byte, i int) int {
	k := justBefore[w[i-1]]
	if k != afterSpaces {
		return int(k)
	}
	j := skipSpacesBack(w, i-1, 4)
	if j < 0 {
		return afterNothing
	}
	switch k := beforeSpaces[w[j]]; k {
	case afterNameEnd:
		if j >= 1 && secretNameTail(w[j-1], w[j]) {
			return afterAssignment // perhaps a flag and its argument (--password VALUE)
		}
		return afterNothing
	default:
		return int(k)
	}
}

// valueStringAt judges a whole string that is the value of a secret-named member
// ({"password":"…"}): it is a secret when it is one value-like word that passes the same
// test as an assignment's value.
func valueStringAt(w []byte, i int, kind int, atEOF bool) hit {
	if kind == kindAuthorization {
		return authorizationValueAt(w, i, atEOF)
	}
	n, more := runAt(w, i, valueChars, maxValue+1, atEOF)
	switch {
	case more:
		return hit{status: ranOut(atEOF), start: i}
	case i+n < len(w) || n > maxValue:
		return hit{start: i}
	}
	if rule, ok := secretValue(w[i:], kind); ok {
		return hit{status: match, start: i, end: len(w), rule: rule}
	}
	if kind == kindPassword && plainPassword(w[i:]) {
		return hit{status: match, start: i, end: len(w), rule: ruleGeneric}
	}
	return hit{start: i}
}

// literalFrom reports whether a literal may start at a position of w from i on: where w
// holds a literal's first two bytes, or ends with its first byte.
func (r *Redactor) literalFrom(w []byte, i int) bool {
	if len(r.literals) == 0 {
		return false
	}
	for ; i < len(w); i++ {
		if c := w[i]; r.literalFirst[c] && (i+1 == len(w) || r.literalPairs.has(c, w[i+1])) {
			return true
		}
	}
	return false
}

// bytePairs is a set of two-byte sequences.
type bytePairs [1 << 16 / 64]uint64

func (p *bytePairs) add(a, b byte) { k := uint16(a)<<8 | uint16(b); p[k/64] |= 1 << (k % 64) }
func (p *bytePairs) has(a, b byte) bool {
	k := uint16(a)<<8 | uint16(b)
	return p[k/64]&(1<<(k%64)) != 0
}

// nextLiteral finds the first literal at or after pos, or the first position from which
// the rest of w begins a literal.
func (r *Redactor) nextLiteral(w []byte, pos int, atEOF bool) hit {
	best := hit{start: len(w)}
	for _, l := range r.literals {
		end := len(w)
		if best.status != noMatch {
			end = min(len(w), best.start+len(l.value)) // only an earlier start can win
		}
		if k := bytes.Index(w[pos:end], l.value); k >= 0 && (best.status == noMatch || pos+k < best.start) {
			best = hit{status: match, start: pos + k, end: pos + k + len(l.value), rule: l.rule}
		}
	}
	if atEOF {
		return best
	}
	from := max(pos, len(w)-r.maxLit+1)
	for k := from; k < len(w) && (best.status == noMatch || k < best.start); k++ {
		for _, l := range r.literals {
			if len(l.value) > len(w)-k && bytes.HasPrefix(l.value, w[k:]) {
				return hit{status: needMore, start: k}
			}
		}
	}
	return best
}

// textStream redacts one string that arrives in pieces (a text, thinking or tool-argument
// block) so that the pieces released add up to the redaction of the whole.
type textStream struct {
	st scanState
	// buf holds the context (up to lookBehind bytes before the held text, for matchers that
	// look back) followed by the held text; base is where the held text starts.
	buf   []byte
	base  int
	spans []span
}

// held is the text held back.
func (s *textStream) held() []byte { return s.buf[s.base:] }

// reset prepares s for a new string whose name (when it is a member's value) has kind.
func (s *textStream) reset(kind int) {
	s.st = scanState{keyValue: kind}
	s.buf, s.base = s.buf[:0], 0
}

// resume makes the buffer of a stream that holds nothing back anew, with context as the
// text before what comes next.
func (s *textStream) resume(context []byte) {
	if cap(s.buf) == 0 {
		s.buf = make([]byte, 0, compactAfter+2*lookBehind)
	}
	s.buf = append(s.buf[:0], context...)
	s.base = len(s.buf)
}

// push adds text and returns the spans to drop within w[base:cut], where w is the buffer
// returned; the caller renders w[base:cut] and then calls consume(cut).
func (s *textStream) push(r *Redactor, text []byte, atEOF bool) (w []byte, base, cut int, spans []span) {
	if cap(s.buf) == 0 && len(text) < compactAfter {
		// Room for what a stream of small pieces holds: its buffer is made once.
		s.buf = make([]byte, 0, compactAfter+2*lookBehind)
	}
	s.buf = append(s.buf, text...)
	s.spans, cut = r.scan(s.buf, s.base, atEOF, &s.st, s.spans[:0])
	return s.buf, s.base, cut, s.spans
}

// consume keeps w[cut:] as held text and the end of w[:cut] as context.
func (s *textStream) consume(w []byte, base, cut int) {
	if cut > base {
		s.st.started = true
	}
	// The context goes to the front of buf once the text before it is long, not after every
	// piece: matchers read at most lookBehind bytes back, so more context changes nothing.
	from := 0
	if cut-lookBehind >= compactAfter {
		from = cut - lookBehind
		n := copy(s.buf, s.buf[from:])
		s.buf = s.buf[:n]
	}
	s.base = cut - from
}

// compactAfter is how much text may pile up before a stream's context before it is dropped.
const compactAfter = 256

// render appends w[base:cut] with spans replaced by their markers.
func (r *Redactor) render(dst, w []byte, base, cut int, spans []span) []byte {
	at := base
	for _, sp := range spans {
		if sp.start >= cut {
			break
		}
		dst = append(dst, w[at:sp.start]...)
		if !sp.silent {
			dst = append(dst, r.markers[sp.rule]...)
		}
		at = min(sp.end, cut)
	}
	return append(dst, w[at:cut]...)
}

// pushText is push, render and consume for plain text: it appends the text released.
func (s *textStream) pushText(r *Redactor, dst, text []byte, atEOF bool) []byte {
	w, base, cut, spans := s.push(r, text, atEOF)
	dst = r.render(dst, w, base, cut, spans)
	s.consume(w, base, cut)
	return dst
}

// redactText appends the redaction of the whole text s (decoded) to dst and reports whether
// anything changed. kind is the kind of the member name the text is the value of.
func (r *Redactor) redactText(dst, s []byte, kind int, spans []span) ([]byte, []span, bool) {
	if len(s) < r.minText || r.wordsSafe && kind != kindPassword && isWord(s) && (len(s) < minToken || !tokenStart[s[0]]) {
		// A word's only word start is its first byte: only a token could match there
		// (or, a password member's value being judged whole, the word itself).
		return dst, spans, false
	}
	st := scanState{keyValue: kind}
	spans, _ = r.scan(s, 0, true, &st, spans[:0])
	if len(spans) == 0 {
		return dst, spans, false
	}
	return r.render(dst, s, 0, len(s), spans), spans, true
}

// tokenStart marks the bytes a token of letters and '_' may start with.
var tokenStart = func() (t [256]bool) {
	for _, r := range tokenRules {
		t[r.prefix[0]] = true
	}
	return t
}()

// isWord reports whether s is letters and '_' only.
func isWord(s []byte) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

// Stream returns a function that redacts one text arriving in pieces: each call returns
// what can be released of the text so far, redacted (valid until the next call); the call
// with end set releases the rest. The pieces add up to the redaction of the whole text.
func (r *Redactor) Stream() func(chunk []byte, end bool) []byte {
	var ts textStream
	ts.reset(kindNone)
	var out []byte
	return func(chunk []byte, end bool) []byte {
		out = ts.pushText(r, out[:0], chunk, end)
		return out
	}
}

// RedactText appends the redaction of text to dst and reports whether anything changed.
func (r *Redactor) RedactText(dst, text []byte) ([]byte, bool) {
	out, _, changed := r.redactText(dst, text, kindNone, nil)
	return out, changed
}

// RedactString returns s with its secrets replaced.
func (r *Redactor) RedactString(s string) string {
	out, _, changed := r.redactText(nil, []byte(s), kindNone, nil)
	if !changed {
		return s
	}
	return string(out)
}
