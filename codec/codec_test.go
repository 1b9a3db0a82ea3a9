package codec

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func readAll(t testing.TB, r io.Reader) (lines []string, numbers []int) {
	t.Helper()
	lr := NewLineReader(r)
	for {
		l, err := lr.ReadLine()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(l))
		numbers = append(numbers, lr.Line())
	}
}

func TestLineReaderFraming(t *testing.T) {
	in := "a\r\nb\n\n\u2028c\u2029\r\nlast"
	lines, nums := readAll(t, iotest.OneByteReader(strings.NewReader(in)))
	want := []string{"a", "b", "", "\u2028c\u2029", "last"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q, want %q", lines, want)
	}
	if nums[4] != 5 {
		t.Fatalf("line numbers %v", nums)
	}
}

func TestLineReaderHugeLine(t *testing.T) {
	huge := bytes.Repeat([]byte("x"), 64<<20)
	in := io.MultiReader(strings.NewReader("first\n"), bytes.NewReader(huge), strings.NewReader("\r\nafter\n"))
	lr := NewLineReader(in)
	l, _ := lr.ReadLine()
	if string(l) != "first" {
		t.Fatal(string(l))
	}
	l, err := lr.ReadLine()
	if err != nil || len(l) != len(huge) || !bytes.Equal(l, huge) {
		t.Fatalf("huge line: %d bytes, %v", len(l), err)
	}
	l, _ = lr.ReadLine()
	if string(l) != "after" || lr.Line() != 3 {
		t.Fatalf("%q at %d", l, lr.Line())
	}
	if _, err := lr.ReadLine(); err != io.EOF {
		t.Fatal(err)
	}
}

func TestLineWriterWritesWholeLines(t *testing.T) {
	var w writeCounter
	lw := NewLineWriter(&w)
	lw.WriteLine([]byte(`{"a":1}`))
	if w.String() != "{\"a\":1}\n" || w.writes != 1 {
		t.Fatalf("%q in %d writes", w.String(), w.writes)
	}
	big := bytes.Repeat([]byte("y"), maxCopy+1)
	lw.WriteLine(big)
	if !bytes.HasSuffix(w.Bytes(), append(big, '\n')) {
		t.Fatal("big line")
	}
}

type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) { w.writes++; return w.Buffer.Write(p) }

func TestAppendStringMatchesJSONStringify(t *testing.T) {
	cases := map[string]string{
		"plain":                       `"plain"`,
		"q\"b\\":                      `"q\"b\\"`,
		"\n\r\t\b\f":                  `"\n\r\t\b\f"`,
		"\x00\x1f\x7f":                `"\u0000\u001f` + "\x7f" + `"`,
		"<a>&'":                       `"<a>&'"`,
		"\u2028\u2029é😀":              "\"\u2028\u2029é😀\"",
		"bad\xffutf8":                 "\"bad\ufffdutf8\"",
		"/slash":                      `"/slash"`,
		strings.Repeat("abcdefgh", 3): `"` + strings.Repeat("abcdefgh", 3) + `"`,
	}
	for in, want := range cases {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal(AppendString(nil, in), &back); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestAppendFloatLikeJavaScript(t *testing.T) {
	cases := map[float64]string{
		0: "0", 1: "1", -2.5: "-2.5", 1e21: "1e+21",
		1e20: "100000000000000000000", 0.000001: "0.000001", 0.0000001: "1e-7",
		0.000105: "0.000105", 123456789.125: "123456789.125", math.Inf(1): "null",
	}
	point1, point2 := 0.1, 0.2
	cases[point1+point2] = "0.30000000000000004"
	for in, want := range cases {
		if got := string(AppendFloat(nil, in)); got != want {
			t.Errorf("AppendFloat(%v) = %s, want %s", in, got, want)
		}
	}
}

func TestPartialObject(t *testing.T) {
	cases := map[string]string{
		``:                              `{}`,
		`{`:                             `{}`,
		`{"comm`:                        `{}`,
		`{"command"`:                    `{}`,
		`{"command": `:                  `{}`,
		`{"command": "`:                 `{"command":""}`,
		`{"command": "ls`:               `{"command":"ls"}`,
		`{"command": "ls\`:              `{"command":"ls"}`,
		`{"command": "ls\u00`:           `{"command":"ls"}`,
		`{"command": "ls\u00e9"`:        `{"command":"lsé"}`,
		`{"command": "a\"b\n"}`:         `{"command":"a\"b\n"}`,
		`{"n": 12`:                      `{"n":12}`,
		`{"n": -`:                       `{}`,
		`{"n": 1.`:                      `{}`,
		`{"n": 1.5e`:                    `{}`,
		`{"a": 1, "b": tr`:              `{"a":1}`,
		`{"a": [1, {"b": [true, nul`:    `{"a":[1,{"b":[true]}]}`,
		`{"a": 1.50000000000000000001}`: `{"a":1.50000000000000000001}`,
		` { "x" : { } , "y" : [ ] } `:   `{"x":{},"y":[]}`,
		`[1,2]`:                         `{}`,
		`"str"`:                         `{}`,
		`{"a":1} trailing`:              `{"a":1}`,
		`{"a" 1}`:                       `{}`,
		`{"a":1 "b":2}`:                 `{"a":1}`,
		`{"e":"\ud83d\ude00","s":"\/"}`: `{"e":"😀","s":"/"}`,
		`{"e":"\ud83d`:                  `{"e":""}`,
	}
	for in, want := range cases {
		if got := string(PartialObject(in)); got != want {
			t.Errorf("PartialObject(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestLookupAndDelete(t *testing.T) {
	obj := []byte(`{ "type" : "x", "a\"b":1, "message":{"role":"assistant","content":[{"id":"p"},{"id":"q\"r"}]}, "last":[1,2] }`)
	if got := Lookup(obj, "message.content.1.id").Str(obj); got != `q"r` {
		t.Fatalf("got %q", got)
	}
	if LineType(obj) != "x" || Lookup(obj, "message.role").Str(obj) != "assistant" {
		t.Fatal("type/role")
	}
	for key, want := range map[string]string{
		"type":    `{ "a\"b":1, "message":{"role":"assistant","content":[{"id":"p"},{"id":"q\"r"}]}, "last":[1,2] }`,
		"message": `{ "type" : "x", "a\"b":1, "last":[1,2] }`,
		"last":    `{ "type" : "x", "a\"b":1, "message":{"role":"assistant","content":[{"id":"p"},{"id":"q\"r"}]} }`,
	} {
		m := Find(obj, key)
		if got := string(Splice(nil, obj, DeleteEdit(obj, m))); got != want {
			t.Errorf("delete %s:\n got %s\nwant %s", key, got, want)
		}
	}
	if Find(obj, "missing").Exists() {
		t.Fatal("found a missing key")
	}
}

func TestCheckObject(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:          "",
		` {} `:             "",
		``:                 "empty line",
		`[1]`:              "found an array",
		`"s"`:              "found a string",
		`{"a":1`:           "invalid JSON",
		`{"a":1}{}`:        "invalid JSON",
		"{\"a\":\"\xff\"}": "invalid UTF-8",
	} {
		err := CheckObject([]byte(in))
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckObject(%q) = %v, want %q", in, err, want)
		}
	}
}

// FuzzValid: our validator agrees with encoding/json (plus UTF-8 validity).
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c\u00e9\n"}]}`, `[1e5,-0.5,true,false,null]`, `"\ud800"`, `{"a":01}`, `{"a":1,}`, "\"\x01\"", `  1  `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := json.Valid(b) && utfValid(b)
		if got := Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

// Values are validated to any depth up to maxDepth.
func TestValidDeep(t *testing.T) {
	for _, depth := range []int{1, 63, 64, 65, 200, maxDepth - 1, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`, `[{"k":0,"a":`} {
			closer := map[string]string{"[": "]", `{"a":`: "}", `[{"k":0,"a":`: "}]"}[open]
			b := []byte(strings.Repeat(open, depth) + `"x"` + strings.Repeat(closer, depth))
			if got, want := Valid(b), json.Valid(b) && depth*len(closer) <= maxDepth; got != want {
				t.Errorf("depth %d of %s: Valid = %v, want %v", depth, open, got, want)
			}
			if Valid(b[:len(b)-1]) {
				t.Errorf("depth %d of %s: Valid without the last bracket", depth, open)
			}
		}
	}
}

// FuzzLineReader: any input splits into the same lines as a plain split on LF.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\r\n"), uint16(3))
	f.Add([]byte("no newline"), uint16(1))
	f.Fuzz(func(t *testing.T, b []byte, chunk uint16) {
		var r io.Reader = bytes.NewReader(b)
		if chunk%3 == 0 {
			r = iotest.OneByteReader(r)
		}
		got, _ := readAll(t, r)
		var want []string
		if len(b) > 0 {
			parts := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			for _, p := range parts {
				want = append(want, strings.TrimSuffix(p, "\r"))
			}
		}
		if strings.Join(got, "\x00|") != strings.Join(want, "\x00|") || len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

func utfValid(b []byte) bool { return bytes.Equal([]byte(strings.ToValidUTF8(string(b), "\uFFFD")), b) }

// FuzzIndex: validating with an index accepts exactly the lines CheckObject accepts, and the
// index finds the same members as a scan of the line.
func FuzzIndex(f *testing.F) {
	f.Add([]byte(`{"type":"message_update","messageId":3,"assistantMessageEvent":{"type":"x"},"message":{},"type":"dup"}`))
	f.Add([]byte(` { "a" : [1, {"b":"\"}"}] , "message" : "m" } `))
	f.Add([]byte(`{"a":1,}`))
	f.Add([]byte(`{"a":{"b":1,"c":[{"d":2,"d":3}]},"type":"t"}`))
	f.Add([]byte(`{"a\u0062":1,"ab":2,"e":"\/","type":1,"type":2}`))
	keys := []string{"type", "messageId", "assistantMessageEvent", "message", "a"}
	f.Fuzz(func(t *testing.T, line []byte) {
		var ix Index
		err := CheckObjectIndexed(line, &ix)
		if want := CheckObject(line); (err == nil) != (want == nil) {
			t.Fatalf("indexed check %v, plain check %v", err, want)
		}
		if err != nil {
			return
		}
		got, want := make([]Member, len(keys)), make([]Member, len(keys))
		if !ix.Indexed(line) {
			t.Fatal("index not bound to its line")
		}
		ix.FindEach(keys, got)
		FindEach(line, keys, want)
		for i := range keys {
			if got[i] != want[i] {
				t.Fatalf("%s: index %+v, scan %+v", keys[i], got[i], want[i])
			}
		}
		if ix.Type() != want[0] {
			t.Fatalf("type: index %+v, scan %+v", ix.Type(), want[0])
		}
		if ix.Unambiguous() {
			EachAmbiguity(line, func(a Ambiguity) bool {
				t.Fatalf("said unambiguous, but %s", a)
				return false
			})
		}
	})
}

// collidingKeys is an object of n distinct keys with the same fingerprint, its last key
// repeating its first when dup is set.
func collidingKeys(t *testing.T, n int, dup bool) string {
	var keys []string
	want := keyBit([]byte("k0"))
	for i := 0; len(keys) < n; i++ {
		if k := "k" + strconv.Itoa(i); keyBit([]byte(k)) == want {
			keys = append(keys, k)
		}
		if i > 1e6 {
			t.Fatal("no colliding keys found")
		}
	}
	if dup {
		keys[n-1] = keys[0]
	}
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + k + `":` + strconv.Itoa(i))
	}
	return b.String() + "}"
}

// FuzzIndexNextLine: an index that resumes after the members a line shares with the line
// before (the same bytes at its start) finds what a fresh index finds.
func FuzzIndexNextLine(f *testing.F) {
	update := `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","delta":"a"}}`
	for _, pair := range [][2]string{
		{update, strings.Replace(update, `"a"`, `"b"`, 1)},
		{update, strings.Replace(update, `1,`, `12,`, 1)},
		{`{"a":1,"b":2}`, `{"a":1, "b":2}`},
		{`{"a":1,"b":2}`, `{"a":1,"b":2,"a":3}`},
		{`{"a":1,"a":2,"c":3}`, `{"a":1,"a":2,"d":4}`},
		{`{"type":"x","b":2}`, `{"type":"x","b":2,"type":"y"}`},
		{`{"a":1,"b":2}`, `{"a":1,"b"}`},
		{`{"a":1,"b":2,"c":3}`, `{"a":1,"b":2`},
		{`{"a":"\u00e9","b":{"x":1,"x":2}}`, `{"a":"\u00e9","b":{"x":1}}`},
		// Lines that differ from the line before only in the body of its last string value.
		{update, strings.Replace(update, `"a"`, `"a longer text"`, 1)},
		{update, strings.Replace(update, `"a"`, `""`, 1)},
		{update, strings.Replace(update, `"a"`, `"a\"b"`, 1)},
		{update, strings.Replace(update, `"a"`, `"a"b"`, 1)},
		{update, strings.Replace(update, `"a"`, `"a\"`, 1)},
		{update, strings.Replace(update, `"a"`, `"\u00e9\ud800"`, 1)},
		{update, strings.Replace(update, `"a"`, "\"\xff\"", 1)},
		{update, strings.Replace(update, `"a"`, "\"\n\"", 1)},
		{`{"a":[1,"x"],"b":2}`, `{"a":[1,"xy"],"b":2}`},
		{`{"a":"x","b":2,"c":{}}`, `{"a":"xyz","b":2,"c":{}}`},
		{`{"type":"x"}`, `{"type":"y","type":"z"}`},
		{`{"a":"x","a":"y"}`, `{"a":"x","a":"yy"}`},
	} {
		f.Add([]byte(pair[0]), []byte(pair[1]))
	}
	keys := []string{"type", "messageId", "assistantMessageEvent", "a", "b", "c"}
	f.Fuzz(func(t *testing.T, first, next []byte) {
		var reused, fresh Index
		if CheckObjectIndexed(first, &reused) == nil {
			reused.FindEach(keys, make([]Member, len(keys))) // remembered for a line that repeats it
			reused.Unambiguous()
		}
		errReused, errFresh := CheckObjectIndexed(next, &reused), CheckObjectIndexed(next, &fresh)
		if (errReused == nil) != (errFresh == nil) {
			t.Fatalf("after %q: %v; fresh: %v", first, errReused, errFresh)
		}
		if errFresh != nil {
			return
		}
		got, want := make([]Member, len(keys)), make([]Member, len(keys))
		reused.FindEach(keys, got)
		fresh.FindEach(keys, want)
		for i := range keys {
			if got[i] != want[i] {
				t.Fatalf("after %q: %s: %+v, fresh %+v", first, keys[i], got[i], want[i])
			}
		}
		if len(reused.members) != len(fresh.members) || reused.Type() != fresh.Type() || reused.Unambiguous() != fresh.Unambiguous() {
			t.Fatalf("after %q: %d keys, type %+v, unambiguous %v; fresh %d, %+v, %v", first,
				len(reused.members), reused.Type(), reused.Unambiguous(), len(fresh.members), fresh.Type(), fresh.Unambiguous())
		}
		for j := range fresh.members {
			if got, want := reused.key(next, j), fresh.key(next, j); !bytes.Equal(got, want) || reused.members[j] != fresh.members[j] {
				t.Fatalf("after %q: member %d is %q %+v, fresh %q %+v", first, j, got, reused.members[j], want, fresh.members[j])
			}
		}
		if fresh.Repeats() {
			t.Fatal("a fresh index says its line repeats another")
		}
		if reused.Repeats() && !bytes.Equal(first, next) {
			// Only the body of one string differs: the same bytes before and after it.
			p := commonPrefix(first, next)
			s := commonPrefix(reverse(first[p:]), reverse(next[p:]))
			if bytes.IndexByte(first[:p], '"') < 0 || bytes.IndexByte(first[len(first)-s:], '"') < 0 {
				t.Fatalf("%q said to repeat %q but for a string", next, first)
			}
		}
	})
}

func reverse(b []byte) []byte {
	r := make([]byte, len(b))
	for i, c := range b {
		r[len(b)-1-i] = c
	}
	return r
}

// Repeats, ChangedString and Changed name the string value in which a line differs from the line before it.
func TestIndexRepeated(t *testing.T) {
	update := `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"0001 "}}`
	var ix Index
	for i, c := range []struct {
		line  string
		ok    bool
		key   string
		depth int
		top   string
	}{
		{update, false, "", 0, ""},
		{strings.Replace(update, "0001 ", "0002 ", 1), true, "delta", 1, "assistantMessageEvent"},
		{strings.Replace(update, "0001 ", `three \\u words`, 1), true, "delta", 1, "assistantMessageEvent"},
		{strings.Replace(update, "0001 ", "0002", 1), true, "delta", 1, "assistantMessageEvent"},
		{strings.Replace(update, `"messageId":1`, `"messageId":2`, 1), false, "", 0, ""}, // a number
		{`{"type":"x","text":"a"}`, false, "", 0, ""},
		{`{"type":"x","text":"ab"}`, true, "text", 0, ""},
		{`{"type":"x","list":["a",1,"b"]}`, false, "", 0, ""},
		{`{"type":"x","list":["a",1,"bc"]}`, true, "", 1, "list"},
		{`{"type":"x","list":["a",1,"bc"]`, false, "", 0, ""}, // invalid
		{`{"type":"x","list":["a",1,"bcd"]}`, false, "", 0, ""},
	} {
		if err := CheckObjectIndexed([]byte(c.line), &ix); (err == nil) != !strings.HasSuffix(c.line, "]") {
			t.Fatalf("%d: %v", i, err)
		}
		ok := ix.Repeats()
		var key []byte
		var depth int
		topKey := ""
		if ok {
			key, depth = ix.ChangedString()
			for j, m := range ix.members {
				if ix.Changed(m) && m.ValStart+1 != ix.notes.last.body {
					topKey = string(ix.key(ix.line, j))
					if !ix.ChangedIn(topKey) {
						t.Errorf("%d: not changed in %q", i, topKey)
					}
				}
			}
		}
		if ok != c.ok || string(key) != c.key || depth != c.depth || topKey != c.top {
			t.Errorf("%d: repeats %v %q %d %q, want %v %q %d %q", i, ok, key, depth, topKey, c.ok, c.key, c.depth, c.top)
		}
	}
}

// afterFillers is a nested object of seenKeys keys with distinct fingerprints, then two keys
// whose fingerprints collide, the same key twice when dup is set.
func afterFillers(t *testing.T, dup bool) string {
	want := keyBit([]byte("k0"))
	var second string
	for i := 1; second == ""; i++ {
		if k := "k" + strconv.Itoa(i); keyBit([]byte(k)) == want {
			second = k
		}
	}
	if dup {
		second = "k0"
	}
	used := want
	var b strings.Builder
	b.WriteString(`{"o":{`)
	for i, n := 0, 0; n < seenKeys; i++ {
		k := "f" + strconv.Itoa(i)
		if bit := keyBit([]byte(k)); used&bit == 0 {
			used |= bit
			b.WriteString(`"` + k + `":1,`)
			n++
		}
	}
	b.WriteString(`"k0":1,"` + second + `":2}}`)
	return b.String()
}

// The index tells lines without duplicate keys or lone surrogates from the others without
// walking them, and never calls an ambiguous line unambiguous.
func TestIndexUnambiguous(t *testing.T) {
	for line, want := range map[string]bool{
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"a\nb"}}`: true,
		`{"a":1,"b":[{"c":1,"d":2},{"c":3,"d":4}],"e":{"f":{"g":null}}}`:                                                        true,
		`{"a":1,"b":2,"a":3}`:                false,
		`{"a":{"b":[{"c":1,"c":2}]}}`:        false,
		`{"a\u0062":1}`:                      false, // a \u escape: walked
		`{"a/":1,"a\/":2}`:                   false,
		`{"t":"\ud800"}`:                     false,
		`{"x":[1,2],"y":{"x":1},"z":"x\\y"}`: true,
		// Keys whose fingerprints collide are compared: different keys, no duplicate.
		collidingKeys(t, maxKeyChecks+1, false):                 true,
		collidingKeys(t, maxKeyChecks+1, true):                  false,
		`{"o":` + collidingKeys(t, maxKeyChecks+1, false) + `}`: true,
		`{"o":` + collidingKeys(t, maxKeyChecks+1, true) + `}`:  false,
		`{"o":` + collidingKeys(t, maxKeyChecks+2, false) + `}`: false, // too many to compare: walked
		// A collision past the keys whose places are kept: the object's members are walked.
		afterFillers(t, false): true,
		afterFillers(t, true):  false,
	} {
		var ix Index
		if err := CheckObjectIndexed([]byte(line), &ix); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if got := ix.Unambiguous(); got != want {
			t.Errorf("%s: Unambiguous() = %v, want %v", line, got, want)
		}
	}
}

// FuzzSkipValue: on valid JSON, SkipValue crosses exactly one value, and Elem finds the
// same elements of an array as encoding/json.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{` [ 1 , "a\"]" , {"b":[2]} , true ] `, `[]`, `{"a":"\\"}`, `-1.5e3`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !Valid(b) {
			return
		}
		if end := SkipSpace(b, SkipValue(b, SkipSpace(b, 0))); end != len(b) {
			t.Fatalf("SkipValue(%q) stops at %d", b, end)
		}
		var elems []json.RawMessage
		if json.Unmarshal(b, &elems) != nil {
			return
		}
		for n, want := range elems {
			if m := Elem(b, n); m.KeyStart != m.ValStart || !bytes.Equal(m.Raw(b), want) {
				t.Fatalf("Elem(%q, %d) = %+v (%q), want %q", b, n, m, m.Raw(b), want)
			}
		}
		if Elem(b, len(elems)).Exists() || Elem(b, -1).Exists() {
			t.Fatalf("Elem(%q) found an element past the end", b)
		}
	})
}

// validStringSimple is the plain byte-at-a-time string scanner validString must agree with
// (escapes are checked by the same validEscape: what is tested is the crossing of the runs
// between them).
func validStringSimple(b []byte, i int) (int, bool) {
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			var ok bool
			if i, ok = validEscape(b, i); !ok {
				return i, false
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, false
			}
			i += size
		default:
			i++
		}
	}
	return i, false
}

// FuzzValidString: the word-at-a-time string scanner accepts exactly the string bodies the
// simple one accepts, ending at the same byte.
func FuzzValidString(f *testing.F) {
	for _, s := range []string{`plain"`, `0123456789abcdef"rest`, `é ünïcödé 😀 and more text"`,
		"1234567\xff\"", "12345678\xe2\x82\"", `ab\"cd\\ef\n\u00e9\uD83D\uDE00"`, "tab\there\"",
		"\x7f\x80\"", `"`, `\`, `\u12`, "no end", strings.Repeat("xé", 40) + `"`, "abcdefg\x1f\"",
		strings.Repeat("abcdefgh", 9) + `"`, strings.Repeat("abcdefgh", 4) + "abcde\x01" + strings.Repeat("z", 30) + `"`,
		strings.Repeat("0123456789", 5) + `\"` + strings.Repeat("é", 20) + "\xc3\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for start := range min(len(b), 9) { // every alignment of the words
			gotEnd, gotOK := validString(b, start)
			wantEnd, wantOK := validStringSimple(b, start)
			if gotOK != wantOK || (wantOK && gotEnd != wantEnd) {
				t.Fatalf("validString(%q, %d) = %d, %v; simple scanner: %d, %v", b, start, gotEnd, gotOK, wantEnd, wantOK)
			}
		}
	})
}

// Lines longer than the read buffer are gathered in pieces and handed out whole, whatever
// their size relative to the buffer and pieces, and the reader goes on after them.
func TestLineReaderLongLinesFromFile(t *testing.T) {
	// A file is read ahead to size its long lines: the same lines as from a pipe, and the
	// reader goes on after them (mid-file and at the end, with and without a last LF).
	long := bytes.Repeat([]byte("0123456789"), 3*readSize/10+1)
	var in bytes.Buffer
	in.WriteString("short\n")
	in.Write(long)
	in.WriteString("\r\nafter\n")
	in.Write(long[:readSize+3])
	want := []string{"short", string(long), "after", string(long[:readSize+3])}
	for _, lastLF := range []bool{false, true} {
		data := in.Bytes()
		if lastLF {
			data = append(bytes.Clone(data), '\n')
		}
		name := t.TempDir() + "/lines"
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := readAll(t, f)
		f.Close()
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("line %d: %d bytes, want %d", i+1, len(got[i]), len(want[i]))
			}
		}
	}
}

func TestLineReaderLongLines(t *testing.T) {
	for _, n := range []int{readSize/2 - 1, readSize/2 + 1, readSize - 1, readSize, readSize + 1, 3*readSize + 7, maxPiece + 1, 5 * maxPiece} {
		long := bytes.Repeat([]byte("0123456789"), n/10+1)[:n]
		var in bytes.Buffer
		in.WriteString("short\r\n")
		in.Write(long)
		in.WriteString("\r\nafter\n")
		in.Write(long[:n/2])
		for _, r := range []io.Reader{bytes.NewReader(in.Bytes()), iotest.HalfReader(bytes.NewReader(in.Bytes()))} {
			lr := NewLineReader(r)
			want := [][]byte{[]byte("short\r"), append(bytes.Clone(long), '\r'), []byte("after"), long[:n/2]}
			for i, w := range want {
				l, err := lr.ReadRawLine()
				if err != nil || !bytes.Equal(l, w) || lr.Line() != i+1 {
					t.Fatalf("%d-byte line: line %d: %d bytes (want %d), %v", n, i+1, len(l), len(w), err)
				}
			}
			if _, err := lr.ReadRawLine(); err != io.EOF {
				t.Fatalf("%d-byte line: %v at the end", n, err)
			}
		}
	}
}

// A batch writer holds lines until Flush, then writes them in one call; a line writer writes
// each at once.
func TestBatchWriterWritesOnFlush(t *testing.T) {
	var w writeCounter
	bw := NewBatchWriter(&w)
	for range 100 {
		if err := bw.WriteLine([]byte(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	if w.writes != 0 {
		t.Fatalf("%d writes before Flush", w.writes)
	}
	if err := bw.Flush(); err != nil || w.writes != 1 || w.Len() != 100*8 {
		t.Fatalf("%d writes of %d bytes, %v", w.writes, w.Len(), err)
	}
	big := bytes.Repeat([]byte("y"), 3*batchSize)
	bw.WriteLine([]byte("x"))
	bw.WriteLine(big) // written as it is, after what was held
	bw.Flush()
	if !bytes.HasSuffix(w.Bytes(), append(append([]byte("x\n"), big...), '\n')) {
		t.Fatal("big line out of order")
	}
}

// Member.Int reads plain digits itself and leaves the rest to strconv and gjson, with the
// same results as before it did.
func TestMemberInt(t *testing.T) {
	for _, raw := range []string{"0", "7", "42", "123456789012345678", "1234567890123456789", "9223372036854775807",
		"99999999999999999999", "-1", "-0", "1.5", "1e3", "-2.5e2", `"12"`, "null", "true", "0.0"} {
		obj := []byte(`{"n":` + raw + `}`)
		m := Find(obj, "n")
		want, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			want = gjson.Parse(raw).Int()
		}
		if got := m.Int(obj); got != want {
			t.Errorf("Int(%s) = %d, want %d", raw, got, want)
		}
	}
}

// FuzzCheckRepeatedLine: a line found in unsplit input as a repeat of the line before is
// the input up to its first LF, valid, with the members a fresh index finds.
func FuzzCheckRepeatedLine(f *testing.F) {
	update := `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","delta":"a"}}`
	for _, pair := range [][2]string{
		{update, strings.Replace(update, `"a"`, `"bc"`, 1) + "\n" + update + "\n"},
		{update, strings.Replace(update, `"a"`, `"b"`, 1) + "\r\n"},
		{update + "\r", strings.Replace(update, `"a"`, `"b"`, 1) + "\r\n"},
		{update, strings.Replace(update, `"a"`, `"b`, 1) + "\n\"}}\n"},
		{update, strings.Replace(update, `"a"`, `"b"`, 1)},
		{update, strings.Replace(update, `"a"`, `"b"`, 1) + " \n"},
		{update, strings.Replace(update, `"a"`, `"b\n"`, 1) + "\n"},
		{`{"type":"turn_start"}`, `{"type":"turn_end"}` + "\n"},
	} {
		f.Add([]byte(pair[0]), []byte(pair[1]))
	}
	keys := []string{"type", "messageId", "assistantMessageEvent"}
	f.Fuzz(func(t *testing.T, first, pending []byte) {
		if bytes.IndexByte(first, '\n') >= 0 {
			return
		}
		var reused, fresh Index
		if CheckObjectIndexed(first, &reused) != nil {
			return
		}
		n := reused.CheckRepeatedLine(pending)
		if n == 0 {
			return
		}
		line := pending[:n]
		if pending[n] != '\n' || bytes.IndexByte(line, '\n') >= 0 {
			t.Fatalf("line %q of %q", line, pending)
		}
		if err := CheckObjectIndexed(line, &fresh); err != nil {
			t.Fatalf("%q after %q: found repeated, but %v", line, first, err)
		}
		got, want := make([]Member, len(keys)), make([]Member, len(keys))
		reused.FindEach(keys, got)
		fresh.FindEach(keys, want)
		if !reused.RepeatsStrings() || !slices.Equal(got, want) || !reused.Indexed(line) {
			t.Fatalf("%q after %q: members %v, fresh %v", line, first, got, want)
		}
	})
}

func TestNextItem(t *testing.T) {
	for _, c := range []struct {
		b        string
		ve, want int
		more     bool
	}{
		{`[1,2]`, 2, 3, true},
		{`[1 , 2]`, 2, 5, true},
		{`[1]`, 2, 2, false},
		{`{"a":1 }`, 6, 7, false},
		{`{"a":1,` + "\n\t" + `"b":2}`, 6, 9, true},
		{`[1`, 2, 2, false},
	} {
		if got, more := NextItem([]byte(c.b), c.ve); got != c.want || more != c.more {
			t.Errorf("NextItem(%q, %d) = %d, %v; want %d, %v", c.b, c.ve, got, more, c.want, c.more)
		}
	}
}

// TestLineReaderReset: a reset reader reads its new input from the start, line numbers
// again from 1, whatever the old input left (a long line, an unread rest, a file read ahead).
func TestLineReaderReset(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 2*readSize+5)
	name := t.TempDir() + "/lines"
	if err := os.WriteFile(name, append(append([]byte("a\n"), long...), "\nrest\nmore"...), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lr := NewLineReader(f)
	for range 2 { // "a", the long line; "rest" and "more" left unread
		if _, err := lr.ReadLine(); err != nil {
			t.Fatal(err)
		}
	}
	for _, next := range []string{"one\ntwo", "solo\n", ""} {
		lr.Reset(strings.NewReader(next))
		var got []string
		for {
			l, err := lr.ReadLine()
			if err == io.EOF {
				break
			}
			if err != nil || lr.Line() != len(got)+1 {
				t.Fatalf("after Reset to %q: line %d, %v", next, lr.Line(), err)
			}
			got = append(got, string(l))
		}
		if want := strings.Split(strings.TrimSuffix(next, "\n"), "\n"); next != "" && !slices.Equal(got, want) || next == "" && got != nil {
			t.Errorf("after Reset to %q: %q", next, got)
		}
	}
}
