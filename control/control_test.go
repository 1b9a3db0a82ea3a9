package control

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeRun struct {
	mu      sync.Mutex
	stopped bool
	sent    []string
}

func (f *fakeRun) Stop() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	return nil
}

func (f *fakeRun) Send(kind, text string) error {
	if text == "refuse" {
		return errors.New("not now")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, kind+":"+text)
	return nil
}

func (f *fakeRun) Status() any { return map[string]int{"queued": len(f.sent)} }

// shortDir is a temporary folder whose socket paths fit a unix socket address.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "run")
}

func serve(t *testing.T, dir, id string) (*Server, *fakeRun, Entry) {
	t.Helper()
	if err := MakeDir(dir); err != nil {
		t.Fatal(err)
	}
	sock, err := SocketPath(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	run := &fakeRun{}
	srv, err := Listen(sock, run)
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{ID: id, PID: os.Getpid(), Start: "2026-01-01T00:00:00.000Z", Socket: sock, Cwd: "/p", Mode: ModeClient}
	if err := Register(dir, e); err != nil {
		t.Fatal(err)
	}
	return srv, run, e
}

func TestRegistryAndStaleEntries(t *testing.T) {
	dir := shortDir(t)
	srv, _, e := serve(t, dir, "run-1")
	defer srv.Close()

	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "run-1"): 0o600, e.Socket: 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}

	// A dead process's entry (no such pid) and a live pid without a listener (a reused pid)
	// are both stale.
	Register(dir, Entry{ID: "dead-pid", PID: 1 << 30, Socket: filepath.Join(dir, "dead-pid.sock"), Mode: ModeClient})
	os.WriteFile(filepath.Join(dir, "no-listener.sock"), nil, 0o600)
	Register(dir, Entry{ID: "no-listener", PID: os.Getpid(), Socket: filepath.Join(dir, "no-listener.sock"), Mode: ModeClient})
	// Files that are not entries are left alone.
	os.WriteFile(filepath.Join(dir, "run-1.events.jsonl"), []byte("{}\n"), 0o600)

	got, err := Running(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != e {
		t.Fatalf("Running: %+v, want only %+v", got, e)
	}
	for _, gone := range []string{"dead-pid", "no-listener", "no-listener.sock"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s not cleaned up: %v", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "run-1.events.jsonl")); err != nil {
		t.Errorf("events file removed: %v", err)
	}
	if _, ok := Get(dir, "run-1"); !ok {
		t.Error("Get of a live run")
	}

	srv.Close()
	if _, ok := Get(dir, "run-1"); ok {
		t.Error("Get of a closed run")
	}
	if _, err := os.Stat(filepath.Join(dir, "run-1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("entry of the closed run not cleaned up: %v", err)
	}
	if ids, _ := Recorded(dir); len(ids) != 1 || ids[0] != "run-1" {
		t.Errorf("Recorded: %v", ids)
	}
	if got, err := Running(filepath.Join(dir, "missing")); got != nil || err != nil {
		t.Errorf("Running of a missing folder: %v %v", got, err)
	}
}

func TestRequests(t *testing.T) {
	dir := shortDir(t)
	srv, run, e := serve(t, dir, "run-2")
	defer srv.Close()

	if _, err := Call(e.Socket, Request{Op: OpSend, Kind: KindSteer, Text: "left"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Call(e.Socket, Request{Op: OpSend, Kind: KindFollowUp, Text: "then"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Request{{Op: OpSend, Kind: "later", Text: "x"}, {Op: OpSend, Kind: KindSteer, Text: "refuse"}, {Op: "dance"}} {
		if _, err := Call(e.Socket, bad); !errors.Is(err, ErrRemote) {
			t.Errorf("%+v: %v, want a refusal", bad, err)
		}
	}
	reply, err := Call(e.Socket, Request{Op: OpStatus})
	if err != nil || string(reply.Status) != `{"queued":2}` {
		t.Errorf("status: %s %v", reply.Status, err)
	}
	if strings.Join(run.sent, ",") != "steer:left,followUp:then" {
		t.Errorf("sent %v", run.sent)
	}

	// Stop returns once the run has ended (the server closed), not before.
	done := make(chan error)
	go func() { done <- Stop(e.Socket) }()
	for {
		run.mu.Lock()
		stopped := run.stopped
		run.mu.Unlock()
		if stopped {
			break
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Stop returned before the run ended: %v", err)
	default:
	}
	srv.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestSocketPathTooLong(t *testing.T) {
	tmp, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp) // the private folder goes there, not into the real one
	id := "019bd1c5-47a4-7a38-9a2b-1d2e3f4a5b6c"

	// A little too long: a short name in the same folder.
	dir := filepath.Join(tmp, strings.Repeat("d", 100-len(tmp)-len(id)-8), "run")
	p, err := SocketPath(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) > maxSocketPath || filepath.Dir(p) != dir {
		t.Errorf("socket path %s (%d bytes)", p, len(p))
	}
	// Far too long: the private folder of $TMPDIR.
	dir = filepath.Join(tmp, strings.Repeat("d", 90), "run")
	p, err = SocketPath(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) > maxSocketPath || filepath.Dir(p) != filepath.Join(tmp, fmt.Sprintf("base-context-%d", os.Getuid())) {
		t.Errorf("socket path %s", p)
	}
	st, err := os.Stat(filepath.Dir(p))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket folder: %v %v", st, err)
	}
	p2, _ := SocketPath(dir, id[:len(id)-1]+"d")
	if p2 == p {
		t.Error("two ids share a socket path")
	}
	// The sockets work there.
	srv, err := Listen(p, &fakeRun{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := Call(p, Request{Op: OpStatus}); err != nil {
		t.Error(err)
	}
}

func TestExitRecord(t *testing.T) {
	dir := t.TempDir()
	if _, ok, err := ReadExit(dir, "x"); ok || err != nil {
		t.Fatalf("no record: %v %v", ok, err)
	}
	if err := WriteExit(dir, "x", Exit{Code: 1, Error: "stopped by request"}); err != nil {
		t.Fatal(err)
	}
	x, ok, err := ReadExit(dir, "x")
	if !ok || err != nil || x != (Exit{Code: 1, Error: "stopped by request"}) {
		t.Fatalf("%+v %v %v", x, ok, err)
	}
	if st, _ := os.Stat(ExitPath(dir, "x")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
}
