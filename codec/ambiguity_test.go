package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// Of duplicate keys the lookups take the last, as jq and JavaScript do (encoding/json too).
func TestDuplicateKeysLastWins(t *testing.T) {
	line := []byte(`{"type":"first","message":{"role":"user","role":"assistant"},"type":"last"}`)
	var js struct {
		Type    string `json:"type"`
		Message struct {
			Role string `json:"role"`
		} `json:"message"`
	}
	if err := json.Unmarshal(line, &js); err != nil {
		t.Fatal(err)
	}
	if got := Find(line, "type").Str(line); got != js.Type || got != "last" {
		t.Errorf("Find: %q, encoding/json %q", got, js.Type)
	}
	if got := Lookup(line, "message.role").Str(line); got != js.Message.Role {
		t.Errorf("Lookup: %q, encoding/json %q", got, js.Message.Role)
	}
	var m [2]Member
	FindEach(line, []string{"type", "message"}, m[:])
	if got := m[0].Str(line); got != "last" {
		t.Errorf("FindEach: %q", got)
	}
	var ix Index
	if err := CheckObjectIndexed(line, &ix); err != nil {
		t.Fatal(err)
	}
	ix.FindEach([]string{"type"}, m[:1])
	if got := m[0].Str(line); got != "last" {
		t.Errorf("Index.FindEach: %q", got)
	}
}

func ambiguities(s string) string {
	var out []string
	EachAmbiguity([]byte(s), func(a Ambiguity) bool {
		out = append(out, a.String())
		return true
	})
	return strings.Join(out, "; ")
}

func TestEachAmbiguity(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	for in, want := range map[string]string{
		`{"op":"status","op":"stop"}`:                                 `duplicate key "op"`,
		`{"a":{"b":1,"c":{"b":2},"b":3},"b":[{"x":1},{"x":2,"x":3}]}`: `a: duplicate key "b"; b[1]: duplicate key "x"`,
		`{"type":"a","typ\u0065":"b"}`:                                `duplicate key "type"`, // the same key once decoded
		`{"a":1,"A":2,"a ":3,"\"a":4}`:                                ``,
		`{"s":"\ud800"}`:                                              `s: lone surrogate \ud800`,
		`{"s":"x\uDC00y"}`:                                            `s: lone surrogate \uDC00`,
		`{"s":"\ud83d\ude00 \\ud800 \ud800\u0041"}`:                   `s: lone surrogate \ud800`, // a pair, an escaped backslash, then a lone one
		`{"s":"\ude00\ud83d"}`:                                        `s: lone surrogate \ude00; s: lone surrogate \ud83d`,
		`{"m":{"c":[1,{"t":"ok"},{"t":"\udfff"}]}}`:                   `m.c[2].t: lone surrogate \udfff`,
		`{"\ud800":1}`:                                                `lone surrogate \ud800 in a key`,
		`[1,"\u00e9",{"a":[]},{}]`:                                    ``,
		`{` + strings.Join(many, ",") + `,"k3":0,"k39":0}`:            `duplicate key "k3"; duplicate key "k39"`,
		`{"a":{` + strings.Join(many, ",") + `},"b":{` + strings.Join(many, ",") + `}}`: ``,
	} {
		if !Valid([]byte(in)) {
			t.Fatalf("test input %s is not valid JSON", in)
		}
		if got := ambiguities(in); got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
	// fn returning false stops the walk.
	n := 0
	EachAmbiguity([]byte(`{"a":1,"a":2,"a":3,"s":"\ud800"}`), func(Ambiguity) bool { n++; return false })
	if n != 1 {
		t.Errorf("%d calls after a stop", n)
	}
}

// Decoding a message or block reads duplicate keys as the lookups do: the last wins.
func TestParseDuplicateKeysLastWins(t *testing.T) {
	m, err := ParseMessage([]byte(`{"role":"user","content":"hi","timestamp":1,"role":"assistant","content":[{"type":"toolCall","type":"text","text":"last"}],"stopReason":"stop"}`))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := m.(*AssistantMessage)
	if !ok {
		t.Fatalf("decoded a %T, want the assistant message of the last role", m)
	}
	if len(a.Content) != 1 {
		t.Fatalf("content %#v", a.Content)
	}
	if txt, ok := a.Content[0].(*TextContent); !ok || txt.Text != "last" {
		t.Errorf("block %#v, want the text block of the last type", a.Content[0])
	}
}

// duplicateKeysByDecoder counts duplicate keys with encoding/json's tokenizer, independently
// of the walker.
func duplicateKeysByDecoder(b []byte) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object    bool
		expectKey bool
		keys      map[string]bool
	}
	var stack []*frame
	dups := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return dups, nil
		}
		if err != nil {
			return 0, err
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.expectKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					dups++
				}
				top.keys[k] = true
				top.expectKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, expectKey: true, keys: map[string]bool{}})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].expectKey = true // the value of a member is done
		}
	}
}

// FuzzAmbiguityDuplicates: the walker finds as many duplicate keys as encoding/json's
// tokenizer shows (on values without surrogate escapes, which the tokenizer folds together).
func FuzzAmbiguityDuplicates(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":{"a":[{"b":1,"b":2}],"c":3},"a":"x"}`, `{"k\u0041":1,"kA":2}`, `[{},{"":1,"":2}]`,
		`{"a":{"b":{"c":{}}},"b":1,"c":[1,{"a":1}]}`, `{"t":"\\","t ":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !Valid(b) || bytes.Contains(bytes.ToLower(b), []byte(`\ud`)) {
			return
		}
		want, err := duplicateKeysByDecoder(b)
		if err != nil {
			return
		}
		got := 0
		EachAmbiguity(b, func(a Ambiguity) bool {
			if strings.HasPrefix(a.What, "duplicate key ") {
				got++
			}
			return true
		})
		if got != want {
			t.Fatalf("%s: walker found %d duplicate keys, encoding/json %d", b, got, want)
		}
	})
}
