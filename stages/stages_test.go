package stages_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/schematest"
	"github.com/basecontext/base-context/stages"
	"github.com/google/jsonschema-go/jsonschema"
)

// run feeds input through st as the filter subcommands do.
func run(t testing.TB, st stages.Stage, input []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if _, err := stages.Run([]stages.Input{{Name: "test", Reader: bytes.NewReader(input)}},
		codec.NewLineWriter(&out), st, stages.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// consume feeds input into a sink as the filter subcommands do, the sink writing to their
// output, and returns the sink and what it wrote.
func consume[S stages.Sink](t testing.TB, newSink func(io.Writer) S, input []byte) (S, []byte) {
	t.Helper()
	var out bytes.Buffer
	w := codec.NewLineWriter(&out)
	sink := newSink(w)
	if _, err := stages.RunSink([]stages.Input{{Name: "test", Reader: bytes.NewReader(input)}}, w, sink,
		stages.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	return sink, out.Bytes()
}

func deltas(t testing.TB, in []byte) []byte { return run(t, stages.NewDeltas(), in) }
func expand(t testing.TB, in []byte) []byte { return run(t, stages.NewExpand(), in) }

func lines(b []byte) [][]byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) == 0 {
		return nil
	}
	return bytes.Split(b, []byte("\n"))
}

// referenceStreams returns every reference stream in testdata, f_long unzipped.
func referenceStreams(t testing.TB) map[string][]byte {
	t.Helper()
	files, _ := filepath.Glob("../testdata/reference/*.jsonl*")
	out := map[string][]byte{}
	for _, f := range files {
		if strings.Contains(f, ".session.") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		out[filepath.Base(f)] = data
	}
	if len(out) < 10 {
		t.Fatalf("found only %d reference streams", len(out))
	}
	return out
}

var (
	schemaOnce sync.Once
	schemas    map[string]*jsonschema.Resolved
)

// schema is docs/schema/<name>.schema.json, resolved.
func schema(t testing.TB, name string) *jsonschema.Resolved {
	schemaOnce.Do(func() {
		schemas = map[string]*jsonschema.Resolved{}
		for _, n := range []string{"line", "line-deltas"} {
			data, err := os.ReadFile("../docs/schema/" + n + ".schema.json")
			if err != nil {
				panic(err)
			}
			s, err := schematest.Resolve(data, "")
			if err != nil {
				panic(fmt.Sprintf("%s.schema.json: %v", n, err))
			}
			schemas[n] = s
		}
	})
	return schemas[name]
}

func decode(t testing.TB, line []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(line, &v); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return v
}

func TestDeltasOfReferenceStreams(t *testing.T) {
	for name, in := range referenceStreams(t) {
		t.Run(name, func(t *testing.T) {
			out := deltas(t, in)
			inLines, outLines := lines(in), lines(out)
			if len(inLines) != len(outLines) {
				t.Fatalf("%d lines in, %d out", len(inLines), len(outLines))
			}
			// Every line is a valid delta-form line; lines deltas does not touch are
			// byte for byte the same.
			for i, l := range outLines {
				if err := schema(t, "line-deltas").Validate(decode(t, l)); err != nil {
					t.Fatalf("line %d: %v\n%s", i+1, err, l)
				}
				typ := codec.LineType(l)
				if typ != "message_start" && typ != "message_update" && typ != "message_end" &&
					!bytes.Equal(l, inLines[i]) {
					t.Errorf("line %d (%s) changed", i+1, typ)
				}
			}
			checkDeltasAddUp(t, outLines)
			if again := deltas(t, out); !bytes.Equal(again, out) {
				t.Error("deltas is not idempotent")
			}
		})
	}
}

// checkDeltasAddUp asserts that, per messageId and contentIndex, the deltas concatenate to
// the final content of that block in the message_end.
func checkDeltasAddUp(t *testing.T, ls [][]byte) {
	t.Helper()
	type key struct{ id, idx int }
	acc := map[key]*strings.Builder{}
	blocks := 0
	for _, l := range ls {
		v := decode(t, l)
		switch v["type"] {
		case "message_update":
			id := int(v["messageId"].(float64))
			ev := v["assistantMessageEvent"].(map[string]any)
			if _, has := ev["partial"]; has {
				t.Fatal("partial left in a delta-form update")
			}
			if _, has := v["message"]; has {
				t.Fatal("message left in a delta-form update")
			}
			k := key{id, int(ev["contentIndex"].(float64))}
			if acc[k] == nil {
				acc[k] = &strings.Builder{}
			}
			if d, ok := ev["delta"].(string); ok {
				acc[k].WriteString(d)
			}
		case "message_end":
			idf, ok := v["messageId"].(float64)
			if !ok {
				continue
			}
			content := v["message"].(map[string]any)["content"].([]any)
			for idx, b := range content {
				got := acc[key{int(idf), idx}]
				if got == nil {
					continue // a block with no deltas: the end is the result
				}
				blocks++
				block := b.(map[string]any)
				switch block["type"] {
				case "text":
					if got.String() != block["text"] {
						t.Errorf("message %v block %d: deltas %q, final %q", idf, idx, got, block["text"])
					}
				case "thinking":
					if got.String() != block["thinking"] {
						t.Errorf("message %v block %d: deltas %q, final %q", idf, idx, got, block["thinking"])
					}
				case "toolCall":
					var args any
					if err := json.Unmarshal([]byte(got.String()), &args); err != nil {
						t.Fatalf("tool-call deltas do not form JSON: %v", err)
					}
					if !reflect.DeepEqual(args, block["arguments"]) {
						t.Errorf("message %v block %d: arguments %v, final %v", idf, idx, args, block["arguments"])
					}
				}
			}
		}
	}
	if updates := len(acc); updates > 0 && blocks != updates {
		t.Errorf("compared %d blocks with their final content, but %d blocks had updates", blocks, updates)
	}
}

func TestExpandRestoresReferenceStreams(t *testing.T) {
	for name, in := range referenceStreams(t) {
		t.Run(name, func(t *testing.T) {
			back := lines(expand(t, deltas(t, in)))
			orig := lines(in)
			if len(back) != len(orig) {
				t.Fatalf("%d lines, want %d", len(back), len(orig))
			}
			for i := range orig {
				if codec.LineType(orig[i]) != "message_update" {
					if !bytes.Equal(back[i], orig[i]) {
						t.Fatalf("line %d differs:\n got %s\nwant %s", i+1, back[i], orig[i])
					}
					continue
				}
				if err := schema(t, "line").Validate(decode(t, back[i])); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				compareSnapshotsLoosely(t, i+1, decode(t, back[i]), decode(t, orig[i]))
			}
		})
	}
}

// compareSnapshotsLoosely: the original serialized some snapshots late, so its text may run
// ahead of ours; ours must be a prefix of it, with the same update event.
func compareSnapshotsLoosely(t *testing.T, n int, got, want map[string]any) {
	t.Helper()
	gev := got["assistantMessageEvent"].(map[string]any)
	wev := want["assistantMessageEvent"].(map[string]any)
	if !reflect.DeepEqual(gev["partial"], got["message"]) {
		t.Fatalf("line %d: partial and message differ", n)
	}
	for _, k := range []string{"type", "contentIndex", "delta", "content", "toolCall"} {
		if !reflect.DeepEqual(gev[k], wev[k]) {
			t.Fatalf("line %d: event %s = %v, want %v", n, k, gev[k], wev[k])
		}
	}
	gc := got["message"].(map[string]any)["content"].([]any)
	wc := want["message"].(map[string]any)["content"].([]any)
	if len(gc) > len(wc) {
		t.Fatalf("line %d: %d blocks, the original had %d", n, len(gc), len(wc))
	}
	for i := range gc {
		g, w := gc[i].(map[string]any), wc[i].(map[string]any)
		for _, f := range []string{"text", "thinking"} {
			gs, _ := g[f].(string)
			ws, _ := w[f].(string)
			if !strings.HasPrefix(ws, gs) {
				t.Fatalf("line %d block %d: %s %q is not a prefix of %q", n, i, f, gs, ws)
			}
		}
		if g["type"] == "toolCall" && (g["id"] != w["id"] || g["name"] != w["name"]) {
			t.Fatalf("line %d block %d: tool call %v, want %v", n, i, g, w)
		}
	}
}

func TestDeltasPassesUnknownAndInvalidLinesThrough(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}`,
		`not json at all`,
		`{"type":"custom_event","n":1.50000000000000000001,"s":"\u00e9\/"}`,
		`{"type":"message_start", "message" : {"role":"assistant","content":[]}, "extra":{"a":[1,2]}}`,
		`[1,2,3]`,
		`{"type":"message_update","assistantMessageEvent":{"partial":{"content":[{"type":"toolCall","id":"c\"1","name":"n"}]},"type":"toolcall_start","contentIndex":0},"message":{},"zz":true}`,
		`{"type":"message_end","message":{"role":"assistant","content":[]}}`,
		`{"type":"message_start","message":{"role":"user","content":"hi"}}`,
		``,
	}, "\n")
	var out, report bytes.Buffer
	stats, err := stages.Run([]stages.Input{{Name: "in.jsonl", Reader: strings.NewReader(in)}},
		codec.NewLineWriter(&out), stages.NewDeltas(), stages.RunOptions{
			Report: func(m string) { fmt.Fprintln(&report, m) },
		})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}`,
		`not json at all`,
		`{"type":"custom_event","n":1.50000000000000000001,"s":"\u00e9\/"}`,
		`{"type":"message_start","messageId":1, "message" : {"role":"assistant","content":[]}, "extra":{"a":[1,2]}}`,
		`[1,2,3]`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"toolcall_start","contentIndex":0,"toolCall":{"id":"c\"1","name":"n"}},"zz":true}`,
		`{"type":"message_end","messageId":1,"message":{"role":"assistant","content":[]}}`,
		`{"type":"message_start","message":{"role":"user","content":"hi"}}`,
		``,
	}, "\n")
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if stats.Invalid != 2 || stats.Lines != 8 {
		t.Errorf("stats %+v", stats)
	}
	for _, w := range []string{"in.jsonl:2: invalid JSON", "in.jsonl:5: expected a JSON object, found an array"} {
		if !strings.Contains(report.String(), w) {
			t.Errorf("report %q lacks %q", report.String(), w)
		}
	}
}

func TestSkipInvalidDropsBadLines(t *testing.T) {
	var out bytes.Buffer
	stats, err := stages.Run([]stages.Input{{Reader: strings.NewReader("{\"type\":\"a\"}\n{oops\n{\"type\":\"b\"}\r\n")}},
		codec.NewLineWriter(&out), stages.NewDeltas(), stages.RunOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"type\":\"a\"}\n{\"type\":\"b\"}\r\n" || stats.Invalid != 1 {
		t.Errorf("got %q, %+v", out.String(), stats)
	}
}
