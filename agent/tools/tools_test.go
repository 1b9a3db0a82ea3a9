package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/codec"
)

// ---- helpers shared by the tests of every tool ----

func testOptions(t *testing.T) Options {
	t.Helper()
	return Options{Cwd: t.TempDir(), TempDir: t.TempDir()}
}

func getTool(t *testing.T, opts Options, name string) Tool {
	t.Helper()
	ts, err := Select(opts, []string{name})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

func call(t *testing.T, opts Options, name, args string) (Result, error) {
	t.Helper()
	return getTool(t, opts, name).Execute(context.Background(), json.RawMessage(args), func(codec.ToolResult) {})
}

// mustCall runs a call that must succeed with a non-error result.
func mustCall(t *testing.T, opts Options, name, args string) Result {
	t.Helper()
	res, err := call(t, opts, name, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %s: error result %q", name, args, resultText(res))
	}
	return res
}

// mustFail runs a call that must fail with a returned error, and returns its text.
func mustFail(t *testing.T, opts Options, name, args string) string {
	t.Helper()
	res, err := call(t, opts, name, args)
	if err == nil {
		t.Fatalf("%s %s: want error, got result %q", name, args, resultText(res))
	}
	return err.Error()
}

func resultText(r Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*codec.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type testDetails struct {
	Truncation *struct {
		TotalLines  int64 `json:"totalLines"`
		TotalBytes  int64 `json:"totalBytes"`
		OutputLines int64 `json:"outputLines"`
		OutputBytes int64 `json:"outputBytes"`
	} `json:"truncation"`
	FullOutputPath     string `json:"fullOutputPath"`
	Diff               string `json:"diff"`
	FirstChangedLine   int    `json:"firstChangedLine"`
	MatchLimitReached  int    `json:"matchLimitReached"`
	ResultLimitReached int    `json:"resultLimitReached"`
	EntryLimitReached  int    `json:"entryLimitReached"`
}

func parseDetails(t *testing.T, r Result) testDetails {
	t.Helper()
	var d testDetails
	if r.Details == nil {
		t.Fatalf("no details in result %q", resultText(r))
	}
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("details %s: %v", r.Details, err)
	}
	return d
}

// checkFullOutput checks that a truncated result names a 0600 file in opts.TempDir holding want.
func checkFullOutput(t *testing.T, opts Options, r Result, want string) testDetails {
	t.Helper()
	d := parseDetails(t, r)
	if d.Truncation == nil || d.FullOutputPath == "" {
		t.Fatalf("details %s lack truncation or fullOutputPath", r.Details)
	}
	if filepath.Dir(d.FullOutputPath) != opts.TempDir {
		t.Errorf("full output %s not in %s", d.FullOutputPath, opts.TempDir)
	}
	fi, err := os.Stat(d.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("full output mode %v, want 0600", fi.Mode().Perm())
	}
	if got := readFile(t, d.FullOutputPath); got != want {
		t.Errorf("full output file holds %d bytes, want %d", len(got), len(want))
	}
	if !strings.Contains(resultText(r), "Full output: "+d.FullOutputPath+"]") {
		t.Errorf("note does not name the full output file: ...%s", tail(resultText(r), 200))
	}
	return d
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func numberedLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// ---- API ----

func TestNamesAndAll(t *testing.T) {
	want := []string{"read", "bash", "edit", "write", "grep", "find", "ls"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v", got)
	}
	Names()[0] = "changed"
	if Names()[0] != "read" {
		t.Fatal("Names returns shared state")
	}
	all := All(Options{})
	if len(all) != len(want) {
		t.Fatalf("All returned %d tools", len(all))
	}
	for i, tool := range all {
		if tool.Name() != want[i] {
			t.Errorf("All()[%d] = %s, want %s", i, tool.Name(), want[i])
		}
		if len(tool.Description()) < 80 {
			t.Errorf("%s: description too short", tool.Name())
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tool.Parameters(), &schema); err != nil {
			t.Fatalf("%s: schema %s: %v", tool.Name(), tool.Parameters(), err)
		}
		if schema.Type != "object" || len(schema.Properties) == 0 {
			t.Errorf("%s: schema %s", tool.Name(), tool.Parameters())
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q not a property", tool.Name(), r)
			}
		}
	}
	if got := string(getTool(t, Options{}, "read").Parameters()); !strings.HasPrefix(got, `{"type":"object","properties":{"path":{"type":"string"`) ||
		!strings.HasSuffix(got, `"required":["path"],"additionalProperties":false}`) {
		t.Errorf("read schema = %s", got)
	}
	edit := string(getTool(t, Options{}, "edit").Parameters())
	if !strings.Contains(edit, `"edits":{"type":"array","items":{"type":"object","properties":{"oldText":`) ||
		!strings.Contains(edit, `"required":["oldText","newText"]`) || !strings.Contains(edit, `"required":["path","edits"]`) {
		t.Errorf("edit schema = %s", edit)
	}
}

func TestSelect(t *testing.T) {
	ts, err := Select(Options{}, []string{"ls", "read", "ls"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Name() != "ls" || ts[1].Name() != "read" {
		t.Fatalf("Select = %v", ts)
	}
	_, err = Select(Options{}, []string{"read", "nope", "Bash"})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), `"Bash"`) ||
		strings.Contains(err.Error(), `"read"`) {
		t.Fatalf("Select error = %v", err)
	}
}

func TestSelectList(t *testing.T) {
	ts, err := SelectList(Options{}, " grep , ,read,")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Name() != "grep" || ts[1].Name() != "read" {
		t.Fatalf("SelectList = %v, want grep and read", ts)
	}
	if _, err := SelectList(Options{}, "read, nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("SelectList error = %v, want one naming \"nope\"", err)
	}
}

// ---- truncation ----

func TestTruncateFits(t *testing.T) {
	opts := testOptions(t)
	for _, s := range []string{"", "short\n", numberedLines(1, MaxLines), strings.Repeat("x", MaxBytes)} {
		out, path, truncated := Truncate(s, opts, false)
		if out != s || path != "" || truncated {
			t.Errorf("Truncate(%d bytes) changed it", len(s))
		}
	}
	if entries, _ := os.ReadDir(opts.TempDir); len(entries) != 0 {
		t.Errorf("files written for untruncated output: %v", entries)
	}
}

func TestTruncateHeadByLines(t *testing.T) {
	opts := testOptions(t)
	text := numberedLines(1, 5234)
	out, path, truncated := Truncate(text, opts, false)
	if !truncated {
		t.Fatal("not truncated")
	}
	want := numberedLines(1, 2000) + "\n[Output truncated: showing lines 1-2000 of 5234. Full output: " + path + "]"
	if out != want {
		t.Fatalf("got ...%q", tail(out, 120))
	}
	if filepath.Dir(path) != opts.TempDir || !strings.HasPrefix(filepath.Base(path), "base-context-") {
		t.Errorf("full output path %s", path)
	}
	if readFile(t, path) != text {
		t.Error("full output file differs")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

func TestTruncateHeadByBytes(t *testing.T) {
	opts := testOptions(t)
	line := strings.Repeat("a", 99) + "\n" // 100 bytes a line
	text := strings.Repeat(line, 1000)     // 100,000 bytes, 1000 lines
	out, path, truncated := Truncate(text, opts, false)
	if !truncated {
		t.Fatal("not truncated")
	}
	kept := strings.Repeat(line, MaxBytes/100) // 512 lines
	want := kept + "\n[Output truncated: showing lines 1-512 of 1000 (50KB limit). Full output: " + path + "]"
	if out != want {
		t.Fatalf("got ...%q", tail(out, 160))
	}
	if readFile(t, path) != text {
		t.Error("full output file differs")
	}
}

func TestTruncateTail(t *testing.T) {
	opts := testOptions(t)
	text := numberedLines(1, 3000)
	out, path, truncated := Truncate(text, opts, true)
	if !truncated {
		t.Fatal("not truncated")
	}
	want := numberedLines(1001, 3000) + "\n[Output truncated: showing lines 1001-3000 of 3000. Full output: " + path + "]"
	if out != want {
		t.Fatalf("got %q...", out[:100])
	}

	// By bytes, without a final newline.
	text = strings.Repeat(strings.Repeat("b", 1023)+"\n", 100) + "end"
	out, _, _ = Truncate(text, opts, true)
	if !strings.HasPrefix(out, strings.Repeat("b", 1023)+"\n") || !strings.Contains(out, "\nend\n\n[Output truncated: showing lines 52-101 of 101 (50KB limit).") {
		t.Fatalf("got %q", tail(out, 200))
	}
}

func TestTruncateLongLine(t *testing.T) {
	opts := testOptions(t)
	text := strings.Repeat("é", MaxBytes) // 2 bytes each: one line of 100KB
	out, path, truncated := Truncate(text, opts, false)
	if !truncated || path == "" {
		t.Fatal("not truncated")
	}
	head, _, _ := strings.Cut(out, "\n\n[Output truncated")
	if len(head) != MaxBytes || strings.Trim(head, "é") != "" {
		t.Fatalf("head of %d bytes, valid: %q", len(head), head[len(head)-4:])
	}
	if !strings.Contains(out, "line 1 is longer than 50KB; showing its first 51200 bytes") {
		t.Errorf("note: %q", tail(out, 200))
	}
	text = "x" + text // the last 50KB must not start in the middle of a character
	out, _, _ = Truncate(text, opts, true)
	kept, _, _ := strings.Cut(out, "\n\n[Output truncated")
	if len(kept) != MaxBytes || strings.Trim(kept, "é") != "" {
		t.Fatalf("tail of %d bytes", len(kept))
	}
}

func TestDetailsEncoding(t *testing.T) {
	d := &details{Truncation: &truncationInfo{TotalLines: 1, TotalBytes: 2, OutputLines: 3, OutputBytes: 4}, FullOutputPath: "/tmp/a<b>.txt"}
	want := `{"truncation":{"totalLines":1,"totalBytes":2,"outputLines":3,"outputBytes":4},"fullOutputPath":"/tmp/a<b>.txt"}`
	if got := string(d.encode()); got != want {
		t.Errorf("encode = %s", got)
	}
	if (&details{}).encode() != nil || (*details)(nil).encode() != nil {
		t.Error("empty details encode to something")
	}
}

// ---- arguments and paths ----

func TestArgumentValidation(t *testing.T) {
	opts := testOptions(t)
	cases := []struct{ tool, args, want string }{
		{"read", `{}`, `invalid arguments for read: "path" is required (string)`},
		{"read", `{"path":7}`, `invalid arguments for read: "path" must be a string, got number`},
		{"read", `{"path":""}`, `invalid arguments for read: "path" must not be empty`},
		{"read", `{"path":"a","offset":0}`, `invalid arguments for read: "offset" must be at least 1, got 0`},
		{"read", `{"path":"a","offset":1.5}`, `invalid arguments for read: "offset" must be a whole number, got 1.5`},
		{"read", `{"path":"a","limit":"many"}`, `invalid arguments for read: "limit" must be a number, got string`},
		{"read", `[1]`, `invalid arguments for read: arguments must be a JSON object, got array`},
		{"read", `{"path":`, `invalid arguments for read: arguments are not valid JSON`},
		{"bash", `{}`, `invalid arguments for bash: "command" is required (string)`},
		{"bash", `{"command":["ls"]}`, `invalid arguments for bash: "command" must be a string, got array`},
		{"bash", `{"command":"ls","timeout":-1}`, `invalid arguments for bash: "timeout" must be a positive number of seconds, got -1`},
		{"bash", `{"command":"ls","timeout":true}`, `invalid arguments for bash: "timeout" must be a number, got boolean`},
		{"edit", `{"edits":[]}`, `invalid arguments for edit: "path" is required (string)`},
		{"edit", `{"path":"f"}`, `invalid arguments for edit: "edits" is required (array of {oldText, newText})`},
		{"edit", `{"path":"f","edits":{}}`, `invalid arguments for edit: "edits" must be an array of {oldText, newText}, got object`},
		{"edit", `{"path":"f","edits":[]}`, `invalid arguments for edit: "edits" must hold at least one edit`},
		{"edit", `{"path":"f","edits":[{"newText":"x"}]}`, `invalid arguments for edit: "edits[0].oldText" is required (string)`},
		{"edit", `{"path":"f","edits":[{"oldText":"a","newText":"b"},{"oldText":"x"}]}`, `invalid arguments for edit: "edits[1].newText" is required (string)`},
		{"edit", `{"path":"f","edits":[{"oldText":"","newText":"b"}]}`, `invalid arguments for edit: "edits[0].oldText" must not be empty`},
		{"edit", `{"path":"f","edits":["x"]}`, `invalid arguments for edit: "edits[0]" must be an object {oldText, newText}, got string`},
		{"edit", `{"path":"f","oldText":"a"}`, `invalid arguments for edit: "newText" is required (string) when "oldText" is given`},
		{"write", `{"path":"f"}`, `invalid arguments for write: "content" is required (string)`},
		{"write", `{"path":"f","content":null}`, `invalid arguments for write: "content" is required (string)`},
		{"write", `{"path":"f","content":{}}`, `invalid arguments for write: "content" must be a string, got object`},
		{"grep", `{}`, `invalid arguments for grep: "pattern" is required (string)`},
		{"grep", `{"pattern":"x","ignoreCase":"maybe"}`, `invalid arguments for grep: "ignoreCase" must be a boolean, got string`},
		{"grep", `{"pattern":"x","context":-2}`, `invalid arguments for grep: "context" must be at least 0, got -2`},
		{"grep", `{"pattern":"x","limit":0}`, `invalid arguments for grep: "limit" must be at least 1, got 0`},
		{"find", `{"path":"."}`, `invalid arguments for find: "pattern" is required (string)`},
		{"find", `{"pattern":"*","path":3}`, `invalid arguments for find: "path" must be a string, got number`},
		{"ls", `{"path":false}`, `invalid arguments for ls: "path" must be a string, got boolean`},
		{"ls", `{"limit":"0"}`, `invalid arguments for ls: "limit" must be at least 1, got 0`},
	}
	for _, c := range cases {
		got := mustFail(t, opts, c.tool, c.args)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %s:\n got %s\nwant %s", c.tool, c.args, got, c.want)
		}
	}
}

func TestLenientArguments(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "f.txt", "a\nb\nc\n")
	// Numbers as strings, booleans as strings, edits as a JSON string, extra members.
	if got := resultText(mustCall(t, opts, "read", `{"path":"f.txt","offset":"2","limit":1.0,"extra":1}`)); !strings.HasPrefix(got, "b\n") {
		t.Errorf("read = %q", got)
	}
	if got := resultText(mustCall(t, opts, "grep", `{"pattern":"B","ignoreCase":"true"}`)); got != "f.txt:2: b" {
		t.Errorf("grep = %q", got)
	}
	mustCall(t, opts, "edit", `{"path":"f.txt","edits":"[{\"oldText\":\"c\",\"newText\":\"C\"}]"}`)
	if got := readFile(t, filepath.Join(opts.Cwd, "f.txt")); got != "a\nb\nC\n" {
		t.Errorf("file = %q", got)
	}
}

func TestResolvePath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	cases := []struct{ cwd, p, want string }{
		{"/work/x", "a/b.txt", "/work/x/a/b.txt"},
		{"/work/x", "../y", "/work/y"},
		{"/work/x", "/etc/hosts", "/etc/hosts"},
		{"/work/x", "~", home},
		{"/work/x", "~/notes.md", filepath.Join(home, "notes.md")},
		{"/work/x", "~user", "/work/x/~user"},
	}
	for _, c := range cases {
		if got := resolvePath(c.cwd, c.p); got != c.want {
			t.Errorf("resolvePath(%q, %q) = %q, want %q", c.cwd, c.p, got, c.want)
		}
	}
	wd, _ := os.Getwd()
	if got := resolvePath("", "f"); got != filepath.Join(wd, "f") {
		t.Errorf("empty cwd: %s", got)
	}
}

func TestToolsUseCwd(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "sub/file.txt", "content\n")
	if got := resultText(mustCall(t, opts, "read", `{"path":"sub/file.txt"}`)); got != "content\n" {
		t.Errorf("read = %q", got)
	}
	abs := filepath.Join(opts.Cwd, "sub", "file.txt")
	if got := resultText(mustCall(t, opts, "read", fmt.Sprintf(`{"path":%q}`, abs))); got != "content\n" {
		t.Errorf("read absolute = %q", got)
	}
	if got := resultText(mustCall(t, opts, "ls", `{}`)); got != "sub/" {
		t.Errorf("ls = %q", got)
	}
}

// An interrupted find or grep says what interrupted it (the cause its canceller gave), not
// "context canceled".
func TestInterruptedSearchSaysWhy(t *testing.T) {
	dir := t.TempDir()
	for i := range 1200 { // find looks at its context every 1,000 entries
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := Select(Options{Cwd: dir}, []string{"find", "grep"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cause error
		want  string
	}{
		{errors.New("interrupted (SIGINT)"), "aborted: interrupted (SIGINT)"},
		{nil, "aborted"},
		{context.DeadlineExceeded, "aborted: out of time"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		if c.cause == context.DeadlineExceeded {
			var stop context.CancelFunc
			ctx, stop = context.WithDeadline(context.Background(), time.Unix(0, 0))
			defer stop()
		}
		cancel(c.cause)
		for _, tool := range ts {
			args := `{"pattern":"*.txt"}`
			if tool.Name() == "grep" {
				args = `{"pattern":"x"}`
			}
			_, err := tool.Execute(ctx, json.RawMessage(args), func(codec.ToolResult) {})
			if want := tool.Name() + " " + c.want; err == nil || err.Error() != want {
				t.Errorf("%s with the cause %v: %v, want %q", tool.Name(), c.cause, err, want)
			}
		}
	}
}
