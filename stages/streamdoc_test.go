package stages_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// docs/stream.md describes the stream in prose; these tests keep its claims tied to the code.

const streamDoc = "../docs/stream.md"

// docExample is one ```json block of the doc: lines of the stream, as the binary wrote them.
type docExample struct {
	line  int // of the doc, where the block's first stream line is
	lines [][]byte
}

func streamDocText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(streamDoc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func docExamples(t *testing.T, doc string) []docExample {
	t.Helper()
	var out []docExample
	var cur *docExample
	for i, l := range strings.Split(doc, "\n") {
		switch {
		case cur == nil && l == "```json":
			cur = &docExample{line: i + 2}
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, []byte(l))
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a json block is not closed", streamDoc, cur.line-1)
	}
	if len(out) < 5 {
		t.Fatalf("%s has only %d json examples", streamDoc, len(out))
	}
	return out
}

// A header that lets an example which is an excerpt be checked as a stream of its own.
var excerptHeader = []byte(`{"type":"session","version":3,"id":"01a23909-a7b1-7f1d-b985-996f3ef8e2cc","timestamp":"2026-12-02T23:14:23.802Z","cwd":"/"}`)

// TestStreamDocExamples: every json block of the doc is a valid stream (after a header when it
// is an excerpt) for filter validate --strict and for the JSON Schema of its form; its
// messages and header are what our encoders write, byte for byte; and a delta-form block goes
// through expand and back unchanged, as the doc says.
func TestStreamDocExamples(t *testing.T) {
	for _, ex := range docExamples(t, streamDocText(t)) {
		t.Run(strconv.Itoa(ex.line), func(t *testing.T) {
			stream := ex.lines
			if codec.LineType(stream[0]) != codec.TypeSession {
				stream = append([][]byte{excerptHeader}, stream...)
			}
			input := append(bytes.Join(stream, []byte("\n")), '\n')

			var violations []string
			v := stages.NewValidator(stages.ValidateOptions{Strict: true, Report: func(v stages.Violation) {
				violations = append(violations, v.String())
			}})
			run(t, v, input)
			if len(violations) > 0 {
				t.Fatalf("%s:%d: filter validate --strict reports:\n%s", streamDoc, ex.line, strings.Join(violations, "\n"))
			}
			form := "line"
			if v.Result().Form == "delta" {
				form = "line-deltas"
			}
			for i, l := range ex.lines {
				var val any
				if err := json.Unmarshal(l, &val); err != nil {
					t.Fatalf("%s:%d: %v", streamDoc, ex.line+i, err)
				}
				if err := schema(t, form).Validate(val); err != nil {
					t.Errorf("%s:%d: not valid for %s.schema.json: %v", streamDoc, ex.line+i, form, err)
				}
				checkEncoding(t, l, ex.line+i)
			}
			if form == "line-deltas" {
				if back := deltas(t, expand(t, input)); !bytes.Equal(back, input) {
					t.Errorf("%s:%d: deltas(expand(example)) differs from the example:\n%s", streamDoc, ex.line, back)
				}
			}
		})
	}
}

// checkEncoding decodes the header and every message of an example line and encodes them
// again: the doc's examples, and so its member orders, must be what the encoders write.
func checkEncoding(t *testing.T, line []byte, docLine int) {
	t.Helper()
	if codec.LineType(line) == codec.TypeSession {
		h, err := codec.ParseHeader(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", streamDoc, docLine, err)
		}
		if got := h.AppendJSON(nil); !bytes.Equal(got, line) {
			t.Errorf("%s:%d: the header encodes as\n%s", streamDoc, docLine, got)
		}
		return
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		t.Fatalf("%s:%d: %v", streamDoc, docLine, err)
	}
	var msgs []json.RawMessage
	if m, ok := members["message"]; ok {
		msgs = append(msgs, m)
	}
	for _, key := range []string{"messages", "toolResults"} {
		var list []json.RawMessage
		if raw, ok := members[key]; ok {
			if err := json.Unmarshal(raw, &list); err != nil {
				t.Fatalf("%s:%d: %s: %v", streamDoc, docLine, key, err)
			}
		}
		msgs = append(msgs, list...)
	}
	for _, raw := range msgs {
		m, err := codec.ParseMessage(raw)
		if err != nil {
			t.Fatalf("%s:%d: %v", streamDoc, docLine, err)
		}
		if got := m.AppendJSON(nil); !bytes.Equal(got, raw) {
			t.Errorf("%s:%d: the message\n%s\nencodes as\n%s", streamDoc, docLine, raw, got)
		}
	}
}

// codecNames collects, from the codec package's source, the values of the string constants
// whose names start with prefix, and the strings that the methods named method return.
func codecNames(t *testing.T, prefix, method string) []string {
	t.Helper()
	files, err := filepath.Glob("../codec/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if prefix != "" && strings.HasPrefix(id.Name, prefix) && i < len(n.Values) {
						if s, ok := stringLit(n.Values[i]); ok {
							names = append(names, s)
						}
					}
				}
			case *ast.FuncDecl:
				if method != "" && n.Recv != nil && n.Name.Name == method && n.Body != nil && len(n.Body.List) == 1 {
					if ret, ok := n.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
						if s, ok := stringLit(ret.Results[0]); ok {
							names = append(names, s)
						}
					}
				}
			}
			return true
		})
	}
	return names
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// TestStreamDocNamesEverything: every event type, role, content block type, update type and
// stop reason the codec knows has its place in the doc: events a heading of their own, the
// others a row of their table. A name added to the codec without a word in the doc fails.
func TestStreamDocNamesEverything(t *testing.T) {
	doc := streamDocText(t)
	cases := []struct {
		what  string
		names []string
		min   int
		place func(name string) *regexp.Regexp
	}{
		{"event type", codecNames(t, "Type", ""), 16, func(n string) *regexp.Regexp {
			return regexp.MustCompile("(?m)^#{2,4} .*`" + regexp.QuoteMeta(n) + "`")
		}},
		{"update type", codecNames(t, "Update", ""), 9, tableRow},
		{"stop reason", codecNames(t, "StopReason", ""), 5, tableRow},
		{"message role", codecNames(t, "", "Role"), 7, tableRow},
		{"content block type", codecNames(t, "", "ContentType"), 4, tableRow},
	}
	for _, c := range cases {
		if len(c.names) < c.min {
			t.Errorf("found %d %ss in codec (%q), expected at least %d: the test no longer sees the codec's names", len(c.names), c.what, c.names, c.min)
		}
		for _, n := range c.names {
			if !c.place(n).MatchString(doc) {
				t.Errorf("%s: the %s %q is not described (want %s)", streamDoc, c.what, n, c.place(n))
			}
		}
	}
}

func tableRow(name string) *regexp.Regexp {
	return regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(name) + "` \\|")
}
