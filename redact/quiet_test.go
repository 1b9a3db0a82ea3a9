package redact

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact/redacttest"
)

// quietRedactors are rule sets whose candidate tables differ: all rules (the private key's
// dash a candidate), and rules without that one.
func quietRedactors(t *testing.T) []*Redactor {
	return []*Redactor{
		mustRedactor(t, Options{}),
		mustRedactor(t, Options{Rules: []string{"generic-secret", "bearer-token"}}),
	}
}

// checkQuiet fails when the automaton calls piece quiet after context but nextCandidateIn
// finds a candidate in it, for both tables of r.
func checkQuiet(t *testing.T, r *Redactor, context, piece []byte) {
	t.Helper()
	w := append(append([]byte(nil), context...), piece...)
	for _, tab := range []struct {
		name string
		t    *[256]uint8
		q    *quietStates
	}{{"text", &r.candidates, r.textQuiet}, {"raw", &r.rawCandidates, r.rawQuiet}} {
		if tab.q.quiet(context, piece) {
			if at := nextCandidateIn(w, len(context), tab.t); at != len(w) {
				t.Fatalf("%s: %q after %q called quiet, but a rule may start at %d", tab.name, piece, context, at-len(context))
			}
		}
	}
}

// Every byte after every two bytes of context, and after one and none: the automaton's
// start and each of its steps.
func TestQuietStatesNeverMissACandidateAfterAnyBytes(t *testing.T) {
	for _, r := range quietRedactors(t) {
		buf := make([]byte, 3)
		for a := range 256 {
			for b := range 256 {
				for c := range 256 {
					buf[0], buf[1], buf[2] = byte(a), byte(b), byte(c)
					checkQuiet(t, r, buf[:2], buf[2:])
				}
				checkQuiet(t, r, buf[:1], buf[1:2])
			}
			checkQuiet(t, r, nil, buf[:1])
		}
	}
}

// Every text of up to four bytes of an alphabet with a byte of each kind that matters
// (separators, spaces, quotes, dashes, the letters that end a secret's name or begin a
// rule's word, digits, an escape, a multi-byte character's byte), cut anywhere: the
// automaton's steps chained over several bytes.
func TestQuietStatesNeverMissACandidateInShortTexts(t *testing.T) {
	alphabet := []byte(" \t=:\"'-.>!~_0aAcdrnySehpK\\\xc3")
	for _, r := range quietRedactors(t) {
		w := make([]byte, 4)
		var walk func(n int)
		walk = func(n int) {
			for cut := 0; cut <= n; cut++ {
				checkQuiet(t, r, w[:cut], w[cut:n])
			}
			if n == len(w) {
				return
			}
			for _, c := range alphabet {
				w[n] = c
				walk(n + 1)
			}
		}
		walk(0)
	}
}

// Texts glued from the pieces that start or end rules, and the corpus's secrets, cut
// anywhere.
func TestQuietStatesNeverMissACandidateInSecretishTexts(t *testing.T) {
	corpus := redacttest.Corpus(t)
	rnd := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		w := []byte(secretishText(rnd, corpus))
		for _, r := range quietRedactors(t) {
			for cut := 0; cut <= len(w); cut++ {
				checkQuiet(t, r, w[:cut], w[cut:])
			}
		}
	}
}

// The automaton answers for the pieces a stream is mostly made of: numbers, words that
// tell nothing and punctuation, after such text. (Were it to stop at once, every piece
// would go to nextCandidateIn, and the shortcut would be none.)
func TestQuietStatesCrossPlainPieces(t *testing.T) {
	r := mustRedactor(t, Options{})
	for _, c := range []struct{ context, piece string }{
		{"", "0000 "},
		{"0000 ", "0001 "},
		{"Count to 2000: 0998 ", "0999 "},
		{"the way it goes", ", and it is"},
		{"we went to the", " bad idea."},
		{"It is ", "1234"},
	} {
		for _, tab := range []struct {
			t *[256]uint8
			q *quietStates
		}{{&r.candidates, r.textQuiet}, {&r.rawCandidates, r.rawQuiet}} {
			w := []byte(c.context + c.piece)
			if at := nextCandidateIn(w, len(c.context), tab.t); at != len(w) {
				t.Fatalf("%q after %q: a rule may start at %d", c.piece, c.context, at-len(c.context))
			}
			if !tab.q.quiet([]byte(c.context), []byte(c.piece)) {
				t.Errorf("%q after %q: not crossed", c.piece, c.context)
			}
		}
	}
	// And it stops where a rule may start: a rule's word at a word start, a value after
	// a separator, an escape in a raw string.
	for _, c := range []struct{ context, piece string }{
		{"0000 ", "sk-"},
		{"the ", "password=x"},
		{"key ", "abcdef"},
		{"x=", "y"},
	} {
		if r.textQuiet.quiet([]byte(c.context), []byte(c.piece)) {
			t.Errorf("%q after %q: crossed", c.piece, c.context)
		}
	}
	if r.rawQuiet.quiet([]byte("0000 "), []byte(`a\nb`)) {
		t.Errorf("an escape crossed in a raw string")
	}
}

// A block whose deltas are numbers, with every secret of the corpus (and its text without
// the secret's first byte, and a name that tells but does not start a secret) somewhere in
// the middle, cut into pieces of every length from every offset: so that a secret starts,
// ends or straddles a piece at every place, the pieces before it crossed by the automaton.
// Pushed as JSON strings and as text, the pieces add up to the redaction of the whole,
// none shows 8 bytes of the secret, and the numbers before the text are crossed by the
// automaton, and those after it too when nothing was redacted (a block that redacted
// something is quiet no more).
func TestBlockShortcutAroundEverySecret(t *testing.T) {
	r := mustRedactor(t, Options{})
	numbers := func(from, n int) string {
		var s strings.Builder
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&s, "%04d ", i)
		}
		return s.String()
	}
	var middles []redacttest.Secret
	for _, c := range redacttest.Corpus(t) {
		middles = append(middles, c, redacttest.Secret{Rule: c.Rule, Text: c.Text[1:]})
	}
	middles = append(middles, redacttest.Secret{Text: "the password is"}, redacttest.Secret{Text: "Bearer"})
	w := NewWalker(r)
	var b Block
	for _, c := range middles {
		text := numbers(0, 4) + c.Text + " " + numbers(4, 4)
		want := r.RedactString(text)
		for size := 1; size <= 12; size++ {
			for offset := 0; offset < size; offset++ {
				for _, asString := range []bool{true, false} {
					b.Start(w, false)
					var released []byte
					crossedBefore, crossedAfter := false, false
					for at := 0; at < len(text); {
						next := min(len(text), at+size)
						if at == 0 {
							next = min(len(text), offset+1)
						}
						piece := []byte(text[at:next])
						var out []byte
						if asString && utf8.Valid(piece) {
							enc := codec.AppendString(nil, string(piece))
							var asCame bool
							if out, asCame = b.PushString(enc, 0, len(enc)); asCame {
								out = piece
							}
						} else {
							out, _ = b.Push(piece)
						}
						released = append(released, out...)
						if c.Secret != "" && leakOf([]byte(want), c.Secret) == "" {
							if leak := leakOf(released, c.Secret); leak != "" {
								t.Fatalf("%q in pieces of %d from %d: %q released after %d bytes", text, size, offset, leak, next)
							}
						}
						if b.quietLen == len(b.released) {
							crossedBefore = crossedBefore || next <= len(numbers(0, 4))
							crossedAfter = crossedAfter || at >= len(text)-len(numbers(4, 4))
						}
						at = next
					}
					released = append(released, b.Finish()...)
					if string(released) != want {
						t.Fatalf("%q in pieces of %d from %d (string %v):\n released %q\n whole    %q", text, size, offset, asString, released, want)
					}
					if !crossedBefore || want == text && !crossedAfter {
						t.Fatalf("%q in pieces of %d from %d (string %v): numbers not crossed by the automaton (before it %v, after it %v)",
							text, size, offset, asString, crossedBefore, crossedAfter)
					}
				}
			}
		}
	}
}
