package stages

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
)

// The stage crosses a snapshot's streamed texts by comparing them with what it released;
// what it finds is what codec finds crossing every byte: the snapshot's end and content
// member (crossSnapshot: codec.SkipValue, codec.Find) and the nested event's members
// (nestedEvent: parseNestedEvent), whether the texts are the ones released, longer,
// shorter, other, or written with escapes, with members repeated or spaced, and whether
// the snapshot is made of the clean one's bytes around its content or not.
func TestRedactCrossesSnapshotsAsCodecDoes(t *testing.T) {
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(9, 10))
	s := NewRedact(r)
	texts := []string{"", "0000 0001 ", "0000 0001 0002 ", "x", strings.Repeat("0123 ", 300)}
	pick := func(xs ...string) string { return xs[rnd.IntN(len(xs))] }
	for range 3000 {
		s.blocks = s.blocks[:0]
		released := make([]string, 1+rnd.IntN(3))
		for n := range released {
			b := s.newBlock(blockText)
			released[n] = texts[rnd.IntN(len(texts))]
			b.stream.Push([]byte(released[n]))
			s.blocks = append(s.blocks, b)
		}
		snapshot := func() string {
			var blocks []string
			for n := range 1 + rnd.IntN(4) {
				text := texts[rnd.IntN(len(texts))]
				if n < len(released) && rnd.IntN(2) == 0 {
					text = released[n]
				}
				text = pick(text, text+"0", text+`\"`, `\n`+text, text+"é")
				blocks = append(blocks, fmt.Sprintf(`{"type":%q,%s"text"%s:%s"%s","textSignature":"%s"}`,
					pick("text", "thinking"), pick("", `"x":[1,{"y":"0000 "}],`), pick("", " "), pick("", " "), text, text))
			}
			content := "[" + strings.Join(blocks, pick(",", " , ")) + "]"
			return fmt.Sprintf(`{"role":"assistant",%s"content":%s,"api":"a"%s}`,
				pick("", `"content":[],`), content, pick("", `,"content":"no"`, `,"usage":{"input":0}`))
		}
		// The clean snapshot's layout, which a snapshot made of its bytes around another
		// content is crossed by, when there is one.
		s.cleanPrefix, s.cleanSuffix = nil, nil
		if clean := []byte(snapshot()); rnd.IntN(4) > 0 {
			if c := codec.Find(clean, "content"); clean[c.ValStart] == '[' {
				s.cleanPrefix, s.cleanSuffix, s.cleanKey = clean[:c.ValStart], clean[c.ValEnd:], c.KeyStart
			}
		}
		snap := snapshot()
		raw := []byte(fmt.Sprintf(`{"type":"text_delta","contentIndex":0,"delta":"0001 ",%s"partial":%s%s}`,
			pick("", `"partial":{},`), snap, pick("", `,"contentIndex":1`, ` `)))
		if !codec.Valid(raw) {
			t.Fatalf("not JSON: %s", raw)
		}
		vs := strings.Index(string(raw), `"partial":{"role"`) + len(`"partial":`)
		s.gen++ // a line of its own: nothing crossed in it yet
		end, got := s.crossSnapshot(raw, vs)
		want := codec.Find(raw[vs:], "content")
		want.KeyStart, want.ValStart, want.ValEnd = want.KeyStart+vs, want.ValStart+vs, want.ValEnd+vs
		if wantEnd := codec.SkipValue(raw, vs); end != wantEnd || got != want {
			t.Fatalf("%s (released %q): end %d, content %+v; codec: %d, %+v", raw, released, end, got, wantEnd, want)
		}
		s.gen++
		if got, want := s.nestedEvent(raw), parseNestedEvent(raw); got.m != want.m {
			t.Fatalf("%s (released %q):\n members %+v\n codec's %+v", raw, released, got.m, want.m)
		}
	}
}
