package codec

import (
	"bytes"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// A line that repeats the line before but for the bodies of some of its string values is
// checked by comparing bytes and validating the new parts of those bodies (repeatStrings).
// These tests hold it to a fresh index: the same verdict, members, strings and answers, and
// changes that say exactly where the lines differ.

// fullUpdate is a full-form update of the shape f_long has: its delta, and the text of both
// snapshots, change from one update to the next.
func fullUpdate(delta, text string) string {
	msg := `{"role":"assistant","content":[{"type":"text","text":"` + text + `"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1,"responseId":"r"}`
	return `{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"` + delta + `","partial":` + msg + `},"message":` + msg + `}`
}

var repeatKeys = []string{"type", "messageId", "assistantMessageEvent", "message", "a", "b", "c"}

// checkLinesAsFresh indexes lines one after the other in one index and each in a fresh one,
// and fails where they disagree; it returns how many lines were found to repeat strings.
func checkLinesAsFresh(t *testing.T, lines ...[]byte) (repeats int) {
	t.Helper()
	var reused Index
	var prev []byte
	var prevMembers []Member
	prevValid := false
	for n, line := range lines {
		var fresh Index
		errReused, errFresh := CheckObjectIndexed(line, &reused), CheckObjectIndexed(line, &fresh)
		if (errReused == nil) != (errFresh == nil) {
			t.Fatalf("line %d %q after %q: %v; fresh: %v", n, line, prev, errReused, errFresh)
		}
		if errReused != nil {
			prevValid = false
			prev = line
			continue
		}
		got, want := make([]Member, len(repeatKeys)), make([]Member, len(repeatKeys))
		reused.FindEach(repeatKeys, got)
		fresh.FindEach(repeatKeys, want)
		if !slices.Equal(got, want) || !slices.Equal(reused.members, fresh.members) || reused.Type() != fresh.Type() {
			t.Fatalf("line %d %q after %q: members %+v, fresh %+v", n, line, prev, reused.members, fresh.members)
		}
		for j := range fresh.members {
			if !bytes.Equal(reused.key(line, j), fresh.key(line, j)) {
				t.Fatalf("line %d %q: key %d %q, fresh %q", n, line, j, reused.key(line, j), fresh.key(line, j))
			}
		}
		if reused.Unambiguous() != fresh.Unambiguous() {
			t.Fatalf("line %d %q after %q: unambiguous %v, fresh %v", n, line, prev, reused.Unambiguous(), fresh.Unambiguous())
		}
		if reused.notes.last != fresh.notes.last || reused.notes.sameKeys != fresh.notes.sameKeys {
			t.Fatalf("line %d %q: notes %+v, fresh %+v", n, line, reused.notes, fresh.notes)
		}
		if reused.prevBodies && (!slices.Equal(reused.notes.bodies[:len(reused.notes.bodies)-1], fresh.notes.bodies[:len(fresh.notes.bodies)-1]) || reused.notes.last != fresh.notes.bodies[len(fresh.notes.bodies)-1]) {
			t.Fatalf("line %d %q after %q: strings %+v, fresh %+v", n, line, prev, reused.notes.bodies, fresh.notes.bodies)
		}
		if len(reused.prev) > 0 && !bytes.Equal(reused.prev, line) {
			t.Fatalf("line %d %q: kept %q", n, line, reused.prev)
		}
		if fresh.RepeatsStrings() || fresh.Repeats() {
			t.Fatal("a fresh index says its line repeats another")
		}
		if reused.RepeatsStrings() {
			repeats++
			if !prevValid {
				t.Fatalf("line %d %q repeats an invalid line", n, line)
			}
			checkChanges(t, &reused, prev, prevMembers, line)
		}
		prevValid, prev, prevMembers = true, line, slices.Clone(reused.members)
	}
	return repeats
}

// checkChanges requires the changes ix lists to be the only differences of line from prev:
// prev with those bodies replaced is line, each body is that of a string value of line (as a
// fresh index finds them), Changed says which members hold them, and Moved moves the members.
func checkChanges(t *testing.T, ix *Index, prev []byte, prevMembers []Member, line []byte) {
	t.Helper()
	var fresh Index
	fresh.notes.record = true
	if !indexObject(line, &fresh) {
		t.Fatal("not valid")
	}
	if ix.Changes() == 0 || ix.Repeats() != (ix.Changes() == 1) {
		t.Fatalf("%q after %q: %d changes, Repeats %v", line, prev, ix.Changes(), ix.Repeats())
	}
	if bytes.Equal(prev, line) { // found by the check of the last string value alone
		if !ix.lastOnly || !ix.Repeats() || ix.change(0).stringValue != ix.notes.last {
			t.Fatalf("%q repeats itself with changes %+v", line, ix.change(0))
		}
		return
	}
	var rebuilt []byte
	pos, moved := 0, 0
	for i := range ix.Changes() {
		c := ix.change(i)
		if !slices.Contains(fresh.notes.bodies, c.stringValue) {
			t.Fatalf("%q after %q: change %+v is not a string value of the line", line, prev, c)
		}
		start := c.body - moved // its body's start in prev
		moved = c.end - c.was
		if c.from < c.body || c.from > c.end || !bytes.Equal(line[c.body:c.from], prev[start:start+c.from-c.body]) {
			t.Fatalf("%q after %q: change %+v starts to differ before %d", line, prev, c, c.from)
		}
		if ix.Moved(c.was) != c.end {
			t.Fatalf("%q after %q: closing quote %d moved to %d, not %d", line, prev, c.was, ix.Moved(c.was), c.end)
		}
		rebuilt = append(rebuilt, prev[pos:start]...)
		rebuilt = append(rebuilt, line[c.body:c.end]...)
		pos = c.was
		key, depth := ix.ChangedStringAt(i)
		v := ix.ChangedValueAt(i)
		if depth != c.depth || v.ValStart != c.body-1 || v.ValEnd != c.end+1 || (c.key < 0) != (key == nil) {
			t.Fatalf("%q: change %d: key %q depth %d value %+v", line, i, key, depth, v)
		}
		if bytes.Equal(prev[start:c.was], line[c.body:c.end]) {
			t.Fatalf("%q after %q: change %+v changes nothing", line, prev, c)
		}
	}
	rebuilt = append(rebuilt, prev[pos:]...)
	if !bytes.Equal(rebuilt, line) {
		t.Fatalf("%q after %q: %d changes make %q", line, prev, ix.Changes(), rebuilt)
	}
	for j, m := range ix.members {
		was := prevMembers[j]
		if ix.Moved(was.KeyStart) != m.KeyStart || ix.Moved(was.ValStart) != m.ValStart || ix.Moved(was.ValEnd) != m.ValEnd {
			t.Fatalf("%q after %q: member %d %+v moved from %+v", line, prev, j, m, was)
		}
		if ix.Changed(m) != !bytes.Equal(m.Raw(line), was.Raw(prev)) {
			t.Fatalf("%q after %q: member %d changed %v", line, prev, j, ix.Changed(m))
		}
		name := string(ix.key(line, j))
		last := true
		for k := j + 1; k < len(ix.members); k++ {
			last = last && string(ix.key(line, k)) != name
		}
		if last && ix.ChangedIn(name) != ix.Changed(m) {
			t.Fatalf("%q after %q: ChangedIn(%q) %v", line, prev, name, ix.ChangedIn(name))
		}
	}
}

// change is the i-th change of a repeated line.
func (ix *Index) change(i int) change {
	if ix.lastOnly {
		return change{stringValue: ix.notes.last, from: ix.notes.last.body, was: ix.lastWas, k: len(ix.notes.bodies) - 1}
	}
	return ix.changes[i]
}

func TestRepeatStrings(t *testing.T) {
	u1, u2, u3 := fullUpdate("0001 ", "0000 0001 "), fullUpdate("0002 ", "0000 0001 0002 "), fullUpdate("0003 ", "0000 0001 0002 0003 ")
	for _, c := range []struct {
		lines   []string
		repeats int
	}{
		{[]string{u1, u2, u3}, 2},
		{[]string{u1, strings.Replace(u2, `"contentIndex":0`, `"contentIndex":1`, 1)}, 0}, // a number
		{[]string{u1, strings.Replace(u2, `"api"`, `"apj"`, 1)}, 0},                       // a key
		{[]string{u1, strings.Replace(u2, `"timestamp":1`, `"timestamp":1 `, 1)}, 0},      // white space
		{[]string{u1, strings.Replace(u2, `"r"}}`, `"r"} }`, 1)}, 0},                      // white space at the end
		{[]string{u1, u2 + " "}, 0},                                                            // a longer line
		{[]string{u1, u2[:len(u2)-1]}, 0},                                                      // invalid
		{[]string{u1, strings.Replace(u2, `0002 "`, `0002 \"`, 1)}, 0},                         // a quote escaped
		{[]string{u1, strings.Replace(u2, `0002 "`, `0002 \u00e9\n"`, 1)}, 1},                  // escapes
		{[]string{u1, strings.Replace(u2, `0002 "`, "0002 é\"", 1)}, 1},                        // UTF-8
		{[]string{u1, strings.Replace(u2, `0002 "`, "0002 \xc3\"", 1)}, 0},                     // not UTF-8
		{[]string{u1, strings.Replace(u2, `0002 "`, "0002 \x01\"", 1)}, 0},                     // a control character
		{[]string{u1, strings.Replace(u2, `"delta":"0002 "`, `"delta":"0002 ","x":""`, 1)}, 0}, // a new member
		{[]string{`{"a":"x\u00e9y","b":"\\\\"}`, `{"a":"x\u00e8y","b":"\\\\\\"}`}, 1},
		{[]string{`{"a":"x\u00e9y","b":"\\\\"}`, `{"a":"x\u00e8y","b":"\\\\\"}`}, 0},
		{[]string{`{"a":"x\u00e9y","b":"\\\\"}`, `{"a":"x\u00e8y","b":"\\\\\n"}`}, 1},
		{[]string{`{"a":"xéy","b":"z"}`, `{"a":"xèy","b":"zz"}`}, 1},
		{[]string{`{"a":"xéy","b":"z"}`, "{\"a\":\"x\xc3\xc3y\",\"b\":\"zz\"}"}, 0},
		{[]string{`{"a":"x","b":"y","n":1}`, `{"a":"xx","b":"y","n":1}`, `{"a":"x","b":"y","n":2}`}, 1},
		{[]string{`{"type":"x","n":1,"m":2}`, `{"type":"xy","n":1,"m":2}`, `{"type":"x","n":1,"m":3}`}, 1},
		{[]string{`{"a":["x",{"b":"y"}],"c":"z"}`, `{"a":["xx",{"b":""}],"c":"zzz"}`}, 1},
		{[]string{`{"a":["x",{"b":"y"}],"c":"z"}`, `{"a":["xx",{"c":""}],"c":"zzz"}`}, 0},
		{[]string{`{"a":"x","b":"y"}`, `{"a":"x\",\"b\":\"y"}`}, 0},
		{[]string{`{"a":"\u00e9","b":"y"}`, `{"a":"\u00e9","b":"\u00e9"}`}, 1},
		{[]string{`{"a":"\u00e9","b":"y","c":"z"}`, `{"a":"\u00e9","b":"\/","c":"zz"}`}, 1},
	} {
		lines := make([][]byte, len(c.lines))
		for i, l := range c.lines {
			lines[i] = []byte(l)
		}
		if got := checkLinesAsFresh(t, lines...); got != c.repeats {
			t.Errorf("%q: %d lines repeat strings, want %d", c.lines, got, c.repeats)
		}
	}
}

// TestRepeatStringsMutated changes lines of many shapes in many ways, most of them in string
// bodies, at places chosen at random: near escapes, multi-byte characters, keys, numbers.
func TestRepeatStringsMutated(t *testing.T) {
	bases := []string{
		fullUpdate("0001 ", "0000 0001 "),
		fullUpdate(`a\"b`, `\u00e9\n\\ é 😀 x`),
		`{"type":"x","list":["a",1,"b\\",{"k":"v\u0041"}],"s":"é","n":-1.5e3,"t":true}`,
		`{"a":"","b":"","c":[""," ",{"":""}]}`,
	}
	pieces := []string{"", "a", "\\n", "\\\\", "\\\"", "\\u00e9", "\\ud800", "é", "😀", "\xc3", "\xa9", `"`, `\`, "\\u00", ",", "}", ":", "1", " ", "\x1f", "\\/", "\\x"}
	r := rand.New(rand.NewSource(1))
	repeats := 0
	for n := 0; n < 20000; n++ {
		base := []byte(bases[r.Intn(len(bases))])
		lines := [][]byte{base}
		for len(lines) < 3 {
			line := slices.Clone(lines[len(lines)-1])
			for e := r.Intn(4); e >= 0 && len(line) > 0; e-- {
				at := r.Intn(len(line) + 1)
				cut := min(len(line)-at, r.Intn(3))
				var ix Index
				ix.notes.record = true
				switch r.Intn(4) {
				case 0: // near a backslash or a multi-byte character
					if k := bytes.IndexAny(line[at:], "\\\xc3\xf0"); k >= 0 {
						at = min(len(line), at+k+r.Intn(4))
						cut = min(cut, len(line)-at)
					}
				case 1, 2: // in a string's body, or at its end
					if indexObject(line, &ix) && len(ix.notes.bodies) > 0 {
						v := ix.notes.bodies[r.Intn(len(ix.notes.bodies))]
						at = v.body + r.Intn(v.end-v.body+1)
						cut = min(cut, v.end-at)
					}
				}
				line = slices.Concat(line[:at], []byte(pieces[r.Intn(len(pieces))]), line[at+cut:])
			}
			lines = append(lines, line)
		}
		repeats += checkLinesAsFresh(t, lines...)
	}
	t.Logf("%d lines found to repeat", repeats)
	if repeats < 2000 {
		t.Errorf("only %d lines found to repeat", repeats)
	}
}

// FuzzRepeatStrings: three lines indexed in turn agree with fresh indexes; the second and
// third also found in unsplit input agree with being found as whole lines.
func FuzzRepeatStrings(f *testing.F) {
	u1, u2, u3 := fullUpdate("0001 ", "0000 0001 "), fullUpdate("0002 ", "0000 0001 0002 "), fullUpdate("0003 ", "0000 0001 0002 0003 ")
	for _, l := range [][3]string{
		{u1, u2, u3},
		{u1, strings.Replace(u2, `0002 "`, `0002 \u00e9\n"`, 1), u3},
		{u1, strings.Replace(u2, `0002 "`, "0002 é\"", 1), u3},
		{`{"a":"x\u00e9y","b":"\\\\"}`, `{"a":"x\u00e8y","b":"\\\\\n"}`, `{"a":"x\u00e8y","b":"\\\\\\"}`},
		{`{"a":"xéy","b":"z"}`, `{"a":"xèy","b":"zz"}`, "{\"a\":\"x\xc3\xc3y\",\"b\":\"zz\"}"},
		{`{"type":"x","n":1,"m":2}`, `{"type":"xy","n":1,"m":2}`, `{"type":"x","n":1,"m":3}`},
		{`{"a":["x",{"b":"y"}],"c":"z"}`, `{"a":["xx",{"b":""}],"c":"zzz"}`, `{"a":["xx",{"c":""}],"c":"zzz"}`},
	} {
		f.Add([]byte(l[0]), []byte(l[1]), []byte(l[2]))
	}
	f.Fuzz(checkRepeatStrings)
}

func checkRepeatStrings(t *testing.T, first, second, third []byte) {
	checkLinesAsFresh(t, first, second, third)
	for _, next := range [][]byte{second, third} {
		if bytes.IndexByte(next, '\n') >= 0 || bytes.IndexByte(first, '\n') >= 0 {
			return
		}
		var whole, split Index
		if CheckObjectIndexed(first, &whole) != nil {
			return
		}
		CheckObjectIndexed(first, &split)
		CheckObjectIndexed(next, &whole)
		pending := slices.Concat(next, []byte("\n"), third)
		n := split.CheckRepeatedLine(pending)
		if whole.RepeatsStrings() != (n > 0) || n > 0 && n != len(next) {
			t.Fatalf("%q after %q: repeats as a line %v, in input %d", next, first, whole.RepeatsStrings(), n)
		}
		if n > 0 && (!slices.Equal(whole.members, split.members) || whole.Changes() != split.Changes() || whole.change(0) != split.change(0) || !split.Indexed(pending[:n])) {
			t.Fatalf("%q after %q: in input %+v %+v, as a line %+v %+v", next, first, split.members, split.change(0), whole.members, whole.change(0))
		}
		if n == 0 && split.Count() != 1 {
			t.Fatal("a line not found in input was counted")
		}
	}
}

// RepeatLastRun checks a run of lines as CheckRepeatedLine checks them one at a time: the same
// lines, leaving the index as the steps do, and stopping only where a step would not find the
// next line so or where its new body has a \u or \/ escape.
func FuzzRepeatLastRun(f *testing.F) {
	delta := `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"`
	for _, l := range [][]string{
		{delta + `0000 "}}`, "0001 ", "0002 ", "", "0003 \\n", "é", `\u00e9`, "0004 ", `\/`, "x"},
		{delta + `a"}}` + "\r", "b\"}}\r", "c\"}}\r", "d\"}}"},
		{`{"a":"x","b":"y"}`, "z", "zz\"}\n{\"a\":\"x\",\"b\":\"\"}\n{\"a\":\"w", "\\\\u", "\x01", "\xff", "q"},
		{`{"a":"\u00e9","b":"y"}`, "z", "w", `\ud800`, "v"},
		{`{"a":"x","a":"y"}`, "z", "w"},
	} {
		f.Add(l[0], strings.Join(l[1:], "\x00"))
	}
	f.Fuzz(func(t *testing.T, first, bodies string) {
		var ix Index
		if strings.IndexByte(first, '\n') >= 0 || CheckObjectIndexed([]byte(first), &ix) != nil || ix.notes.last.body == 0 || len(ix.prev) == 0 {
			return
		}
		// The lines after first: first with the body of its last string value replaced by each
		// of bodies, which may hold anything (escapes, invalid bytes, LFs that end the line).
		prefix, suffix := first[:ix.notes.last.body], first[ix.notes.last.end:]
		var input []byte
		for b := range strings.SplitSeq(bodies, "\x00") {
			input = append(append(append(append(input, prefix...), b...), suffix...), '\n')
		}
		var steps Index
		CheckObjectIndexed([]byte(first), &steps)
		for pos := 0; pos < len(input); {
			n, lines := ix.RepeatLastRun(input[pos:], nil)
			if lines == 0 {
				// Where the run stops, a step finds no plain repeat of the last string's body.
				end := pos + bytes.IndexByte(input[pos:], '\n')
				if k := steps.CheckRepeatedLine(input[pos:]); k > 0 && steps.lastOnly && !hasEscapeOf(input[pos+steps.notes.last.body:pos+steps.notes.last.end], 'u', '/') {
					t.Fatalf("the run stopped before %q, a plain repeat", input[pos:pos+k])
				} else if k == 0 {
					CheckObjectIndexed(input[pos:end], &steps)
				}
				// Both go on from the next line as a reader would.
				CheckObjectIndexed(input[pos:end], &ix)
				pos = end + 1
				continue
			}
			if input[pos+n-1] != '\n' || bytes.Count(input[pos:pos+n], []byte("\n")) != lines {
				t.Fatalf("a run of %d lines in %q", lines, input[pos:pos+n])
			}
			var last []byte
			for range lines {
				k := steps.CheckRepeatedLine(input[pos:])
				if k <= 0 || !steps.lastOnly {
					t.Fatalf("%q in the run is not a repeat of the last string", input[pos:])
				}
				last, pos = input[pos:pos+k], pos+k+1
			}
			if !ix.Indexed(last) || ix.Count() != steps.Count() || !slices.Equal(ix.members, steps.members) ||
				ix.notes.last != steps.notes.last || ix.lastWas != steps.lastWas || !bytes.Equal(ix.prev, steps.prev) ||
				ix.marksUpTo != steps.marksUpTo || !ix.Repeats() || ix.ChangedValue() != steps.ChangedValue() {
				t.Fatalf("after the run ending %q: %+v; in steps %+v", last, ix, steps)
			}
			var fresh Index
			if CheckObjectIndexed(last, &fresh) != nil || ix.Unambiguous() != fresh.Unambiguous() || !slices.Equal(ix.members, fresh.members) {
				t.Fatalf("%q: unambiguous %v, fresh %v", last, ix.Unambiguous(), fresh.Unambiguous())
			}
			if steps.Unambiguous() != ix.Unambiguous() {
				t.Fatal("steps disagree on ambiguity")
			}
		}
	})
}

// A run goes on while lines repeat the last one but for its delta, and stops before a line
// that changes anything else, before an escape that can make a line ambiguous, and before a
// line not yet ended by an LF.
func TestRepeatLastRun(t *testing.T) {
	d := func(text string) string {
		return `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"` + text + `"}}` + "\n"
	}
	input := d("a") + d("b") + d("c\\n") + d(`\u00e9`) + d("e") + d("f") + `{"type":"message_update","messageId":2}` + "\n" + d("g")
	var ix Index
	if err := CheckObjectIndexed([]byte(strings.TrimSuffix(d("0"), "\n")), &ix); err != nil {
		t.Fatal(err)
	}
	in := []byte(input)
	n, lines := ix.RepeatLastRun(in, nil)
	if lines != 3 || n != len(d("a")+d("b")+d("c\\n")) || ix.Count() != 4 || !ix.Indexed(in[n-len(d("c\\n")):n-1]) {
		t.Fatalf("first run: %d bytes, %d lines, count %d", n, lines, ix.Count())
	}
	rest := in[n:]
	if _, lines := ix.RepeatLastRun(rest, nil); lines != 0 {
		t.Fatal("a run took a line with a \\u escape in its delta")
	}
	k := ix.CheckRepeatedLine(rest)
	if k <= 0 || ix.Unambiguous() {
		t.Fatalf("the line with \\u00e9: %d, unambiguous %v", k, ix.Unambiguous())
	}
	rest = rest[k+1:]
	n, lines = ix.RepeatLastRun(rest, nil)
	if lines != 2 || !ix.Unambiguous() || !bytes.HasPrefix(rest[n:], []byte(`{"type":"message_update","messageId":2}`)) {
		t.Fatalf("second run: %d lines, unambiguous %v, stopped at %q", lines, ix.Unambiguous(), rest[n:])
	}
	last := d("h")
	if _, lines := ix.RepeatLastRun([]byte(last[:len(last)-1]), nil); lines != 0 {
		t.Fatal("a run took a line without its LF")
	}
	// With accept, the run ends before the first delta it refuses, which is not counted.
	var asked []string
	accept := func(str []byte) bool { asked = append(asked, string(str)); return string(str) != `"k"` }
	in = []byte(d("i") + d("j") + d("k") + d("l"))
	n, lines = ix.RepeatLastRun(in, accept)
	if lines != 2 || n != len(d("i")+d("j")) || ix.Count() != 9 || !slices.Equal(asked, []string{`"i"`, `"j"`, `"k"`}) {
		t.Fatalf("a run with accept: %d lines, count %d, asked %q", lines, ix.Count(), asked)
	}
}
