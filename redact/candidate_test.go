package redact

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/basecontext/base-context/redact/redacttest"
)

// The scan tries the built-in matchers only where nextCandidate says a rule may start, and
// tells what precedes a value with precededBy's tables. These tests hold both to the code they
// stand for: the switch of cases that afterAt used to run at every word start, and the loop
// that tried every word start, every dash and every symbol after a separator.

// precededByCases is the reference for precededBy: the cases as afterAt wrote them.
func precededByCases(w []byte, i int) int {
	switch w[i-1] {
	case ':':
		return afterColon
	case '-':
		return afterDash
	case ' ', '\t':
		j := skipSpacesBack(w, i-1, 4)
		if j < 0 {
			return afterNothing
		}
		switch c := w[j]; {
		case c|0x20 == 'r':
			return afterBearer
		case c|0x20 == 'c':
			return afterBasic
		case c == '=' || c == ':' || c == '>' || isQuote(c):
			return afterAssignment
		case j >= 1 && secretNameTail(w[j-1], c):
			return afterAssignment
		}
		return afterNothing
	case '=', '"', '\'', '`', '>':
		return afterAssignment
	}
	return afterNothing
}

func TestPrecededByAgreesWithItsCases(t *testing.T) {
	// Every byte before a value, and every byte before one to four spaces before a value
	// after every byte.
	w := make([]byte, 0, 8)
	for a := range 256 {
		for b := range 256 {
			for spaces := 0; spaces <= 5; spaces++ {
				w = append(w[:0], byte(a), byte(b))
				for k := range spaces {
					w = append(w, " \t"[k%2])
				}
				w = append(w, 'x')
				i := len(w) - 1
				if got, want := precededBy(w, i), precededByCases(w, i); got != want {
					t.Fatalf("%q before %d: precededBy %d, its cases %d", w[:i], i, got, want)
				}
				if got, want := precededBy(w[1:], i-1), precededByCases(w[1:], i-1); got != want {
					t.Fatalf("%q before %d: precededBy %d, its cases %d", w[1:i], i-1, got, want)
				}
			}
		}
	}
}

// nextBuiltinEverywhere is the reference for nextBuiltin: it tries the matchers at every word
// start, every dash and every symbol after a separator.
func (r *Redactor) nextBuiltinEverywhere(w []byte, pos, base int, atEOF bool, st *scanState) hit {
	if st.judgingWhole() && pos == base && (r.on[ruleGeneric] || st.keyValue == kindAuthorization && r.on[ruleBasicAuth]) {
		if h := valueStringAt(w, pos, st.keyValue, atEOF); h.status != noMatch {
			return h
		}
	}
	for i := pos; i < len(w); i++ {
		if identChars[w[i]] && i > 0 && identChars[w[i-1]] {
			continue // inside a word
		}
		if h := r.builtinAt(w, i, atEOF); h.status != noMatch {
			return h
		}
	}
	return hit{start: len(w)}
}

// secretishText is text made of pieces that start or end rules (names, separators, prefixes
// of tokens, the corpus's secrets), glued at random, so that rules start, almost start and
// are cut off everywhere.
func secretishText(rnd *rand.Rand, corpus []redacttest.Secret) string {
	pieces := []string{
		" ", "  ", "\t", "\n", "=", ":", ": ", "-", "--", "\"", "'", "`", ">", "=>", ":=", "@", "//", ".",
		"password", "PASSWORD", "token", "api_key", "secret", "Bearer", "Basic", "Authorization",
		"sk-", "sk-ant-", "ghp_", "AKIA", "eyJ", "hooks.slack.com/", "SG.", "xoxb-", "-p", "-----BEGIN ",
		"PRIVATE KEY-----", "-----END ", "https://user", "0001", "abc", "x9Z2", "é", "word", "s", "rd", "wd",
	}
	var b strings.Builder
	for range rnd.IntN(24) {
		if rnd.IntN(10) == 0 {
			c := corpus[rnd.IntN(len(corpus))]
			b.WriteString([]string{c.Text, c.Secret}[rnd.IntN(2)])
		} else {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
	}
	return b.String()
}

func TestNextBuiltinTriesEveryPositionThatCanMatch(t *testing.T) {
	corpus := redacttest.Corpus(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	redactors := []*Redactor{
		mustRedactor(t, Options{}),
		mustRedactor(t, Options{Rules: []string{"generic-secret", "password-flag", "bearer-token"}}),
		mustRedactor(t, Options{Rules: []string{"url-password", "basic-auth", "jwt"}}),
	}
	for range 2000 {
		text := []byte(secretishText(rnd, corpus))
		// A text cut anywhere, as a stream sees it, and whole.
		w := text[:rnd.IntN(len(text)+1)]
		for _, r := range redactors {
			for _, atEOF := range []bool{false, true} {
				for pos := 0; pos <= len(w); pos++ {
					for _, kind := range []int{kindNone, kindPassword} {
						st := scanState{keyValue: kind}
						got := r.nextBuiltin(w, pos, pos, atEOF, &st)
						want := r.nextBuiltinEverywhere(w, pos, pos, atEOF, &st)
						if got != want {
							t.Fatalf("%q from %d (end of text %v, value kind %d): got %+v, want %+v", w, pos, atEOF, kind, got, want)
						}
					}
				}
			}
		}
	}
}

// The scan's shortcut for text where no rule can start gives what the full scan gives: a
// stream of the built-in rules alone, cut anywhere, adds up to the redaction of the whole
// text.
func TestBuiltinStreamsAddUpAnywhere(t *testing.T) {
	corpus := redacttest.Corpus(t)
	rnd := rand.New(rand.NewPCG(3, 4))
	r := mustRedactor(t, Options{})
	for range 3000 {
		text := secretishText(rnd, corpus)
		whole := r.RedactString(text)
		var ts textStream
		ts.reset(kindNone)
		var released []byte
		for at := 0; at < len(text); {
			end := min(len(text), at+1+rnd.IntN(12))
			released = ts.pushText(r, released, []byte(text[at:end]), false)
			if !strings.HasPrefix(whole, string(released)) {
				t.Fatalf("%q: released %q is not a prefix of %q", text, released, whole)
			}
			at = end
		}
		released = ts.pushText(r, released, nil, true)
		if string(released) != whole {
			t.Fatalf("%q: stream %q, whole %q", text, released, whole)
		}
	}
}

// scan's shortcut, for text where no rule can start, answers what the full scan answers:
// for every rule set (with literals and patterns, whose first bytes it looks for), every
// state a stream can be in and every place a text can be cut.
func TestScanShortcutIsTheFullScan(t *testing.T) {
	corpus := redacttest.Corpus(t)
	rnd := rand.New(rand.NewPCG(7, 8))
	redactors := []*Redactor{
		mustRedactor(t, Options{}),
		mustRedactor(t, Options{Literals: []Literal{{ID: "a", Value: "0001"}, {ID: "b", Value: "word-literal"}, {ID: "c", Value: "sk-ant-x"}}}),
		mustRedactor(t, Options{NoDefaultRules: true, Literals: []Literal{{ID: "a", Value: "abcd"}, {ID: "b", Value: "é word"}}}),
		mustRedactor(t, Options{Rules: []string{"private-key"}}),
		mustRedactor(t, Options{Patterns: []string{`TICKET-[0-9]{4,}`, `(?i)secret\w+`, `\bword\b`}}),
		mustRedactor(t, Options{NoDefaultRules: true, Patterns: []string{`é+x?`, `x9[A-Z]|[[:digit:]]{3}`, `(?i)k[^a]`}}),
		mustRedactor(t, Options{NoDefaultRules: true, Patterns: []string{`(a|\bb)c*d`}, Literals: []Literal{{ID: "a", Value: "K-lit"}}}),
	}
	states := []scanState{{}, {keyValue: kindPassword}, {keyValue: kindSecret, started: true}, {mode: modeSwallow, swallow: alnum}}
	for range 3000 {
		text := secretishText(rnd, corpus)
		if rnd.IntN(2) == 0 {
			text += []string{"abc", "0001", "word-lit", "é w", "x", "TICKET-12", "Secret_", "\u212a", "bcc", "K-"}[rnd.IntN(10)]
		}
		w := []byte(text)
		base := rnd.IntN(len(w) + 1)
		for _, r := range redactors {
			for _, atEOF := range []bool{false, true} {
				for _, st := range states {
					st1, st2 := st, st
					spans, cut := r.scan(w, base, atEOF, &st1, nil)
					wantSpans, wantCut := r.scanAll(w, base, atEOF, &st2, nil)
					if cut != wantCut || len(spans) != len(wantSpans) || st1 != st2 {
						t.Fatalf("%q from %d (end of text %v, state %+v): cut %d, %d spans, state %+v; the full scan: cut %d, %d spans, state %+v",
							w, base, atEOF, st, cut, len(spans), st1, wantCut, len(wantSpans), st2)
					}
					for k := range spans {
						if spans[k] != wantSpans[k] {
							t.Fatalf("%q from %d: span %+v, the full scan's %+v", w, base, spans[k], wantSpans[k])
						}
					}
				}
			}
		}
	}
}

// A pattern's first bytes hold every byte a match, or a match still arriving, may start with.
func TestPatternFirstBytes(t *testing.T) {
	patterns := []string{`TICKET-[0-9]{4,}`, `(?i)secret\w+`, `\bword\b`, `é+x?`, `x9[A-Z]|[[:digit:]]{3}`,
		`(?i)k[^a]`, `(a|\bb)c*d`, `(?:)+zz`, `[^\x00-\x7f]q`, `\Bab`, `.x`, `(?s).y`}
	suffixes := []string{"", "a", "b", "d", "cd", "ord", "ord ", "ICKET-1234", "ecret_1", "x", "9Z", "12", "23", "z", "zz", "q", "x\x80", "é", "\u212a"}
	for _, src := range patterns {
		p, err := compilePattern(src)
		if err != nil {
			t.Fatal(err)
		}
		for c := range 256 {
			if p.first[c] {
				continue
			}
			for _, suffix := range suffixes {
				for _, before := range []string{"", " ", "a"} {
					w := []byte(before + string([]byte{byte(c)}) + suffix)
					at := len(before)
					if loc := p.re.FindIndex(w); loc != nil && loc[0] == at && loc[1] > at {
						t.Fatalf("%s matches %q at %d, but %#x is not among its first bytes", src, w, at, c)
					}
					if live := p.liveFrom(w, at); live == at {
						t.Fatalf("%s may match %q from %d, but %#x is not among its first bytes", src, w, at, c)
					}
				}
			}
		}
	}
}

// nextCandidateByRule is the reference for nextCandidate: its rule written out byte by byte.
func (r *Redactor) nextCandidateByRule(w []byte, i int) int {
	for ; i < len(w); i++ {
		c := w[i]
		wordStart := identChars[c] && (i == 0 || !identChars[w[i-1]])
		if wordStart && (wordRuleStart[c] || i > 0 && precededBy(w, i) != afterNothing) ||
			c == '-' && r.on[rulePrivateKey] || !identChars[c] && valueStart[c] && i > 0 && afterValue[w[i-1]] {
			return i
		}
	}
	return len(w)
}

// nextCandidate's tables find what its rule finds, from every position of texts cut
// anywhere, for rule sets with and without the private key's dashes; in a raw string, an
// escape too.
func TestNextCandidateFollowsItsRule(t *testing.T) {
	corpus := redacttest.Corpus(t)
	rnd := rand.New(rand.NewPCG(5, 6))
	redactors := []*Redactor{
		mustRedactor(t, Options{}),
		mustRedactor(t, Options{Rules: []string{"generic-secret", "bearer-token"}}),
		mustRedactor(t, Options{Rules: []string{"private-key"}}),
	}
	for range 3000 {
		text := []byte(secretishText(rnd, corpus))
		w := text[rnd.IntN(len(text)+1):]
		for _, r := range redactors {
			for pos := 0; pos <= len(w); pos++ {
				want := r.nextCandidateByRule(w, pos)
				if got := r.nextCandidate(w, pos); got != want {
					t.Fatalf("%q from %d: nextCandidate %d, its rule %d", w, pos, got, want)
				}
				if k := bytes.IndexByte(w[pos:], '\\'); k >= 0 {
					want = min(want, pos+k)
				}
				if got := nextCandidateIn(w, pos, &r.rawCandidates); got != want {
					t.Fatalf("%q from %d: in a raw string %d, want %d (the rule's, or an escape)", w, pos, got, want)
				}
			}
		}
	}
}
