package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
)

func text(t string) *codec.UserMessage { return &codec.UserMessage{Text: t} }

// describe lists a context as role:text (summary text for a compaction summary).
func describe(ms []codec.Message) string {
	var out []string
	for _, m := range ms {
		switch m := m.(type) {
		case *codec.UserMessage:
			out = append(out, "user:"+m.Text)
		case *codec.CompactionSummaryMessage:
			out = append(out, "summary:"+m.Summary)
		default:
			out = append(out, m.Role())
		}
	}
	return strings.Join(out, " ")
}

func TestContextAppliesTheLatestCompaction(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(dir, codec.Header{ID: "c1", Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, s := range []string{"a", "b", "c"} {
		ids[s], _ = f.AppendMessage(text(s))
	}
	// The first compaction keeps from b; then d; the second keeps from c.
	f.AppendEntry(TypeCompaction, CompactionFields("S1", ids["b"], 100, nil))
	ids["d"], _ = f.AppendMessage(text("d"))
	f.AppendEntry(TypeCompaction, CompactionFields("S2", ids["c"], 200, []byte(`{"readFiles":[],"modifiedFiles":[]}`)))
	ids["e"], _ = f.AppendMessage(text("e"))
	f.Close()

	l, err := Read(filepath.Join(dir, "c1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describe(l.Context()), "summary:S2 user:c user:d user:e"; got != want {
		t.Fatalf("context %q, want %q", got, want)
	}
	gotIDs := strings.Join(l.ContextEntryIDs(), ",")
	if want := "," + ids["c"] + "," + ids["d"] + "," + ids["e"]; gotIDs != want {
		t.Fatalf("ids %s, want %s", gotIDs, want)
	}
	s := l.Context()[0].(*codec.CompactionSummaryMessage)
	if s.TokensBefore != 200 || s.Timestamp == 0 {
		t.Fatalf("summary %+v", s)
	}
	// Messages holds the whole chain still.
	if got := describe(l.Messages); got != "user:a user:b user:c user:d user:e" {
		t.Fatalf("messages %q", got)
	}
}

func TestContextWithoutACompactionOrWithABrokenOne(t *testing.T) {
	dir := t.TempDir()
	f, _ := Create(dir, codec.Header{ID: "plain", Cwd: "/"})
	f.AppendMessage(text("a"))
	f.AppendMessage(text("b"))
	f.Close()
	l, err := Read(filepath.Join(dir, "plain.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(l.Context()); got != "user:a user:b" {
		t.Fatalf("context %q", got)
	}

	// A compaction whose first kept entry is not on the chain is ignored: the messages are
	// not lost.
	f, _ = Create(dir, codec.Header{ID: "broken", Cwd: "/"})
	f.AppendMessage(text("a"))
	f.AppendEntry(TypeCompaction, CompactionFields("S", "ffffffff", 1, nil))
	f.AppendMessage(text("b"))
	f.Close()
	l, err = Read(filepath.Join(dir, "broken.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(l.Context()); got != "user:a user:b" {
		t.Fatalf("context %q", got)
	}
}
