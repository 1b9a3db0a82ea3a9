package codec

import (
	"fmt"
	"strings"
	"testing"
)

// Typical lines of the delta form and of a 10-million-line stream: validating and indexing
// them is most of what a filter does per line.
var benchLines = map[string]string{
	"delta": `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"0092 "}}`,
	"tiny":  `{"type":"turn_start"}`,
}

func BenchmarkCheckObjectIndexed(b *testing.B) {
	for name, s := range benchLines {
		line := []byte(s)
		b.Run(name, func(b *testing.B) {
			var ix Index
			b.SetBytes(int64(len(line)))
			for range b.N {
				if CheckObjectIndexed(line, &ix) != nil {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkCheckObjectIndexedStream checks the lines of one streamed block in turn, each the
// line before it but for its delta, as the delta form has them.
func BenchmarkCheckObjectIndexedStream(b *testing.B) {
	lines := make([][]byte, 1000)
	size := 0
	for i := range lines {
		lines[i] = fmt.Appendf(nil, `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"%04d "}}`, i)
		size += len(lines[i])
	}
	b.SetBytes(int64(size / len(lines)))
	var ix Index
	for i := range b.N {
		if CheckObjectIndexed(lines[i%len(lines)], &ix) != nil {
			b.Fatal("invalid")
		}
	}
}

// BenchmarkValidStringLong crosses 10 KB string bodies, as the full form's lines hold: plain
// ASCII, text with multi-byte characters, and tool output with escaped line breaks.
func BenchmarkValidStringLong(b *testing.B) {
	ascii := strings.Repeat("The quick brown fox jumps over the lazy dog; ", 230)[:10240]
	utf := strings.Repeat("Ünïcödé text: the quick brown fox jumps over the lazy dög. ", 180)[:10240]
	// Tool output: short lines, each ending in an escaped line break.
	lines := strings.Repeat(`total 48 drwxr-xr-x  5 user user 4096 file.go\n`, 220)[:10240]
	for _, c := range []struct{ name, body string }{{"ascii", ascii}, {"utf8", utf}, {"lines", lines}} {
		s := []byte(c.body + `"`)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for range b.N {
				if end, ok := validString(s, 0); !ok || end != len(s) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
