package codec

import (
	"bytes"
	"testing"
)

// scanPlainSimple is scanPlain a byte at a time.
func scanPlainSimple(b []byte, i int) (int, bool) {
	high := false
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		high = high || c >= 0x80
	}
	return i, high
}

// checkScanPlain holds scanPlain and scanPlainWords to the byte-at-a-time scanner, from every
// start in b (and one past its end, where the scanners return the start).
func checkScanPlain(t *testing.T, b []byte) {
	t.Helper()
	for start := 0; start <= len(b)+1; start++ {
		wantEnd, wantHigh := scanPlainSimple(b, start)
		if end, high := scanPlain(b, start); end != wantEnd || high != wantHigh {
			t.Fatalf("scanPlain(%q, %d) = %d, %v; want %d, %v", b, start, end, high, wantEnd, wantHigh)
		}
		if end, high := scanPlainWords(b, start); end != wantEnd || high != wantHigh {
			t.Fatalf("scanPlainWords(%q, %d) = %d, %v; want %d, %v", b, start, end, high, wantEnd, wantHigh)
		}
	}
}

// plainBytes is n plain ASCII bytes, none of them a special one.
func plainBytes(n int) []byte {
	b := make([]byte, n)
	for k := range b {
		b[k] = 'a' + byte(k%26)
	}
	return b
}

// Each special byte, and the bytes either side of each range, at every offset of a block and of
// the tail, in strings of every length up to 100; the slice cut just after the special, so
// that it is the last byte (and the loads at the end of b must not run past it).
func TestScanPlainSpecialAtEveryOffset(t *testing.T) {
	for _, c := range []byte{'"', '\\', 0x00, 0x01, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xc3, 0xff} {
		for n := 0; n <= 100; n++ {
			for at := 0; at < n; at++ {
				b := plainBytes(n)
				b[at] = c
				checkScanPlain(t, b)
				checkScanPlain(t, b[:at+1])
			}
		}
	}
	for n := 0; n <= 100; n++ {
		checkScanPlain(t, plainBytes(n))
	}
}

// A byte >= 0x80 at every offset before, at and after a special byte at every offset.
func TestScanPlainHighAndSpecial(t *testing.T) {
	for n := 1; n <= 80; n++ {
		for at := range n {
			for high := range n {
				if high == at {
					continue
				}
				b := plainBytes(n)
				b[at] = '"'
				b[high] = 0xe9
				checkScanPlain(t, b)
			}
		}
	}
}

// A special byte at every offset of a long run, after 0..63 plain bytes from the start and
// with the start at every alignment of the slice's memory.
func TestScanPlainLongRuns(t *testing.T) {
	buf := plainBytes(300)
	for shift := range 16 {
		for at := 0; at < 64; at++ {
			b := bytes.Clone(buf[shift:])
			b[200+at] = '\\'
			for _, start := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 200 + at} {
				wantEnd, _ := scanPlainSimple(b, start)
				if end, high := scanPlain(b, start); end != wantEnd || high {
					t.Fatalf("shift %d special at %d start %d: scanPlain = %d, %v; want %d, false", shift, 200+at, start, end, high, wantEnd)
				}
			}
		}
	}
}

// FuzzScanPlain: the assembly and the Go word-at-a-time scanner agree with the byte-at-a-time
// one on any bytes, from every start.
func FuzzScanPlain(f *testing.F) {
	for _, s := range []string{"", `"`, "plain", "0123456789abcdef0123456789abcdef\"",
		"0123456789abcdef0123456789abcdef0123456789abcde\x1f", "é ünïcödé 😀 and more text, longer than thirty-two\\"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkScanPlain(t, b)
	})
}
