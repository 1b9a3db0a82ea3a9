package redact

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/basecontext/base-context/redact/redacttest"
)

// These tests check the stream invariants of the issue on the text and tool-argument
// streams themselves, splitting every secret of the corpus in every way (all cuts in two,
// and cuts in three): the pieces released add up to the redaction of the whole, and no text
// released so far (what a snapshot shows) holds 8 or more consecutive bytes of the secret.

func mustRedactor(t testing.TB, opts Options) *Redactor {
	t.Helper()
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// leakOf returns a piece of 8 bytes of secret found in out, or "".
func leakOf(out []byte, secret string) string {
	for _, part := range strings.Split(secret, "\n") {
		for k := 0; k+8 <= len(part); k++ {
			if bytes.Contains(out, []byte(part[k:k+8])) {
				return part[k : k+8]
			}
		}
	}
	return ""
}

// streamText pushes the pieces of a text through one stream and checks the invariants.
func checkTextStream(t *testing.T, r *Redactor, c redacttest.Secret, cuts []int) {
	t.Helper()
	var ts textStream
	ts.reset(kindNone)
	var released []byte
	prev := 0
	for _, cut := range append(cuts, len(c.Text)) {
		released = ts.pushText(r, released, []byte(c.Text[prev:cut]), false)
		if leak := leakOf(released, c.Secret); leak != "" {
			t.Fatalf("%s cut at %v: %q released after %d bytes:\n%s", c.Rule, cuts, leak, cut, released)
		}
		prev = cut
	}
	released = ts.pushText(r, released, nil, true)
	if want := r.RedactString(c.Text); string(released) != want {
		t.Fatalf("%s cut at %v:\n stream %q\n  whole %q", c.Rule, cuts, released, want)
	}
}

func TestRedactStreamSplitsEverySecret(t *testing.T) {
	r := mustRedactor(t, Options{})
	for _, c := range redacttest.Corpus(t) {
		n := len(c.Text)
		for p := 0; p <= n; p++ {
			checkTextStream(t, r, c, []int{p})
		}
		// Cuts in three: every pair near the secret's edges and a stride elsewhere.
		step := max(1, n/25)
		for p := 0; p <= n; p += step {
			for q := p; q <= n; q++ {
				checkTextStream(t, r, c, []int{p, q})
			}
		}
		// One byte at a time.
		cuts := make([]int, n)
		for i := range cuts {
			cuts[i] = i
		}
		checkTextStream(t, r, c, cuts)
	}
}

// argsOf is tool-call arguments carrying text in two members, one of them secret-named.
func argsOf(text string) string {
	b, _ := json.Marshal(map[string]any{"command": text, "env": map[string]string{"NOTE": "é \"q\" \\ ok", "token": text}})
	return string(b)
}

func checkArgsStream(t *testing.T, r *Redactor, c redacttest.Secret, args string, cuts []int) {
	t.Helper()
	var as argsStream
	as.reset()
	var released []byte
	prev := 0
	for _, cut := range append(cuts, len(args)) {
		released = as.push(r, released, []byte(args[prev:cut]), false)
		if leak := leakOf(released, c.Secret); leak != "" {
			t.Fatalf("%s cut at %v: %q released:\n%s", c.Rule, cuts, leak, released)
		}
		prev = cut
	}
	released = as.push(r, released, nil, true)
	whole, _ := r.RedactValue([]byte(args))
	var got, want any
	if err := json.Unmarshal(released, &got); err != nil {
		t.Fatalf("%s cut at %v: released arguments are not JSON: %v\n%s", c.Rule, cuts, err, released)
	}
	if err := json.Unmarshal(whole, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s cut at %v:\n stream %s\n  whole %s", c.Rule, cuts, released, whole)
	}
}

func TestRedactArgumentStreamSplitsEverySecret(t *testing.T) {
	r := mustRedactor(t, Options{})
	for _, c := range redacttest.Corpus(t) {
		args := argsOf(c.Text)
		for p := 0; p <= len(args); p++ {
			checkArgsStream(t, r, c, args, []int{p})
		}
		step := max(1, len(args)/12)
		for p := 0; p <= len(args); p += step {
			for q := p; q <= len(args); q += 1 + q%3 {
				checkArgsStream(t, r, c, args, []int{p, q})
			}
		}
	}
}

// Escapes split anywhere, surrogate pairs included, come out as they went in.
func TestRedactArgumentStreamKeepsEscapes(t *testing.T) {
	r := mustRedactor(t, Options{})
	args := `{"a":"\u00e9\ud83d\ude00 \/ \"x\" \\ \n\t\u0041","b":[1,true,null,{"c":"\ud83d"}]}`
	for p := 0; p <= len(args); p++ {
		for q := p; q <= len(args); q++ {
			var as argsStream
			as.reset()
			out := as.push(r, nil, []byte(args[:p]), false)
			out = as.push(r, out, []byte(args[p:q]), false)
			out = as.push(r, out, []byte(args[q:]), false)
			out = as.push(r, out, nil, true)
			if string(out) != args {
				t.Fatalf("cut at %d, %d: %s", p, q, out)
			}
		}
	}
}

// FuzzRedactStream: any text, with a secret of the corpus put in it, cut anywhere.
func FuzzRedactStream(f *testing.F) {
	corpus := redacttest.Corpus(f)
	f.Add([]byte("export KEY="), uint8(0), []byte{3, 17, 40})
	f.Add([]byte("password: \""), uint8(40), []byte{1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\n"), uint8(30), []byte{5, 200})
	f.Add([]byte("sk-ant-"), uint8(3), []byte{2})
	f.Fuzz(func(t *testing.T, prefix []byte, which uint8, cuts []byte) {
		c := corpus[int(which)%len(corpus)]
		text := string(prefix) + c.Text
		r := mustRedactor(t, Options{Literals: []Literal{{ID: "literal", Value: "hunter2-literal"}}})
		whole := r.RedactString(text)
		var ts textStream
		ts.reset(kindNone)
		var released []byte
		at := 0
		for _, n := range cuts {
			end := min(len(text), at+int(n))
			released = ts.pushText(r, released, []byte(text[at:end]), false)
			// The released text is final: the whole text's redaction starts with it.
			if !strings.HasPrefix(whole, string(released)) {
				t.Fatalf("released %q is not a prefix of %q", released, whole)
			}
			at = end
		}
		released = ts.pushText(r, released, []byte(text[at:]), false)
		released = ts.pushText(r, released, nil, true)
		// Each release being a prefix of the whole redaction, a secret redacted in the
		// whole text was never shown in part either.
		if string(released) != whole {
			t.Fatalf("stream %q, whole %q", released, whole)
		}
	})
}
