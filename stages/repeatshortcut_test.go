package stages

import (
	"strings"
	"testing"
)

// repeatsDeltaOf takes a line as the next delta when the line before it was one and only the
// body of the string value where that line's delta starts changed. That is sound only when
// the line before is the very line it remembers a delta for: then the bytes before that
// string are a delta line's, so the string is its delta. These lines put another string at
// the remembered place, in a line that repeats the one before it there, but whose line before
// is no delta line (it was not asked about, or it was found not to be one): those must be
// read, not remembered.
func TestRepeatsDeltaOfRemembersOnlyTheLineBefore(t *testing.T) {
	const head = `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,`
	delta := func(key, body string) string { return head + `"` + key + `":"` + body + `"}}` }
	for _, c := range []struct {
		name string
		// lines follow two deltas of a block (the second found to repeat the first, whose
		// delta's place is remembered); want: what repeatsDeltaOf says of each, asked with
		// the line before it (after a line asked about, when ask says so).
		lines []string
		ask   []bool
		want  []bool
	}{
		{"the next deltas",
			[]string{delta("delta", "ccc"), delta("delta", "dd")},
			[]bool{true, true}, []bool{true, true}},
		{"another key of the same length, then a change of its value",
			[]string{delta("dolta", "ccc"), delta("dolta", "dddd")},
			[]bool{true, true}, []bool{false, false}},
		{"the same, the line before not asked about",
			[]string{delta("dolta", "ccc"), delta("dolta", "dddd")},
			[]bool{false, true}, []bool{false, false}},
		{"another container's name of the same length",
			[]string{strings.Replace(delta("delta", "ccc"), "assistantMessageEvent", "assistantMessageEvenT", 1),
				strings.Replace(delta("delta", "dddd"), "assistantMessageEvent", "assistantMessageEvenT", 1)},
			[]bool{true, true}, []bool{false, false}},
		{"a deeper delta at the same place",
			[]string{strings.Replace(delta("delta", "ccc"), `"contentIndex":0,`, `"c":{"content":0,`, 1) + "}",
				strings.Replace(delta("delta", "dddd"), `"contentIndex":0,`, `"c":{"content":0,`, 1) + "}"},
			[]bool{true, true}, []bool{false, false}},
		{"a duplicate container after it: the last one is the update's",
			[]string{strings.TrimSuffix(delta("delta", "ccc"), "}") + `,"assistantMessageEvent":{}}`,
				strings.TrimSuffix(delta("delta", "dddd"), "}") + `,"assistantMessageEvent":{}}`},
			[]bool{true, true}, []bool{false, false}},
		{"a delta again after another line",
			[]string{`{"type":"turn_end"}`, delta("delta", "ee"), delta("delta", "f")},
			[]bool{true, true, true}, []bool{false, false, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &Frame{}
			check := func(line string, n int) lineID {
				f.reuse([]byte(line), n)
				if err := f.Check(); err != nil {
					t.Fatalf("line %d: %v", n, err)
				}
				return f.checkedLine()
			}
			first := check(delta("delta", "a"), 1)
			second := check(delta("delta", "bb"), 2)
			if !f.repeatsDeltaOf(first) || f.deltaLine != second {
				t.Fatalf("the second delta of a block: not found to repeat the first")
			}
			prev, at := second, f.deltaAt
			for i, line := range c.lines {
				id := check(line, i+3)
				if !c.ask[i] {
					prev = id
					continue
				}
				if !c.want[i] && f.index.Repeats() && f.index.ChangedValue().ValStart != at {
					t.Fatalf("line %d %s: its change is not where the delta was remembered", i+3, line)
				}
				got := f.repeatsDeltaOf(prev)
				if got != c.want[i] {
					t.Errorf("line %d %s: repeatsDeltaOf = %v, want %v", i+3, line, got, c.want[i])
				}
				if got && (f.index.ChangedValue().ValStart != f.deltaAt || f.deltaLine != id) {
					t.Errorf("line %d: remembers line %v at %d, the delta of line %v is at %d",
						i+3, f.deltaLine, f.deltaAt, id, f.index.ChangedValue().ValStart)
				}
				prev = id
			}
		})
	}
}

// repeatsBodiesOf takes the next delta, known from repeatsDeltaOf, as a change of the member
// "delta" only: it holds for keys that name "delta", not for others.
func TestRepeatsBodiesOfTakesTheNextDelta(t *testing.T) {
	const head = `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"`
	for _, c := range []struct {
		keys []string
		want bool
	}{{changingTexts, true}, {unreadStrings, true}, {[]string{"text", "thinking"}, false}, {[]string{"type", "delta"}, true}} {
		f := &Frame{}
		var prev lineID
		for n, body := range []string{"a", "bb", "c", "dd"} {
			f.reuse([]byte(head+body+`"}}`), n+1)
			if err := f.Check(); err != nil {
				t.Fatal(err)
			}
			if n >= 1 {
				if got := f.repeatsBodiesOf(prev, c.keys); got != c.want {
					t.Errorf("keys %q, delta %d: repeatsBodiesOf = %v, want %v", c.keys, n+1, got, c.want)
				}
			}
			if n >= 2 && f.deltaLine != f.checkedLine() {
				t.Errorf("keys %q, delta %d: not found the next delta", c.keys, n+1)
			}
			prev = f.checkedLine()
		}
	}
}
