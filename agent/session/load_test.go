package session

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// longSession writes the session of scripts/bench-sessions: a model change and n messages
// of about 26 KB each, alternately user and assistant, whose text is pad (26,000 bytes as
// encoded).
func longSession(tb testing.TB, dir string, n int, pad string) string {
	tb.Helper()
	path := filepath.Join(dir, "long.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"long","timestamp":"2025-12-01T00:00:00.000Z","cwd":"/p1"}`+"\n")
	fmt.Fprintf(w, `{"type":"model_change","id":"00000001","parentId":null,"timestamp":"2025-12-01T00:00:00.000Z","provider":"script","modelId":"default"}`+"\n")
	p := "00000001"
	for m := 2; m < n+2; m++ {
		var msg string
		if m%2 == 0 {
			msg = `{"role":"user","content":[{"type":"text","text":"` + pad + `"}],"timestamp":1}`
		} else {
			msg = `{"role":"assistant","content":[{"type":"text","text":"` + pad + `"}],"api":"script","provider":"script","model":"default","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}`
		}
		fmt.Fprintf(w, `{"type":"message","id":"%08d","parentId":"%s","timestamp":"2025-12-01T00:00:00.000Z","message":%s}`+"\n", m, p, msg)
		p = fmt.Sprintf("%08d", m)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return path
}

// BenchmarkResumeLong loads the 106 MB session of scripts/bench-sessions (4,000 messages)
// for appending, with its context, as --resume does; "escapes" is the same session with
// a line break and quotes in every 21 bytes of text. context-B is the size of the context
// as encoded.
func BenchmarkResumeLong(b *testing.B) {
	for _, c := range []struct{ name, pad string }{
		{"plain", strings.Repeat("x", 26000)},
		{"escapes", strings.Repeat(`line of output \"x\"\n`, 1300)[:26000]},
		{"code", strings.Repeat(`\tif err := load(path); err != nil {\n\t\treturn fmt.Errorf(\"loading %s: %w\", path, err)\n\t}\n`, 400)[:26000]},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := longSession(b, b.TempDir(), 4000, c.pad)
			size := 0
			b.ReportAllocs()
			for b.Loop() {
				f, l, err := Resume(path)
				if err != nil {
					b.Fatal(err)
				}
				ctx := l.Context()
				if len(ctx) != 4000 {
					b.Fatalf("%d messages", len(ctx))
				}
				f.Close()
				if size == 0 {
					b.StopTimer()
					size = len(codec.AppendMessages(nil, ctx))
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(size), "context-B")
		})
	}
}

// generate writes a session of n entries chosen by r: messages of the three roles (some
// with escapes, now and then one of more than 2 MB), settings, compactions (most keeping
// from an entry on the chain, some from one off it or from none), undelivered messages,
// entries of other types, and branches (an entry whose parent is not the one before it).
// It returns the file's contents, with blank and CRLF-ended lines here and there.
func generate(t *testing.T, r *rand.Rand, n int, big bool) []byte {
	t.Helper()
	dir := t.TempDir()
	f, err := Create(dir, codec.Header{ID: "gen", Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	txt := func() string {
		s := strings.Repeat("word ", 1+r.IntN(40))
		if r.IntN(2) == 0 {
			s += "line\n\"quoted\" \u00e9\t"
		}
		return s
	}
	for i := 0; i < n; i++ {
		var id string
		switch k := r.IntN(100); {
		case k < 20:
			id, err = f.AppendMessage(&codec.UserMessage{Text: txt(), Timestamp: int64(i)})
		case k < 40:
			id, err = f.AppendMessage(&codec.AssistantMessage{Content: []codec.Content{&codec.TextContent{Text: txt()},
				&codec.ToolCall{ID: fmt.Sprint("c", i), Name: "bash", Arguments: []byte(`{"command":"ls"}`)}},
				API: "script", Provider: "script", Model: "m", StopReason: codec.StopReasonToolUse, Timestamp: int64(i)})
		case k < 55:
			id, err = f.AppendMessage(&codec.ToolResultMessage{ToolCallID: fmt.Sprint("c", i), ToolName: "bash",
				Content: []codec.Content{&codec.TextContent{Text: txt()}}, Timestamp: int64(i)})
		case k < 58 && big:
			id, err = f.AppendMessage(&codec.UserMessage{Text: strings.Repeat("y", 2<<20+r.IntN(1000)), Timestamp: int64(i)})
		case k < 64:
			err = f.AppendModelChange("p", fmt.Sprint("m", i))
		case k < 68:
			err = f.AppendThinkingLevel([]string{"off", "low", "high"}[r.IntN(3)])
		case k < 78 && len(ids) > 0:
			first := ids[r.IntN(len(ids))] // on the chain or, after a branch, maybe not
			if r.IntN(6) == 0 {
				first = "ffffffff"
			}
			id, err = f.AppendEntry(TypeCompaction, CompactionFields(fmt.Sprint("summary ", i), first, int64(i), nil))
		case k < 85:
			id, err = f.AppendEntry(TypeCustom, UndeliveredFields(KindSteer, fmt.Sprint("steer ", i)))
		case k < 88:
			id, err = f.AppendEntry("label", []byte(`{"label":{"x":[1,"\n"]}}`))
		case k < 93 && len(ids) > 1:
			f.chain.lastID = ids[r.IntN(len(ids)-1)] // the next entry branches off
			continue
		default:
			id, err = f.AppendMessage(&codec.UserMessage{Text: txt(), Timestamp: int64(i)})
		}
		if err != nil {
			t.Fatal(err)
		}
		if id == "" {
			id = f.LastID()
		}
		ids = append(ids, id)
	}
	f.Close()
	data, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	// Blank lines and CRLF, which readers take as they are.
	var out []byte
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if i > 0 && len(line) > 0 && r.IntN(20) == 0 {
			out = append(out, "\n  \n"...)
		}
		if i > 0 && r.IntN(20) == 0 && bytes.HasSuffix(line, []byte("\n")) {
			line = append(bytes.TrimSuffix(line, []byte("\n")), "\r\n"...)
		}
		out = append(out, line...)
	}
	return out
}

// ends are the ways a file can end, as a crash or an editor leaves it: data is whole, with
// its LF; each returns the file and what it holds once Resume has repaired it.
var ends = []struct {
	name string
	end  func(data []byte) (file, repaired []byte)
}{
	{"whole", func(d []byte) ([]byte, []byte) { return d, d }},
	{"last line cut", func(d []byte) ([]byte, []byte) {
		start := bytes.LastIndexByte(d[:len(d)-1], '\n') + 1
		return d[:start+(len(d)-start)/2], d[:start]
	}},
	{"no LF", func(d []byte) ([]byte, []byte) { return d[:len(d)-1], d }},
	{"invalid last line", func(d []byte) ([]byte, []byte) {
		return append(bytes.Clone(d), `{"type":"message","id":"0000000x"`+"\n"...), d
	}},
	{"invalid message last", func(d []byte) ([]byte, []byte) {
		return append(bytes.Clone(d), `{"type":"message","id":"0000000x","parentId":null,"message":{"role":"robot"}}`+"\n\n"...), d
	}},
	{"invalid message last, no LF", func(d []byte) ([]byte, []byte) {
		return append(bytes.Clone(d), `{"type":"message","id":"0000000x","parentId":null,"message":{"role":"robot"}}`...), d
	}},
	{"blank lines after", func(d []byte) ([]byte, []byte) {
		d = append(bytes.Clone(d), "\n \n"...)
		return d, d
	}},
}

// TestResumeAgreesWithRead: what Resume keeps of a session gives the context, its entry
// ids, the settings, the warnings and the undelivered messages that Read gives, on
// generated sessions with compactions and branches, however the file ends; the file is
// repaired as it was, and appends go on from its last entry.
func TestResumeAgreesWithRead(t *testing.T) {
	var compacted, ignored, branched, undelivered int // what the sessions held
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		data := generate(t, r, 5+r.IntN(120), seed%10 == 3)
		for _, end := range ends {
			file, repaired := end.end(data)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, file, 0o600); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("seed %d, %s", seed, end.name)
			want, err := Read(path)
			if err != nil {
				t.Fatalf("%s: Read: %v", name, err)
			}
			f, got, err := Resume(path)
			if err != nil {
				t.Fatalf("%s: Resume: %v", name, err)
			}
			sameLoaded(t, name, got, want)
			summary, _ := want.start()
			switch {
			case summary != nil:
				compacted++
			case slices.ContainsFunc(want.Chain, func(e *Entry) bool { return e.Type == TypeCompaction }):
				ignored++ // its first kept entry is not on the chain
			}
			if len(want.Chain) < len(want.Entries) {
				branched++
			}
			if len(want.Undelivered()) > 0 {
				undelivered++
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, repaired) {
				t.Errorf("%s: repaired file of %d bytes, want %d", name, len(b), len(repaired))
			}
			id, err := f.AppendMessage(&codec.UserMessage{Text: "more", Timestamp: 1})
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			after, err := Read(path)
			if err != nil {
				t.Fatalf("%s: after the append: %v", name, err)
			}
			if n := len(after.Entries); after.LastID() != id || after.Entries[n-1].ParentID != want.LastID() ||
				len(after.Warnings) > len(want.Warnings) {
				t.Errorf("%s: after the append: last %s parent %s, warnings %v", name, after.LastID(), after.Entries[n-1].ParentID, after.Warnings)
			}
		}
	}
	if compacted == 0 || ignored == 0 || branched == 0 || undelivered == 0 {
		t.Errorf("sessions not varied enough: %d compacted, %d with a compaction ignored, %d branched, %d with undelivered messages",
			compacted, ignored, branched, undelivered)
	}
}

// sameLoaded compares what Resume kept (got) with what Read read (want).
func sameLoaded(t *testing.T, name string, got, want *Loaded) {
	t.Helper()
	if !reflect.DeepEqual(got.Header, want.Header) || !reflect.DeepEqual(got.Warnings, want.Warnings) ||
		got.Provider != want.Provider || got.ModelID != want.ModelID || got.ThinkingLevel != want.ThinkingLevel ||
		got.LastID() != want.LastID() {
		t.Fatalf("%s: got %+v %v %s/%s %s last %s\nwant %+v %v %s/%s %s last %s", name,
			got.Header, got.Warnings, got.Provider, got.ModelID, got.ThinkingLevel, got.LastID(),
			want.Header, want.Warnings, want.Provider, want.ModelID, want.ThinkingLevel, want.LastID())
	}
	if g, w := codec.AppendMessages(nil, got.Context()), codec.AppendMessages(nil, want.Context()); !bytes.Equal(g, w) {
		t.Fatalf("%s: context\n%.2000s\nwant\n%.2000s", name, g, w)
	}
	if g, w := got.ContextEntryIDs(), want.ContextEntryIDs(); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: context ids %v, want %v", name, g, w)
	}
	if g, w := got.Undelivered(), want.Undelivered(); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: undelivered %v, want %v", name, g, w)
	}
	if len(got.Entries) != len(want.Entries) || len(got.Chain) != len(want.Chain) {
		t.Fatalf("%s: %d entries, chain of %d; want %d, %d", name, len(got.Entries), len(got.Chain), len(want.Entries), len(want.Chain))
	}
	for i, e := range got.Entries {
		w := want.Entries[i]
		if e.Type != w.Type || e.ID != w.ID || e.ParentID != w.ParentID || e.Timestamp != w.Timestamp || e.Line != w.Line {
			t.Fatalf("%s: entry %d %+v, want %+v", name, i, e, w)
		}
	}
	for i, e := range got.Chain {
		if e.ID != want.Chain[i].ID {
			t.Fatalf("%s: chain entry %d is %s, want %s", name, i, e.ID, want.Chain[i].ID)
		}
	}
}

// TestResumeErrorsAsRead: an invalid line that is not the last is the error Read reports,
// naming the first invalid line, whether its JSON or only its message is wrong and whether
// or not the context would hold it; the file is left as it is.
func TestResumeErrorsAsRead(t *testing.T) {
	th := testHeader()
	h := string(th.AppendJSON(nil))
	entry := func(id, parent, rest string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-01-01T00:00:00.000Z"` + rest + `}`
	}
	msg := func(id, parent string) string {
		return entry(id, parent, `,"message":{"role":"user","content":"hi","timestamp":1}`)
	}
	bad := func(id, parent string) string { return entry(id, parent, `,"message":{"role":"robot"}`) }
	compaction := `{"type":"compaction","id":"0000000c","parentId":"00000003","timestamp":"2026-01-01T00:00:00.000Z","summary":"s","firstKeptEntryId":"00000003","tokensBefore":1}`
	for _, c := range []struct {
		name  string
		lines []string
		line  int
	}{
		{"invalid JSON", []string{msg("00000001", ""), "not json", msg("00000002", "00000001")}, 3},
		{"invalid message on the chain", []string{msg("00000001", ""), bad("00000002", "00000001"), msg("00000003", "00000002")}, 3},
		{"invalid message off the chain", []string{msg("00000001", ""), bad("00000002", ""), msg("00000003", "00000001")}, 3},
		{"invalid message before invalid JSON", []string{msg("00000001", ""), bad("00000002", "00000001"), "[1]", msg("00000003", "00000001")}, 3},
		{"invalid JSON before an invalid message", []string{msg("00000001", ""), "{", bad("00000002", "00000001"), msg("00000003", "00000001")}, 3},
		{"invalid message before the compaction", []string{msg("00000001", ""), bad("00000002", "00000001"), msg("00000003", "00000001"),
			compaction, msg("00000004", "0000000c")}, 3},
		{"invalid message, then an invalid last line", []string{msg("00000001", ""), bad("00000002", "00000001"), `{"type":`}, 3},
		{"entry without an id", []string{msg("00000001", ""), `{"type":"custom","parentId":null}`, msg("00000003", "00000001")}, 3},
	} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		data := []byte(h + "\n" + strings.Join(c.lines, "\n") + "\n")
		os.WriteFile(path, data, 0o600)
		_, rerr := Read(path)
		_, _, err := Resume(path)
		if rerr == nil || err == nil || err.Error() != rerr.Error() || !strings.Contains(err.Error(), fmt.Sprintf("s.jsonl:%d:", c.line)) {
			t.Errorf("%s: Resume: %v\nRead: %v\nwant line %d", c.name, err, rerr, c.line)
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, data) {
			t.Errorf("%s: file changed", c.name)
		}
	}
}

// TestResumeKeepsOnlyTheContext: Resume keeps about the size of the context it builds, not
// of the file: with a compaction that keeps the last tenth of a 6 MB session, and with the
// whole session as context; with messages whose text has escapes, and without. Without
// escapes that is also all it allocates; with them, checking the messages that the context
// does not keep unescapes their text too, for nothing.
func TestResumeKeepsOnlyTheContext(t *testing.T) {
	for _, c := range []struct {
		name      string
		compacted bool
		text      string
	}{
		{"compacted", true, strings.Repeat("x", 20000)},
		{"compacted, escapes", true, strings.Repeat("line of output \"x\"\n", 1000)},
		{"whole", false, strings.Repeat("x", 20000)},
		{"whole, escapes", false, strings.Repeat("line of output \"x\"\n", 1000)},
	} {
		dir := t.TempDir()
		f, err := Create(dir, codec.Header{ID: "m", Cwd: "/"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range 300 {
			id, err := f.AppendMessage(&codec.UserMessage{Text: c.text, Timestamp: int64(i)})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if c.compacted {
			f.AppendEntry(TypeCompaction, CompactionFields("summary", ids[270], 1, nil))
		}
		f.Close()
		path := filepath.Join(dir, "m.jsonl")

		var before, after, kept runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, l, err := Resume(path)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		runtime.GC()
		runtime.ReadMemStats(&kept)
		ctx := l.Context()
		size := len(codec.AppendMessages(nil, ctx))
		if want := 30; c.compacted && len(ctx) != want+1 {
			t.Fatalf("%s: context of %d messages, want the summary and %d", c.name, len(ctx), want)
		}
		limit := uint64(size)*3/2 + 512<<10
		if n := kept.HeapAlloc - before.HeapAlloc; n > limit {
			t.Errorf("%s: Resume kept %d bytes for a context of %d (limit %d)", c.name, n, size, limit)
		}
		if n := after.TotalAlloc - before.TotalAlloc; !strings.Contains(c.name, "escapes") && n > limit {
			t.Errorf("%s: Resume allocated %d bytes for a context of %d (limit %d)", c.name, n, size, limit)
		}
		runtime.KeepAlive(l)
	}
}
