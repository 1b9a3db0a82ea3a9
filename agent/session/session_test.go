package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/basecontext/base-context/codec"
)

const referenceStreams = "../../testdata/reference"

var (
	hexID   = regexp.MustCompile(`^[0-9a-f]{8}$`)
	isoTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
)

func testHeader() codec.Header {
	return codec.Header{Version: 3, ID: NewID(), Timestamp: NowISO(time.Now()), Cwd: "/work"}
}

func testMessages() []codec.Message {
	return []codec.Message{
		&codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: "List the files"}}, Timestamp: 1796220163009},
		&codec.AssistantMessage{
			Content: []codec.Content{
				&codec.TextContent{Text: "Let me look."},
				&codec.ToolCall{ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
			},
			API: "script", Provider: "script", Model: "m",
			Usage:      codec.Usage{Input: 200, Output: 15, TotalTokens: 215},
			StopReason: codec.StopReasonToolUse, Timestamp: 1796220163085, ResponseID: "script-1",
		},
		&codec.ToolResultMessage{ToolCallID: "call_1", ToolName: "bash",
			Content: []codec.Content{&codec.TextContent{Text: "hello.txt\n"}}, Timestamp: 1796220163332},
		&codec.UserMessage{Text: "thanks\n\"quoted\" \u2028", Timestamp: 1796220163400},
	}
}

func encoded(ms []codec.Message) string {
	return string(codec.AppendMessages(nil, ms))
}

// fill appends a typical session to s and returns the ids it reported.
func fill(t *testing.T, s Store) []string {
	t.Helper()
	if err := s.AppendModelChange("script", "m"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendThinkingLevel("off"); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range testMessages() {
		id, err := s.AppendMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// checkChain verifies ids, links and timestamps of a file's entries.
func checkChain(t *testing.T, l *Loaded) {
	t.Helper()
	seen := map[string]bool{}
	prev := ""
	for i, e := range l.Entries {
		if !hexID.MatchString(e.ID) {
			t.Errorf("entry %d: id %q is not 8 hex digits", i, e.ID)
		}
		if seen[e.ID] {
			t.Errorf("entry %d: id %s used twice", i, e.ID)
		}
		seen[e.ID] = true
		if e.ParentID != prev {
			t.Errorf("entry %d: parentId %q, want %q", i, e.ParentID, prev)
		}
		prev = e.ID
		if !isoTime.MatchString(e.Timestamp) {
			t.Errorf("entry %d: timestamp %q", i, e.Timestamp)
		}
	}
	if len(l.Chain) != len(l.Entries) {
		t.Errorf("chain of %d entries, file has %d", len(l.Chain), len(l.Entries))
	}
}

func TestCreateAppendRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "--work--")
	h := testHeader()
	f, err := Create(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, h.ID+".jsonl"); f.Path() != want {
		t.Errorf("path %s, want %s", f.Path(), want)
	}
	ids := fill(t, f)
	if f.LastID() != ids[len(ids)-1] {
		t.Errorf("LastID %s", f.LastID())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.AppendMessage(testMessages()[0]); err == nil {
		t.Error("append after Close: want error")
	}

	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v %v", st.Mode(), err)
	}
	st, err = os.Stat(f.Path())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v %v", st.Mode(), err)
	}

	data, _ := os.ReadFile(f.Path())
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	if want := string(h.AppendJSON(nil)); lines[0] != want {
		t.Errorf("header line %s, want %s", lines[0], want)
	}
	if !regexp.MustCompile(`^\{"type":"model_change","id":"[0-9a-f]{8}","parentId":null,"timestamp":"[^"]+","provider":"script","modelId":"m"\}$`).MatchString(lines[1]) {
		t.Errorf("model_change line %s", lines[1])
	}
	if !regexp.MustCompile(`^\{"type":"thinking_level_change","id":"[0-9a-f]{8}","parentId":"[0-9a-f]{8}","timestamp":"[^"]+","thinkingLevel":"off"\}$`).MatchString(lines[2]) {
		t.Errorf("thinking_level_change line %s", lines[2])
	}
	for _, line := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("line is not JSON: %s", line)
		}
	}

	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 0 {
		t.Errorf("warnings %v", l.Warnings)
	}
	if l.Header != h {
		t.Errorf("header %+v, want %+v", l.Header, h)
	}
	checkChain(t, l)
	if got, want := encoded(l.Messages), encoded(testMessages()); got != want {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
	var types []string
	for _, e := range l.Entries {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, ","); got != "model_change,thinking_level_change,message,message,message,message" {
		t.Errorf("types %s", got)
	}
	for i, e := range l.Entries[2:] {
		if e.ID != ids[i] {
			t.Errorf("message %d: id %s, AppendMessage said %s", i, e.ID, ids[i])
		}
		if e.Line != i+4 || string(e.Raw) != lines[i+3] {
			t.Errorf("message %d: line %d raw %s", i, e.Line, e.Raw)
		}
	}
	if l.Provider != "script" || l.ModelID != "m" || l.ThinkingLevel != "off" || l.LastID() != ids[3] {
		t.Errorf("settings %q %q %q last %q", l.Provider, l.ModelID, l.ThinkingLevel, l.LastID())
	}

	// A second Create of the same session must not clobber it.
	if _, err := Create(dir, h); err == nil {
		t.Error("Create over an existing file: want error")
	}
}

func TestCreateDefaultsAndInvalidID(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(dir, codec.Header{ID: "abc", Cwd: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if l.Header.Version != Version || !isoTime.MatchString(l.Header.Timestamp) || len(l.Entries) != 0 || l.Messages != nil {
		t.Errorf("got %+v", l)
	}
	for _, id := range []string{"", "a/b", `a\b`, "..", "."} {
		if _, err := Create(dir, codec.Header{ID: id}); err == nil {
			t.Errorf("Create with id %q: want error", id)
		}
	}
}

func TestDeterministicTimestamps(t *testing.T) {
	f, err := Create(t.TempDir(), testHeader())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.chain.now = func() time.Time {
		return time.Date(2026, 12, 2, 15, 2, 42, 971_999_999, time.FixedZone("CET", 3600))
	}
	if err := f.AppendThinkingLevel("high"); err != nil {
		t.Fatal(err)
	}
	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if ts := l.Entries[0].Timestamp; ts != "2026-12-02T14:02:42.971Z" {
		t.Errorf("timestamp %s", ts)
	}
}

func TestCrashedLastLine(t *testing.T) {
	f, whole := filledFile(t)

	// Cut the last line in half, as a crash during its write would.
	lastStart := bytes.LastIndexByte(whole[:len(whole)-1], '\n') + 1
	half := whole[:lastStart+(len(whole)-lastStart)/2]
	if err := os.WriteFile(f.Path(), half, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "line 7") {
		t.Errorf("warnings %v", l.Warnings)
	}
	if len(l.Entries) != 5 || len(l.Messages) != 3 {
		t.Fatalf("%d entries, %d messages", len(l.Entries), len(l.Messages))
	}
	checkChain(t, l)
	survivor := l.LastID()

	// OpenAppend cuts the fragment and continues from the last whole entry.
	a, err := OpenAppend(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if a.LastID() != survivor {
		t.Errorf("LastID %s, want %s", a.LastID(), survivor)
	}
	data, _ := os.ReadFile(f.Path())
	if !bytes.Equal(data, whole[:lastStart]) {
		t.Errorf("file not cut back to its last whole line:\n%s", data)
	}
	id, err := a.AppendMessage(&codec.UserMessage{Text: "again", Timestamp: 5})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	l, err = Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 0 || len(l.Entries) != 6 || l.LastID() != id || l.Entries[5].ParentID != survivor {
		t.Errorf("after repair: warnings %v, %d entries", l.Warnings, len(l.Entries))
	}
	checkChain(t, l)
}

func TestInvalidLastLineTerminated(t *testing.T) {
	f, good := filledFile(t)
	bad := append(append([]byte(nil), good...), "{\"type\":\"message\",\"id\":\"x\"\n\n"...)
	os.WriteFile(f.Path(), bad, 0o600)
	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 1 || len(l.Entries) != 6 {
		t.Errorf("warnings %v, %d entries", l.Warnings, len(l.Entries))
	}
	a, err := OpenAppend(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if data, _ := os.ReadFile(f.Path()); !bytes.Equal(data, good) {
		t.Errorf("invalid last line not cut:\n%s", data)
	}
}

func TestLastLineWithoutLF(t *testing.T) {
	f, whole := filledFile(t)
	os.WriteFile(f.Path(), whole[:len(whole)-1], 0o600)
	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 0 || len(l.Entries) != 6 {
		t.Errorf("a complete entry without LF: warnings %v, %d entries", l.Warnings, len(l.Entries))
	}
	a, err := OpenAppend(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AppendThinkingLevel("low"); err != nil {
		t.Fatal(err)
	}
	a.Close()
	l, err = Read(f.Path())
	if err != nil || len(l.Warnings) != 0 || len(l.Entries) != 7 || l.ThinkingLevel != "low" {
		t.Fatalf("%v %v", err, l)
	}
	checkChain(t, l)
}

func TestInvalidLines(t *testing.T) {
	th := testHeader()
	h := string(th.AppendJSON(nil))
	e1 := `{"type":"model_change","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","provider":"p","modelId":"m"}`
	e2 := `{"type":"thinking_level_change","id":"00000002","parentId":"00000001","timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"off"}`
	for _, c := range []struct{ name, data, err string }{
		{"garbage in the middle", h + "\n" + e1 + "\nnot json\n" + e2 + "\n", ":3:"},
		{"bad message in the middle", h + "\n" + `{"type":"message","id":"00000009","parentId":null,"message":{"role":"robot"}}` + "\n" + e2 + "\n", ":2:"},
		{"no id", h + "\n" + `{"type":"custom","parentId":null}` + "\n" + e1 + "\n", ":2:"},
		{"no type", h + "\n" + `{"id":"00000003"}` + "\n" + e1 + "\n", ":2:"},
		{"array entry", h + "\n[]\n" + e1 + "\n", ":2:"},
		{"empty file", "", "no session header"},
		{"blank file", "\n\n", "no session header"},
		{"half header", h[:20], "incomplete header"},
		{"not a header", e1 + "\n", ":1:"},
		{"old version", `{"type":"session","version":2,"id":"x","timestamp":"t","cwd":"/"}` + "\n", "version 2"},
	} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(path, []byte(c.data), 0o600)
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err %v, want one containing %q", c.name, err, c.err)
		}
		if _, err := OpenAppend(path); err == nil {
			t.Errorf("%s: OpenAppend: want error", c.name)
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Error("missing file: want error")
	}
}

func TestUnknownEntriesAndLinks(t *testing.T) {
	th := testHeader()
	h := string(th.AppendJSON(nil))
	lines := []string{
		h,
		`{"type":"model_change","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","provider":"p","modelId":"m"}`,
		``,
		`{"type":"label","id":"00000002","parentId":"00000001","timestamp":"2026-01-01T00:00:00.000Z","label":{"x":[1,2]}}`,
		`{"type":"message","id":"00000003","parentId":"00000002","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"a","timestamp":1}}`,
		// A branch: 00000004 forks from 00000002, so 00000003 is off the chain.
		`{"type":"message","id":"00000004","parentId":"00000002","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"b","timestamp":2}}`,
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\r\n")+"\n"), 0o600)
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 4 || len(l.Chain) != 3 || len(l.Warnings) != 0 {
		t.Fatalf("%d entries, chain %d, warnings %v", len(l.Entries), len(l.Chain), l.Warnings)
	}
	if l.Entries[1].Type != "label" || string(l.Entries[1].Raw) != lines[3] || l.Entries[1].Line != 4 {
		t.Errorf("unknown entry %+v", l.Entries[1])
	}
	if len(l.Messages) != 1 || l.Messages[0].(*codec.UserMessage).Text != "b" {
		t.Errorf("messages %s", encoded(l.Messages))
	}

	// A missing parent and a duplicate id are warnings.
	lines = append(lines[:2],
		`{"type":"custom","id":"00000001","parentId":"00000001","timestamp":"t"}`,
		`{"type":"custom","id":"00000005","parentId":"ffffffff","timestamp":"t"}`)
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	l, err = Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 2 || len(l.Chain) != 1 {
		t.Errorf("warnings %v chain %d", l.Warnings, len(l.Chain))
	}
}

func TestMessageWithMultilineRawStaysOneLine(t *testing.T) {
	f, err := Create(t.TempDir(), testHeader())
	if err != nil {
		t.Fatal(err)
	}
	m := &codec.ToolResultMessage{ToolCallID: "c", ToolName: "t", Content: []codec.Content{&codec.TextContent{Text: "a\nb"}},
		Details: json.RawMessage("{\n  \"x\": [1,\n 2]\n}")}
	if _, err := f.AppendMessage(m); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, _ := os.ReadFile(f.Path())
	if n := bytes.Count(data, []byte{'\n'}); n != 2 {
		t.Fatalf("%d lines:\n%s", n, data)
	}
	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if d := string(l.Messages[0].(*codec.ToolResultMessage).Details); d != `{"x":[1,2]}` {
		t.Errorf("details %s", d)
	}
}

func TestAppendEntry(t *testing.T) {
	f, err := Create(t.TempDir(), testHeader())
	if err != nil {
		t.Fatal(err)
	}
	id, err := f.AppendEntry("compaction", []byte(`{ "summary" : "s", "tokensBefore": 10, "details": {"a" : [1, 2]} }`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.AppendEntry("label", nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ typ, fields string }{{"", "{}"}, {"session", "{}"}, {"x", "[]"}, {"x", "{"}, {"x", `{"id":"y"}`}} {
		if _, err := f.AppendEntry(c.typ, []byte(c.fields)); err == nil {
			t.Errorf("AppendEntry(%q, %s): want error", c.typ, c.fields)
		}
	}
	f.Close()
	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	checkChain(t, l)
	if !strings.HasSuffix(string(l.Entries[0].Raw), `,"summary":"s","tokensBefore":10,"details":{"a":[1,2]}}`) || l.Entries[0].ID != id {
		t.Errorf("entry %s", l.Entries[0].Raw)
	}
}

func TestConcurrentAppends(t *testing.T) {
	f, err := Create(t.TempDir(), testHeader())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if _, err := f.AppendMessage(&codec.UserMessage{Text: strings.Repeat("x", i*1000), Timestamp: int64(i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	f.Close()
	l, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 40 || len(l.Messages) != 40 || len(l.Warnings) != 0 {
		t.Errorf("%d entries %d messages %v", len(l.Entries), len(l.Messages), l.Warnings)
	}
	checkChain(t, l)
}

func TestMemory(t *testing.T) {
	var s Store = NewMemory()
	ids := fill(t, s)
	m := s.(*Memory)
	es := m.Entries()
	if len(es) != 6 {
		t.Fatalf("%d entries", len(es))
	}
	checkChain(t, &Loaded{Entries: es, Chain: make([]*Entry, len(es))})
	if es[5].ID != ids[3] || es[0].Type != TypeModelChange || es[1].Type != TypeThinkingLevelChange {
		t.Errorf("entries %+v", es)
	}
	// The lines are what a file would hold.
	for _, e := range es {
		if _, err := parseEntry(e.Raw, true); err != nil {
			t.Errorf("%s: %v", e.Raw, err)
		}
	}
	if got, want := encoded(m.Messages()), encoded(testMessages()); got != want {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	// The zero Memory works too.
	var z Memory
	if _, err := z.AppendMessage(&codec.UserMessage{Text: "x"}); err != nil || len(z.Entries()) != 1 {
		t.Errorf("zero Memory: %v", err)
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for range 1000 {
		s := NewID()
		u, err := uuid.Parse(s)
		if err != nil || u.Version() != 7 || len(s) != 36 {
			t.Fatalf("NewID %q: %v version %d", s, err, u.Version())
		}
		if seen[s] {
			t.Fatalf("NewID repeated %s", s)
		}
		seen[s] = true
		if s[:13] < prev { // the millisecond timestamp prefix never goes back
			t.Errorf("NewID %s after %s", s, prev)
		}
		prev = s[:13]
	}
}

func TestNowISO(t *testing.T) {
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 12, 2, 14, 2, 42, 971_000_000, time.UTC), "2026-12-02T14:02:42.971Z"},
		{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "2026-01-01T00:00:00.000Z"},
		{time.Date(2026, 1, 1, 1, 0, 0, 5_999_999, time.FixedZone("X", 7200)), "2025-12-31T23:00:00.005Z"},
	} {
		if got := NowISO(c.t); got != c.want {
			t.Errorf("NowISO(%v) = %s, want %s", c.t, got, c.want)
		}
	}
	if !isoTime.MatchString(NowISO(time.Now())) {
		t.Error(NowISO(time.Now()))
	}
}

func TestReferenceSessions(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(referenceStreams, "*.session.jsonl"))
	if len(files) == 0 {
		t.Fatal("no reference streams in " + referenceStreams)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Read(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Warnings) != 0 {
				t.Errorf("warnings %v", l.Warnings)
			}
			if l.Header.Version != 3 || l.Header.ID == "" || l.Header.Cwd == "" {
				t.Errorf("header %+v", l.Header)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if len(l.Entries) != len(lines)-1 {
				t.Errorf("%d entries for %d lines", len(l.Entries), len(lines))
			}
			checkChain(t, l)
			nmsg := 0
			for i, e := range l.Entries {
				if string(e.Raw) != lines[i+1] {
					t.Errorf("entry %d raw differs", i)
				}
				if e.Type == TypeMessage {
					nmsg++
					var want, got any
					json.Unmarshal([]byte(e.Raw), &want)
					json.Unmarshal(e.Message.AppendJSON(nil), &got)
					if !reflect.DeepEqual(got, want.(map[string]any)["message"]) {
						t.Errorf("entry %d: message differs after decoding", i)
					}
				}
			}
			if len(l.Messages) != nmsg || nmsg == 0 {
				t.Errorf("%d messages of %d", len(l.Messages), nmsg)
			}
			if l.Provider == "" || l.ModelID == "" || l.ThinkingLevel == "" {
				t.Errorf("settings %q %q %q", l.Provider, l.ModelID, l.ThinkingLevel)
			}

			// Resume a copy and continue it.
			cp := filepath.Join(t.TempDir(), filepath.Base(file))
			os.WriteFile(cp, data, 0o600)
			a, err := OpenAppend(cp)
			if err != nil {
				t.Fatal(err)
			}
			id, err := a.AppendMessage(&codec.UserMessage{Text: "more", Timestamp: 1})
			if err != nil {
				t.Fatal(err)
			}
			a.Close()
			l2, err := Read(cp)
			if err != nil {
				t.Fatal(err)
			}
			n := len(l2.Entries)
			if n != len(l.Entries)+1 || l2.Entries[n-1].ID != id || l2.Entries[n-1].ParentID != l.LastID() ||
				len(l2.Messages) != nmsg+1 {
				t.Errorf("after resume: %d entries", n)
			}
			checkChain(t, l2)
		})
	}
}

func BenchmarkAppendMessage(b *testing.B) {
	f, err := Create(b.TempDir(), testHeader())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	m := testMessages()[1]
	for b.Loop() {
		if _, err := f.AppendMessage(m); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleNowISO() {
	fmt.Println(NowISO(time.Date(2026, 12, 2, 14, 2, 42, 971_000_000, time.UTC)))
	// Output: 2026-12-02T14:02:42.971Z
}

// filledFile is a closed session file holding the entries of fill, with its contents.
func filledFile(t *testing.T) (*File, []byte) {
	t.Helper()
	f, err := Create(t.TempDir(), testHeader())
	if err != nil {
		t.Fatal(err)
	}
	fill(t, f)
	f.Close()
	whole, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	return f, whole
}
