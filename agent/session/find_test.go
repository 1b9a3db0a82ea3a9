package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
)

func TestMatch(t *testing.T) {
	ids := []string{"0192a1b2-aaaa", "0192a1b2-bbbb", "0193ffff-cccc", "abc"}
	for _, c := range []struct {
		query, want string
		ambiguous   []string
		closest     []string
	}{
		{query: "abc", want: "abc"},
		{query: "0193", want: "0193ffff-cccc"},
		{query: "0192a1b2-b", want: "0192a1b2-bbbb"},
		{query: "0192", ambiguous: []string{"0192a1b2-aaaa", "0192a1b2-bbbb"}},
		{query: "0194ffff", closest: []string{"0193ffff-cccc", "0192a1b2-aaaa", "0192a1b2-bbbb"}},
		{query: "abd", closest: []string{"abc", "0192a1b2-aaaa", "0192a1b2-bbbb"}},
		{query: "", closest: nil},
	} {
		got, err := Match(ids, c.query)
		var amb *AmbiguousError
		var nf *NotFoundError
		switch {
		case c.want != "":
			if err != nil || got != c.want {
				t.Errorf("Match(%q) = %q, %v; want %q", c.query, got, err, c.want)
			}
		case c.ambiguous != nil:
			if !errors.As(err, &amb) || !reflect.DeepEqual(amb.Candidates, c.ambiguous) {
				t.Errorf("Match(%q): %v; want ambiguous %v", c.query, err, c.ambiguous)
			}
			for _, id := range c.ambiguous {
				if !strings.Contains(err.Error(), id) {
					t.Errorf("Match(%q): message %q does not name %s", c.query, err, id)
				}
			}
		default:
			if !errors.As(err, &nf) || !reflect.DeepEqual(nf.Closest, c.closest) {
				t.Errorf("Match(%q): %v; want not found, closest %v", c.query, err, c.closest)
			}
		}
	}
}

// writeSession creates a session file in dir with the given header and entry lines.
func writeSession(t *testing.T, dir string, h codec.Header, lines ...string) string {
	t.Helper()
	data := string(h.AppendJSON(nil)) + "\n"
	for _, l := range lines {
		data += l
	}
	path := filepath.Join(dir, h.ID+".jsonl")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScanListNewest(t *testing.T) {
	dir := t.TempDir()
	done := writeSession(t, dir, codec.Header{Version: 3, ID: "a-done", Timestamp: "2026-01-01T00:00:00.000Z", Cwd: "/p"},
		`{"type":"model_change","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","provider":"script","modelId":"m"}`+"\n",
		`{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"hi","timestamp":1}}`+"\n",
		`{"type":"message","id":"00000003","parentId":"00000002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":2}}`+"\n")
	writeSession(t, dir, codec.Header{Version: 3, ID: "b-cut", Timestamp: "2026-01-02T00:00:00.000Z", Cwd: "/p", ParentSession: "a-done"},
		`{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-01-02T00:00:05.000Z","message":{"role":"user","content":"hi","timestamp":1}}`+"\n",
		`{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-01-02T00:00:06.000Z","message":{"role":"assis`)
	writeSession(t, dir, codec.Header{Version: 3, ID: "c-other", Timestamp: "2026-01-03T00:00:00.000Z", Cwd: "/q"})
	os.WriteFile(filepath.Join(dir, "junk.jsonl"), []byte("not json\n"), 0o600)
	os.WriteFile(filepath.Join(dir, ".hidden.jsonl"), []byte("x"), 0o600)

	info, err := Scan(done)
	if err != nil {
		t.Fatal(err)
	}
	want := Info{ID: "a-done", Path: done, Cwd: "/p", Created: "2026-01-01T00:00:00.000Z",
		LastActivity: "2026-01-01T00:00:03.000Z", Model: "script/m", Messages: 2, Status: StatusCompleted, FirstPrompt: "hi"}
	if info != want {
		t.Errorf("Scan:\n got %+v\nwant %+v", info, want)
	}

	infos, problems, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "junk.jsonl") {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, in := range infos {
		got = append(got, in.ID+" "+in.Status)
	}
	if want := []string{"c-other failed", "b-cut failed", "a-done completed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List order and status: %v, want %v", got, want)
	}
	if infos[1].Skipped != 1 || infos[1].Messages != 1 || infos[1].ParentSession != "a-done" {
		t.Errorf("cut session: %+v", infos[1])
	}

	newest, ok, err := Newest(dir, func(cwd string) bool { return cwd == "/p" })
	if err != nil || !ok || newest.ID != "b-cut" {
		t.Errorf("Newest in /p: %+v %v %v", newest, ok, err)
	}
	if _, ok, _ := Newest(dir, func(cwd string) bool { return cwd == "/none" }); ok {
		t.Error("Newest found a session of another directory")
	}
	if _, ok, err := Newest(filepath.Join(dir, "missing"), func(string) bool { return true }); ok || err != nil {
		t.Errorf("Newest in a missing dir: %v %v", ok, err)
	}

	path, err := Find(dir, "b")
	if err != nil || path != filepath.Join(dir, "b-cut.jsonl") {
		t.Errorf("Find: %s %v", path, err)
	}
}

func TestLock(t *testing.T) {
	f, err := Create(t.TempDir(), testHeader())
	if err != nil {
		t.Fatal(err)
	}
	if locked, err := Locked(f.Path()); err != nil || !locked {
		t.Fatalf("Locked while open: %v %v", locked, err)
	}
	if _, err := OpenAppend(f.Path()); !errors.Is(err, ErrLocked) {
		t.Fatalf("second writer: %v, want ErrLocked", err)
	}
	f.Close()
	if locked, err := Locked(f.Path()); err != nil || locked {
		t.Fatalf("Locked after Close: %v %v", locked, err)
	}
	a, _, err := Resume(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, _, err := Resume(f.Path()); !errors.Is(err, ErrLocked) {
		t.Fatalf("second resume: %v, want ErrLocked", err)
	}
}

func TestCreateFork(t *testing.T) {
	parent, whole := filledFile(t)
	l, err := Read(parent.Path())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := testHeader()
	h.ParentSession = l.Header.ID
	f, err := CreateFork(dir, h, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAppend(f.Path()); !errors.Is(err, ErrLocked) {
		t.Errorf("the fork is not locked while open: %v", err)
	}
	id, err := f.AppendMessage(&codec.UserMessage{Text: "more", Timestamp: 9})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, _ := os.ReadFile(f.Path())
	// The header is the fork's; the parent's entries follow byte for byte.
	first, rest, _ := strings.Cut(string(data), "\n")
	if first != string(h.AppendJSON(nil)) || !strings.Contains(first, `"parentSession":"`+l.Header.ID+`"`) {
		t.Errorf("header %s", first)
	}
	_, parentEntries, _ := strings.Cut(string(whole), "\n")
	if !strings.HasPrefix(rest, parentEntries) {
		t.Errorf("the fork does not start with the parent's entries:\n%s", rest)
	}
	fl, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(fl.Warnings) != 0 || fl.LastID() != id || len(fl.Messages) != len(l.Messages)+1 {
		t.Errorf("fork: warnings %v, %d messages", fl.Warnings, len(fl.Messages))
	}
	checkChain(t, fl)
	if st, _ := os.Stat(f.Path()); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Errorf("leftover files: %v", des)
	}
	if _, err := CreateFork(dir, h, l, nil); !errors.Is(err, os.ErrExist) {
		t.Errorf("forking onto an existing id: %v", err)
	}
}

// An ambiguous prefix among many sessions names ten of them and counts the rest: among
// 20,000 the message was a 760 KB line.
func TestAmbiguousPrefixListsAtMostTenSessions(t *testing.T) {
	var ids []string
	for i := range 20000 {
		ids = append(ids, fmt.Sprintf("0192a1b2-%08d", i))
	}
	_, err := Match(ids, "0192")
	if err == nil {
		t.Fatal("no error for a prefix of every id")
	}
	msg := err.Error()
	if n := strings.Count(msg, "0192a1b2-"); n != 10 {
		t.Errorf("%d ids listed, want 10: %.300s", n, msg)
	}
	if !strings.Contains(msg, "20000 sessions match it") || !strings.HasSuffix(msg, "… and 19990 more") {
		t.Errorf("message %q does not say how many more", msg)
	}
}
