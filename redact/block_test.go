package redact

import (
	"bytes"
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact/redacttest"
)

// A finished block's redaction is found again under the hash of the text it received,
// whether the text was redacted or not and wherever a redaction began: the events that
// repeat the text (its *_end, the final messages) are not scanned again.
func TestBlockRemembersItsText(t *testing.T) {
	r := mustRedactor(t, Options{})
	secret := "ghp_" + strings.Repeat("aB3", 12)
	clean := strings.Repeat("0001 the text of a block ", 20)
	for _, text := range []string{
		clean,
		secret + " " + clean,
		clean + "token=" + secret,
		clean[:100] + secret + clean[100:],
		clean + "sk-",
	} {
		for _, step := range []int{1, 5, 64, len(text)} {
			w := NewWalker(r)
			var b Block
			b.Start(w, false)
			var released []byte
			for at := 0; at < len(text); at += step {
				out, _ := b.Push([]byte(text[at:min(len(text), at+step)]))
				released = append(released, out...)
			}
			released = append(released, b.Finish()...)
			want := r.RedactString(text)
			if string(released) != want {
				t.Fatalf("step %d: released %q, want %q", step, released, want)
			}
			e := w.cache.find(maphash.Bytes(w.cache.seed, []byte(text)), len(text), kindNone)
			if e == nil {
				t.Fatalf("step %d: %.40q… not remembered", step, text)
			}
			if got := string(e.out); e.changed != (want != text) || e.changed && got != want {
				t.Fatalf("step %d: remembered %v %q, want %q", step, e.changed, got, want)
			}
		}
	}
}

// A block releases, piece by piece, what a plain stream releases (the stream's buffer kept
// all along, every piece scanned in it), though a quiet block scans its pieces where it
// released them and makes its buffer again only for a piece that needs the full scan, and
// takes a piece given as a JSON string without decoding it when it has no escape; and it
// tells a piece released as it came. One block goes through every text, started again for
// each, as a stage's blocks are.
func TestBlockReleasesWhatItsStreamReleases(t *testing.T) {
	corpus := redacttest.Corpus(t)
	rnd := rand.New(rand.NewPCG(3, 4))
	redactors := []*Redactor{
		mustRedactor(t, Options{}),
		mustRedactor(t, Options{Literals: []Literal{{ID: "a", Value: "0001"}, {ID: "b", Value: "word-literal"}}}),
		mustRedactor(t, Options{Rules: []string{"private-key", "bearer-token"}}),
		mustRedactor(t, Options{Patterns: []string{`TICKET-[0-9]{4,}`, `\bword\b`}}),
	}
	fillers := []string{"", "0001 0002 0003 ", strings.Repeat("the quick brown fox jumps over the lazy dog. ", 9)}
	for _, r := range redactors {
		w := NewWalker(r)
		var b Block
		for range 1500 {
			var text string
			for range 1 + rnd.IntN(4) {
				text += fillers[rnd.IntN(len(fillers))] + secretishText(rnd, corpus)
			}
			var ts textStream
			ts.reset(kindNone)
			b.Start(w, false)
			for at := 0; at < len(text); {
				next := min(len(text), at+1+rnd.IntN(12))
				piece := []byte(text[at:next])
				want := ts.pushText(r, nil, piece, false)
				var got []byte
				var asCame bool
				if rnd.IntN(2) == 0 || !utf8.Valid(piece) { // a JSON string holds whole characters
					got, asCame = b.Push(piece)
				} else {
					enc := codec.AppendString([]byte("xx"), string(piece))
					if got, asCame = b.PushString(append(enc, "yy"...), 2, len(enc)); asCame {
						if got != nil {
							t.Fatalf("%q, piece %q at %d: released as it came, and %q", text, piece, at, got)
						}
						got = piece
					}
				}
				if string(got) != string(want) || asCame != bytes.Equal(want, piece) {
					t.Fatalf("%q, piece %q at %d: block released %q (as it came: %v), the stream %q",
						text, piece, at, got, asCame, want)
				}
				at = next
			}
			if got, want := b.Finish(), ts.pushText(r, nil, nil, true); string(got) != string(want) {
				t.Fatalf("%q: block's tail %q, the stream's %q", text, got, want)
			}
		}
	}
}
