package stages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/redact/redacttest"
)

// forgetful is the redaction stage made to walk every line: it forgets, after each line, the
// update it found clean around its delta, and the full-form update it passed on unchanged,
// so that no line is taken for either again.
type forgetful struct{ *Redact }

func (s forgetful) Push(f *Frame, emit Emit) error {
	err := s.Redact.Push(f, emit)
	s.clean = cleanDelta{}
	s.cleanFull.line = lineID{}
	return err
}

// deltaStream is a delta-form stream of blocks of every kind whose texts hold the secrets of
// the corpus at random places, cut into deltas at random places; around the deltas, the lines
// change now and then (another message id, a secret member, another member order, lines that
// are not JSON), as the lines a stage takes for the last clean one must not.
func deltaStream(rnd *rand.Rand, secrets []string) []byte {
	var out []byte
	line := func(format string, args ...any) { out = append(fmt.Appendf(out, format, args...), '\n') }
	words := []string{"the ", "0001 ", "token", "= ", ": ", "\"", "'", "\n", "sk-", "-", "eyJ", "Bearer ", "password", " ", "é", "\\", "x9"}
	line(`{"type":"session","version":3,"id":"s","timestamp":"2026-12-02T14:03:39.707Z","cwd":"/tmp"}`)
	for msg := 1; msg <= 30; msg++ {
		if msg > 1 && rnd.IntN(3) == 0 {
			// The deltas of the last message again after its end, as a stream cut and
			// concatenated repeats them.
			line(`{"type":"message_update","messageId":%d,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"sk-ant-"}}`, msg-1)
		}
		line(`{"type":"message_start","messageId":%d,"message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":1}}`, msg)
		for idx := range 1 + rnd.IntN(3) {
			kind := []string{"text", "thinking", "toolcall"}[rnd.IntN(3)]
			var text []byte
			for range rnd.IntN(30) {
				if rnd.IntN(6) == 0 {
					text = append(text, secrets[rnd.IntN(len(secrets))]...)
				} else {
					text = append(text, words[rnd.IntN(len(words))]...)
				}
			}
			if kind == "toolcall" {
				text, _ = json.Marshal(map[string]string{"command": string(text), "password": secrets[rnd.IntN(len(secrets))]})
			}
			id := fmt.Sprint(msg)
			line(`{"type":"message_update","messageId":%s,"assistantMessageEvent":{"type":"%s_start","contentIndex":%d}}`, id, kind, idx)
			for len(text) > 0 {
				n := min(len(text), 1+rnd.IntN(12))
				for n < len(text) && text[n]&0xC0 == 0x80 {
					n++ // whole UTF-8 sequences
				}
				delta := codec.AppendString(nil, string(text[:n]))
				text = text[n:]
				switch rnd.IntN(25) {
				case 0:
					id = fmt.Sprint(rnd.IntN(3) + msg)
				case 1:
					line(`{"type":"message_update","messageId":%s,"assistantMessageEvent":{"type":"%s_delta","contentIndex":%d,"delta":%s,"password":"hunter2x9Zq"}}`, id, kind, idx, delta)
					continue
				case 2:
					line(`{"type":"message_update","messageId":%s,"assistantMessageEvent":{"type":"%s_delta","delta":%s,"contentIndex":%d}}`, id, kind, delta, idx)
					continue
				case 3:
					line(`{"type":"message_update","messageId":%s,"assistantMessageEvent":{"type":"%s_delta","contentIndex":%d,"delta":%s}`, id, kind, idx, delta)
					continue
				case 4:
					line(`{"type":"message_update","messageId":%s,"assistantMessageEvent":{"type":"%s_delta","contentIndex":%d,"delta":"%s"}}`, id, kind, idx, "\x01")
					continue
				}
				line(`{"type":"message_update","messageId":%s,"assistantMessageEvent":{"type":"%s_delta","contentIndex":%d,"delta":%s}}`, id, kind, idx, delta)
			}
			if rnd.IntN(4) != 0 {
				line(`{"type":"message_update","messageId":%s,"assistantMessageEvent":{"type":"%s_end","contentIndex":%d}}`, id, kind, idx)
			}
		}
		if rnd.IntN(4) != 0 {
			line(`{"type":"message_end","messageId":%d,"message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":1}}`, msg)
		}
	}
	return out
}

// relined passes on each line in a frame of its own, not yet checked, as a stage that edits
// lines does.
type relined struct{}

func (relined) Push(f *Frame, emit Emit) error { return emit(LineFrame(f.Line(), f.LineNo)) }
func (relined) Flush(Emit) error               { return nil }

func redactedBy(t *testing.T, st Stage, in []byte) string {
	t.Helper()
	var out bytes.Buffer
	w := codec.NewBatchWriter(&out)
	if _, err := Run([]Input{{Reader: bytes.NewReader(in)}}, w, st, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// sameAsWalked fails the test, naming the stream, the options and the first line that
// differs, unless got, a stream redacted with the shortcuts, is want, the walk's.
func sameAsWalked(t *testing.T, n int, opts redact.Options, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := bytes.Split([]byte(got), []byte("\n")), bytes.Split([]byte(want), []byte("\n"))
	for k := range min(len(g), len(w)) {
		if !bytes.Equal(g[k], w[k]) {
			t.Fatalf("stream %d, options %+v, line %d:\n got %s\nwant %s", n, opts, k+1, g[k], w[k])
		}
	}
	t.Fatalf("stream %d, options %+v: %d lines, walking every line %d", n, opts, len(g), len(w))
}

// walkedCases are what the shortcuts are held to the walk with: the corpus's secrets and
// texts, and rule sets with the built-in rules alone, with literals, and with patterns.
func walkedCases(t *testing.T) (secrets []string, options []redact.Options) {
	for _, c := range redacttest.Corpus(t) {
		secrets = append(secrets, c.Text, c.Secret)
	}
	return secrets, []redact.Options{
		{},
		{Literals: []redact.Literal{{ID: "literal", Value: "0001"}, {ID: "env:X", Value: "hunter2"}}},
		{Patterns: []string{`x9[A-Z]`}, Rules: []string{"jwt", "generic-secret"}},
	}
}

// A line taken for the last update found clean around its delta is redacted as the walk over
// all its strings would redact it: on streams of deltas full of secrets, with the lines
// around the deltas changing now and then, the stage writes what it writes walking every line.
func TestRedactDeltaAgainAsWalked(t *testing.T) {
	secrets, options := walkedCases(t)
	rnd := rand.New(rand.NewPCG(5, 6))
	for n := range 15 {
		in := deltaStream(rnd, secrets)
		for _, opts := range options {
			r, err := redact.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			got := redactedBy(t, NewRedact(r), in)
			want := redactedBy(t, forgetful{NewRedact(r)}, in)
			if unchecked := redactedBy(t, Chain(relined{}, NewRedact(r)), in); unchecked != want {
				t.Fatalf("stream %d, options %+v: frames not checked before the stage are redacted otherwise", n, opts)
			}
			sameAsWalked(t, n, opts, got, want)
		}
	}
}

// shortcuts counts the full-form updates the stage passed on by updateAgain: an update it
// did not walk (walking one counts a generation) after which it holds a clean update.
type shortcuts struct {
	*Redact
	n *int
}

func (s shortcuts) Push(f *Frame, emit Emit) error {
	gen := s.gen
	err := s.Redact.Push(f, emit)
	if f.Event == nil && f.Check() == nil && f.Type() == codec.TypeMessageUpdate && s.gen == gen && s.cleanFull.line != (lineID{}) {
		*s.n++
	}
	return err
}

// spoiled changes, now and then, a text in a line's snapshots (a byte dropped, a byte added,
// an escape added), or another string, so that snapshots lag, run ahead of or differ from
// the text released, and strings other than texts change from one update to the next.
func spoiled(rnd *rand.Rand, in []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(in, []byte("\n")) {
		if rnd.IntN(8) == 0 {
			key := [][]byte{[]byte(`"text":"`), []byte(`"thinking":"`), []byte(`"model":"`), []byte(`"delta":"`)}[rnd.IntN(4)]
			if n := bytes.Count(line, key); n > 0 {
				at := 0
				for range 1 + rnd.IntN(n) { // one of them, any
					at += bytes.Index(line[at:], key) + len(key)
				}
				switch rnd.IntN(4) {
				case 0:
					if line[at] != '"' && line[at] != '\\' {
						line = append(line[:at:at], line[at+1:]...)
					}
				case 1:
					line = append(line[:at:at], append([]byte("x"), line[at:]...)...)
				case 2:
					line = append(line[:at:at], append([]byte(`\"`), line[at:]...)...)
				default:
					line = append(line[:at:at], append([]byte("password=hunter2x9Zq "), line[at:]...)...)
				}
			}
		}
		out = append(out, line...)
	}
	return out
}

// A full-form update passed on by updateAgain is redacted as the walk over all its strings
// would redact it: on the full form of streams of deltas full of secrets (deltaStream
// expanded), with the lines changing now and then, and with snapshots spoiled now and then,
// the stage writes what it writes walking every line; and it takes the shortcut for most
// updates of clean text.
func TestRedactUpdateAgainAsWalked(t *testing.T) {
	secrets, options := walkedCases(t)
	rnd := rand.New(rand.NewPCG(7, 8))
	taken := 0
	for n := range 15 {
		in := []byte(redactedBy(t, NewExpand(), deltaStream(rnd, secrets)))
		if n%2 == 1 {
			in = spoiled(rnd, in)
		}
		for _, opts := range options {
			r, err := redact.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			got := redactedBy(t, shortcuts{NewRedact(r), &taken}, in)
			want := redactedBy(t, forgetful{NewRedact(r)}, in)
			sameAsWalked(t, n, opts, got, want)
		}
	}
	// A clean text and a clean thinking streamed in the full form: every delta but the
	// first of each block.
	var deltas []byte
	line := func(format string, args ...any) { deltas = append(fmt.Appendf(deltas, format, args...), '\n') }
	line(`{"type":"message_start","messageId":1,"message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":1}}`)
	for idx, kind := range []string{"thinking", "text"} {
		line(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"%s_start","contentIndex":%d}}`, kind, idx)
		for k := range 100 {
			line(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"%s_delta","contentIndex":%d,"delta":"%04d, and "}}`, kind, idx, k)
		}
		line(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"%s_end","contentIndex":%d}}`, kind, idx)
	}
	line(`{"type":"message_end","messageId":1,"message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":1}}`)
	clean := []byte(redactedBy(t, NewExpand(), deltas))
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cleanTaken := 0
	if got := redactedBy(t, shortcuts{NewRedact(r), &cleanTaken}, clean); got != string(clean) {
		t.Fatalf("a clean stream changed:\n%s", got)
	}
	if taken == 0 || cleanTaken != 2*99 {
		t.Errorf("updateAgain took %d updates of the streams with secrets, %d of the 200 deltas of a clean one", taken, cleanTaken)
	}
}

// Full-form updates whose snapshots lag the delta (one, the other or both keep the text of
// the update before), whose delta repeats the one before, or is empty, are redacted as
// walked; the repeated delta's update is taken by updateAgain.
func TestRedactUpdateAgainSnapshotsThatLag(t *testing.T) {
	update := func(delta, partial, message string) string {
		snap := func(text string) string {
			return `{"role":"assistant","content":[{"type":"text","text":"` + text + `"}],"api":"a"}`
		}
		return `{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"` + delta +
			`","partial":` + snap(partial) + `},"message":` + snap(message) + `}`
	}
	start := `{"type":"message_start","message":{"role":"assistant","content":[],"api":"a"}}` + "\n" +
		`{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":0,"partial":{"role":"assistant","content":[{"type":"text","text":""}],"api":"a"}},"message":{"role":"assistant","content":[{"type":"text","text":""}],"api":"a"}}` + "\n" +
		update("ab0 ", "ab0 ", "ab0 ") + "\n"
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		next  []string
		taken int
	}{
		{[]string{update("def ", "ab0 def ", "ab0 ")}, 0},                        // message lags
		{[]string{update("def ", "ab0 ", "ab0 def ")}, 0},                        // partial lags
		{[]string{update("def ", "ab0 ", "ab0 ")}, 0},                            // both lag
		{[]string{update("ab0 ", "ab0 ab0 ", "ab0 ab0 ")}, 1},                    // the same delta again
		{[]string{update("", "ab0 ", "ab0 "), update("x", "ab0 x", "ab0 x")}, 0}, // an empty delta: nothing changed but it
		{[]string{update("d", "ab0 d", "ab0 d"), update("e", "ab0 de", "ab0 d")}, 1},
	} {
		in := []byte(start + strings.Join(c.next, "\n") + "\n")
		taken := 0
		got := redactedBy(t, shortcuts{NewRedact(r), &taken}, in)
		if want := redactedBy(t, forgetful{NewRedact(r)}, in); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.next, got, want)
		}
		if taken != c.taken {
			t.Errorf("%s: updateAgain took %d updates, want %d", c.next, taken, c.taken)
		}
	}
}
