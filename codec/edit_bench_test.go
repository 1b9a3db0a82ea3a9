package codec

import (
	"bytes"
	"os"
	"testing"

	"github.com/tidwall/sjson"
)

// typicalLine is a full-form message_update of a reference stream (about 1 KB), with a
// "seq" member as the header stage stamps it.
func typicalLine(b *testing.B) []byte {
	data, err := os.ReadFile("../testdata/reference/b_tool_bash.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		if LineType(l) == TypeMessageUpdate {
			return append([]byte(`{"type":"message_update","seq":41`), l[len(`{"type":"message_update"`):]...)
		}
	}
	b.Fatal("no message_update")
	return nil
}

// Setting one member of a line, the header stage's job: our lookup and splice against
// sjson. The design notes in docs/design.md quote the figures.
func BenchmarkSetMemberSplice(b *testing.B) {
	line, num := typicalLine(b), []byte("42")
	var buf []byte
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		m := Find(line, "seq")
		buf = Splice(buf[:0], line, Edit{Start: m.ValStart, End: m.ValEnd, Text: num})
	}
	if !bytes.Contains(buf, []byte(`"seq":42,`)) {
		b.Fatalf("not set: %.80s", buf)
	}
}

func BenchmarkSetMemberSjson(b *testing.B) {
	line, num := typicalLine(b), []byte("42")
	var out []byte
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		var err error
		if out, err = sjson.SetRawBytes(line, "seq", num); err != nil {
			b.Fatal(err)
		}
	}
	if !bytes.Contains(out, []byte(`"seq":42,`)) {
		b.Fatalf("not set: %.80s", out)
	}
}
