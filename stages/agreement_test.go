package stages_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/schematest"
	"github.com/basecontext/base-context/stages"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tidwall/sjson"
)

// The agreement of the stream's one description (codec) with its three readers: the JSON
// Schema made from it, filter validate, and the decoders, on every stream in testdata.

// generatedSchema resolves codec.JSONSchema of the form (draft 2020-12).
func generatedSchema(t testing.TB, deltas bool) *jsonschema.Resolved {
	t.Helper()
	s, err := schematest.Resolve(codec.JSONSchema(deltas), "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type agreementStream struct {
	data      []byte
	canonical bool // written by our encoders: decoding and encoding gives the same bytes
}

// agreementStreams: the reference streams (written by the original implementation), our
// golden outputs, and a run our encoders write in both forms.
func agreementStreams(t *testing.T) map[string]agreementStream {
	out := map[string]agreementStream{}
	for name, data := range referenceStreams(t) {
		out["reference/"+name] = agreementStream{data: data}
	}
	golden, _ := filepath.Glob("../testdata/golden/*.jsonl")
	for _, f := range golden {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out["golden/"+filepath.Base(f)] = agreementStream{data: data, canonical: true}
	}
	var full, delta bytes.Buffer
	fw, dw := codec.NewLineWriter(&full), codec.NewLineWriter(&delta)
	toDeltas := stages.NewDeltas()
	write := func(f *stages.Frame) error { return f.WriteLine(dw) }
	genEvents([]genBlock{
		{"thinking", []string{"Let me ", "look."}},
		{"text", []string{"Listing ", "the files:\n"}},
		{"toolCall", []string{`{"comm`, `and":"ls -la"}`}},
	}, func(e codec.Event) {
		if err := fw.WriteEncoded(e); err != nil {
			t.Fatal(err)
		}
		if err := toDeltas.Push(stages.EventFrame(e), write); err != nil {
			t.Fatal(err)
		}
	})
	if err := toDeltas.Flush(write); err != nil {
		t.Fatal(err)
	}
	out["encoded/full"] = agreementStream{data: full.Bytes(), canonical: true}
	out["encoded/deltas"] = agreementStream{data: delta.Bytes(), canonical: true}
	if len(golden) == 0 || len(out) < 14 {
		t.Fatalf("found only %d streams", len(out))
	}
	return out
}

// validateStream runs filter validate over data and returns its violations by line.
func validateStream(t testing.TB, data []byte) (map[int][]string, stages.ValidateResult) {
	byLine := map[int][]string{}
	v := stages.NewValidator(stages.ValidateOptions{Report: func(v stages.Violation) {
		byLine[v.Line] = append(byLine[v.Line], v.What)
	}})
	run(t, v, data)
	return byLine, v.Result()
}

func TestDescriptionAgreesOnEveryStream(t *testing.T) {
	schemas := map[bool]*jsonschema.Resolved{false: generatedSchema(t, false), true: generatedSchema(t, true)}
	for name, s := range agreementStreams(t) {
		t.Run(name, func(t *testing.T) {
			violations, result := validateStream(t, s.data)
			for n, l := range lines(s.data) {
				for _, what := range violations[n+1] {
					if isShapeViolation(what) {
						t.Errorf("line %d: filter validate: %s", n+1, what)
					}
				}
				if err := schemas[result.Form == "delta"].Validate(decode(t, l)); err != nil {
					t.Errorf("line %d: schema (%s form): %v", n+1, result.Form, err)
				}
				checkDecodeEncode(t, n+1, l, s.canonical)
			}
		})
	}
}

// isShapeViolation tells the reports about one line's members (what the description
// governs) from those about orders between lines.
func isShapeViolation(what string) bool {
	return strings.Contains(what, " is missing") || strings.Contains(what, ", expected ")
}

// checkDecodeEncode decodes the line (and a header with ParseHeader too), encodes it again
// and compares: byte for byte on our own streams, as parsed JSON on the others.
func checkDecodeEncode(t *testing.T, n int, line []byte, canonical bool) {
	t.Helper()
	// Reference streams are compared as parsed JSON: their writer formats numbers, escapes
	// strings and places some optional members its own way.
	compare := func(what string, got, want []byte) {
		t.Helper()
		if canonical && !bytes.Equal(got, want) || !canonical && !sameJSON(t, got, want) {
			t.Errorf("line %d: %s: decoding then encoding gives\n%s\nwant\n%s", n, what, got, want)
		}
	}
	if codec.LineType(line) == codec.TypeSession {
		h, err := codec.ParseHeader(line)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		compare("header", h.AppendJSON(nil), line)
	}
	e, err := codec.ParseEvent(line)
	if err != nil {
		t.Fatalf("line %d: %v", n, err)
	}
	compare("line", e.AppendJSON(nil), line)
}

// sameJSON compares our encoding got with the original's want as parsed JSON: every member
// we write has the original's value. Member order is not compared (the original writes some
// optional members, errorMessage, at another place), nor the scratch members it leaks
// (partialArgs, streamIndex), which the description does not know.
func sameJSON(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	return writtenAsIn(g, w)
}

func writtenAsIn(got, want any) bool {
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range g {
			if wv, ok := w[k]; !ok || !writtenAsIn(v, wv) {
				return false
			}
		}
		return true
	case []any:
		w, ok := want.([]any)
		if !ok || len(w) != len(g) {
			return false
		}
		for i := range g {
			if !writtenAsIn(g[i], w[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

// A line that lacks a required member, or holds one of the wrong kind, is rejected by both
// the schema and filter validate: for every member the description requires of every event
// type our streams have, and every member of the messages they carry.
func TestDescriptionRejectsAgreeingly(t *testing.T) {
	streams := agreementStreams(t)
	cases := 0
	for _, name := range []string{"encoded/full", "encoded/deltas", "reference/d1_retry_then_success.jsonl", "reference/b2_tools_parallel.jsonl"} {
		s, ok := streams[name]
		if !ok {
			t.Fatalf("no stream %s", name)
		}
		ls := lines(s.data)
		_, result := validateStream(t, s.data)
		schema := generatedSchema(t, result.Form == "delta")
		seen := map[string]bool{}
		for i, l := range ls {
			typ := codec.LineType(l)
			shape := codec.Events().Variant(typ)
			if shape == nil || seen[typ] {
				continue
			}
			seen[typ] = true
			prefix := bytes.Join(ls[:i], []byte("\n"))
			for _, m := range shape.Members {
				for _, mu := range mutations(l, "", &m) {
					cases++
					checkRejected(t, name, i+1, prefix, mu, schema)
				}
			}
			if typ == codec.TypeMessageEnd || typ == codec.TypeMessageStart {
				msgRaw := codec.Find(l, "message").Raw(l)
				role := codec.Find(msgRaw, "role").View(msgRaw)
				for _, m := range codec.Messages().Variant(role).Members {
					for _, mu := range mutations(l, "message.", &m) {
						cases++
						checkRejected(t, name, i+1, prefix, mu, schema)
					}
				}
			}
		}
	}
	if cases < 60 {
		t.Errorf("only %d cases", cases)
	}
}

type mutant struct {
	line []byte
	what string // the member changed, as the validator names it
	how  string
}

// mutations of line: member m (at path prefix) removed when it is required, replaced by a
// value of another kind, and by another value of its kind where it has a const.
func mutations(line []byte, prefix string, m *codec.ShapeMember) []mutant {
	path := prefix + m.Key
	if !codec.Find(line, strings.TrimSuffix(prefix, ".")).Exists() && prefix != "" {
		return nil
	}
	var out []mutant
	if !m.MayBeAbsent() {
		if l, err := sjson.DeleteBytes(line, path); err == nil {
			out = append(out, mutant{l, path, "removed"})
		}
	}
	wrong := ""
	switch m.Kind {
	case codec.KindString, codec.KindObject, codec.KindArray, codec.KindStringOrArray:
		wrong = "12"
	case codec.KindInteger, codec.KindNumber, codec.KindBoolean:
		wrong = `"x"`
	}
	present := codec.Find(line, prefix+m.Key)
	if prefix != "" {
		inner := codec.Find(line, strings.TrimSuffix(prefix, ".")).Raw(line)
		present = codec.Find(inner, m.Key)
	}
	if m.Const != "" && present.Exists() {
		if l, err := sjson.SetRawBytes(line, path, []byte(m.Const+"0")); err == nil {
			out = append(out, mutant{l, path, "set to " + m.Const + "0"})
		}
	}
	if wrong != "" && (present.Exists() || !m.MayBeAbsent()) {
		if l, err := sjson.SetRawBytes(line, path, []byte(wrong)); err == nil {
			out = append(out, mutant{l, path, "set to " + wrong})
		}
	}
	return out
}

func checkRejected(t *testing.T, stream string, n int, prefix []byte, mu mutant, schema *jsonschema.Resolved) {
	t.Helper()
	where := fmt.Sprintf("%s line %d, %s %s", stream, n, mu.what, mu.how)
	if schema.Validate(decode(t, mu.line)) == nil {
		t.Errorf("%s: the schema accepts it", where)
	}
	var data []byte
	if len(prefix) > 0 {
		data = append(append(data, prefix...), '\n')
	}
	data = append(append(data, mu.line...), '\n')
	violations, _ := validateStream(t, data)
	reported := false
	for _, what := range violations[n] {
		if strings.HasPrefix(what, mu.what+" ") && isShapeViolation(what) {
			reported = true
		}
	}
	if !reported {
		t.Errorf("%s: filter validate does not report it (it says %q)", where, violations[n])
	}
}
