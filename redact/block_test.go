package redact

import (
	"hash/maphash"
	"strings"
	"testing"
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
