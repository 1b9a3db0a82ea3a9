package codec

import (
	"bytes"
	"strings"
	"testing"
)

// AppendLongString writes what AppendString writes, whatever the text holds (escapes,
// control characters, multi-byte characters, invalid UTF-8) and wherever it holds it.
func FuzzAppendLongString(f *testing.F) {
	long := strings.Repeat("0001 the text of a block, é and 世界 ", 20)
	for _, s := range []string{"", "a", "\"", "\\", "\n", "\x00", "\x7f", "\xff", "é", "\xe4\xb8",
		long, long + "\"quoted\"", "\ttab" + long, long + "\xff" + long, long[:100] + "\u2028" + long} {
		f.Add([]byte(s), []byte("prefix"))
	}
	f.Fuzz(func(t *testing.T, s, dst []byte) {
		want := AppendString(bytes.Clone(dst), string(s))
		if got := AppendLongString(bytes.Clone(dst), s); !bytes.Equal(got, want) {
			t.Fatalf("%q: %q, AppendString %q", s, got, want)
		}
	})
}
