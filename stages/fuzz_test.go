package stages_test

import (
	"bytes"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// FuzzFilters: on any input, deltas and expand keep every line in its place, never touch a
// line that is not an event they handle (not even its CR), and deltas is idempotent.
func FuzzFilters(f *testing.F) {
	for _, in := range referenceStreams(f) {
		ls := lines(in)
		for i := 0; i+3 <= len(ls) && i < 40; i += 3 {
			f.Add(bytes.Join(ls[i:i+3], []byte("\n")))
		}
	}
	f.Add([]byte("{\"type\":\"message_update\",\"messageId\":2,\"assistantMessageEvent\":{\"type\":\"toolcall_start\",\"contentIndex\":5}}\nnot json\n"))
	f.Add([]byte("{\"type\":\"turn_start\"}\r\n{\"type\":\"message_update\",\"assistantMessageEvent\":{\"type\":\"text_delta\",\"contentIndex\":0,\"delta\":\"a\"}}\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, name := range []string{"deltas", "expand"} {
			var out []byte
			if name == "deltas" {
				out = deltas(t, in)
			} else {
				out = expand(t, in)
			}
			il, ol := lines(in), lines(out) // a CR before an LF is part of its line
			if len(il) != len(ol) {
				t.Fatalf("%s: %d lines in, %d out", name, len(il), len(ol))
			}
			for i := range il {
				typ := ""
				if codec.CheckObject(il[i]) == nil {
					typ = codec.LineType(il[i])
				}
				switch typ {
				case "message_start", "message_update", "message_end":
					if codec.CheckObject(ol[i]) != nil {
						t.Fatalf("%s made line %d invalid: %s", name, i+1, ol[i])
					}
				default:
					if !bytes.Equal(il[i], ol[i]) {
						t.Fatalf("%s changed line %d: %q → %q", name, i+1, il[i], ol[i])
					}
				}
			}
			if name == "deltas" {
				if again := deltas(t, out); !bytes.Equal(again, out) {
					t.Fatalf("deltas not idempotent:\n%s\n%s", out, again)
				}
			}
		}
	})
}
