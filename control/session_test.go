package control

import (
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
)

// savedSession writes a session of cwd in dir with one prompt and a model, and returns its id.
func savedSession(t *testing.T, dir, cwd string) string {
	t.Helper()
	h := codec.Header{Version: session.Version, ID: session.NewID(), Timestamp: "2026-01-01T00:00:00.000Z", Cwd: cwd}
	f, err := session.Create(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	f.AppendModelChange("openai", "gpt-x")
	if _, err := f.AppendMessage(&codec.UserMessage{Text: "hello", Timestamp: 1}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return h.ID
}

// A resumed session is read once, at Load: its model is known before the run starts, the
// file stays locked against other runs from then on, and Open hands that same file over.
func TestResumeReadsTheSessionOnce(t *testing.T) {
	dir, reg, cwd := t.TempDir(), shortDir(t), t.TempDir()
	id := savedSession(t, dir, cwd)

	choice, err := Choose(dir, cwd, Which{Resume: id[:len(id)-4]}, "")
	if err != nil || choice.Kind != KindResume || choice.ID != id {
		t.Fatalf("Choose: %+v %v", choice, err)
	}
	src, err := choice.Load(reg)
	if err != nil {
		t.Fatal(err)
	}
	if got := src.Model(); got != "openai/gpt-x" {
		t.Errorf("Model = %q", got)
	}
	if _, err := choice.Load(reg); err == nil || !strings.Contains(err.Error(), "is being written by another run") {
		t.Errorf("a second Load: %v, want the session locked", err)
	}
	s, err := src.Open(OpenOptions{Dir: dir, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	src.Close() // the file is the session's now: this closes nothing
	if s.Header.ID != id || len(s.History) != 1 || len(s.HistoryIDs) != 1 || s.File != choice.Path {
		t.Errorf("opened %+v", s)
	}
	if _, err := s.Store.AppendMessage(&codec.UserMessage{Text: "more", Timestamp: 2}); err != nil {
		t.Errorf("the resumed file was closed: %v", err)
	}
	s.Store.Close()
	if _, err := choice.Load(reg); err != nil {
		t.Errorf("Load once the run ended: %v", err)
	}

	// Another directory's session is not resumed here; a fork of it is.
	if _, err := Choose(dir, t.TempDir(), Which{Resume: id}, ""); err == nil || !strings.Contains(err.Error(), "--fork it here") {
		t.Errorf("resume from another directory: %v", err)
	}
}

func TestForkAndNewSessions(t *testing.T) {
	dir, reg, cwd := t.TempDir(), shortDir(t), t.TempDir()
	parent := savedSession(t, dir, cwd)

	choice, err := Choose(dir, cwd, Which{Fork: parent}, "")
	if err != nil || choice.Kind != KindFork || choice.ID == parent {
		t.Fatalf("Choose: %+v %v", choice, err)
	}
	src, err := choice.Load(reg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := src.Open(OpenOptions{Dir: dir, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Store.Close()
	if s.Header.ID != choice.ID || s.Header.ParentSession != parent || len(s.History) != 1 || s.File == "" {
		t.Errorf("fork %+v", s.Header)
	}

	choice, err = Choose(dir, cwd, Which{}, "fixed-id")
	if err != nil || choice.Kind != KindNew || choice.ID != "fixed-id" {
		t.Fatalf("Choose a new session: %+v %v", choice, err)
	}
	src, err = choice.Load(reg)
	if err != nil || src.Model() != "" {
		t.Fatalf("Load a new session: %v %q", err, src.Model())
	}
	mem, err := src.Open(OpenOptions{Dir: dir, Cwd: cwd, Memory: true, Parent: parent})
	if err != nil || mem.File != "" || mem.History != nil || mem.Header.ParentSession != parent {
		t.Errorf("new session in memory: %+v %v", mem, err)
	}

	if _, err := Choose(t.TempDir(), cwd, Which{Fork: "nope"}, ""); err == nil || !strings.Contains(err.Error(), "there are no saved sessions in") {
		t.Errorf("fork of nothing: %v", err)
	}
	if _, err := Choose(dir, t.TempDir(), Which{Continue: true}, ""); err == nil || !strings.Contains(err.Error(), "to continue") {
		t.Errorf("continue in a directory without sessions: %v", err)
	}
}
