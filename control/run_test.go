package control

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeQueue is an agent's queue.
type fakeQueue struct {
	mu     sync.Mutex
	steer  []string
	follow []string
}

func (q *fakeQueue) Offer(steer bool, text string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if steer {
		q.steer = append(q.steer, text)
	} else {
		q.follow = append(q.follow, text)
	}
	return nil
}

func (q *fakeQueue) Queued() (steering, followUps []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.steer, q.follow
}

// A run's life in the registry: registered with its socket, refusing messages until its
// agent is handed over, queueing them after, stopped through its socket, and gone from the
// registry once it ends, its exit record left for attach.
func TestRunLifecycle(t *testing.T) {
	dir := shortDir(t)
	run, err := Start(dir, "run-1", "/p", "/p/run-1.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := Get(dir, "run-1")
	if !ok || e.Mode != ModeClient || e.Cwd != "/p" || e.Session != "/p/run-1.jsonl" || e.PID != os.Getpid() {
		t.Fatalf("entry %+v (found: %v)", e, ok)
	}

	if _, err := Call(e.Socket, Request{Op: OpSend, Kind: KindSteer, Text: "early"}); err == nil || !strings.Contains(err.Error(), "still starting") {
		t.Errorf("send before the agent is there: %v, want a refusal", err)
	}
	q := &fakeQueue{}
	ctx := run.Manage(context.Background(), q)
	for _, r := range []Request{{Op: OpSend, Kind: KindSteer, Text: "left"}, {Op: OpSend, Kind: KindFollowUp, Text: "then"}} {
		if _, err := Call(e.Socket, r); err != nil {
			t.Fatal(err)
		}
	}
	reply, err := Call(e.Socket, Request{Op: OpStatus})
	if err != nil {
		t.Fatal(err)
	}
	var st RunStatus
	if err := json.Unmarshal(reply.Status, &st); err != nil || st.ID != "run-1" || st.Steering != 1 || st.FollowUps != 1 || st.Stopping {
		t.Errorf("status %s (%v)", reply.Status, err)
	}

	events, err := run.OpenEvents()
	if err != nil || events == nil {
		t.Fatalf("events file: %v %v", events, err)
	}
	if _, err := Call(e.Socket, Request{Op: OpStop}); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done() // stop cancels the managed context, saying why to what it interrupts
	if cause := context.Cause(ctx); cause == nil || cause.Error() != "stopped by `base-context stop`" {
		t.Errorf("the cause of the stop: %v", cause)
	}
	if !run.StoppedByRequest() {
		t.Error("StoppedByRequest is false after stop")
	}
	if err := run.Send(KindSteer, "late"); err == nil {
		t.Error("a stopping run took a message")
	}

	if err := run.End(1, "stopped by request"); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get(dir, "run-1"); ok {
		t.Error("the run is still registered after End")
	}
	x, ok, err := ReadExit(dir, "run-1")
	if err != nil || !ok || x.Code != 1 || x.Error != "stopped by request" {
		t.Errorf("exit record %+v %v %v", x, ok, err)
	}
	if _, err := os.Stat(EventsPath(dir, "run-1")); err != nil {
		t.Errorf("the stream is gone: %v", err)
	}
}

// A run that cannot register is still a run: it works, unregistered, and says why.
func TestRunUnregistered(t *testing.T) {
	file := shortDir(t)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil { // the registry folder is a file
		t.Fatal(err)
	}
	run, err := Start(file, "run-2", "/p", "", nil)
	if err == nil || run == nil || run.Registered() {
		t.Fatalf("Start over a file: %v, %v", run, err)
	}
	if events, err := run.OpenEvents(); events != nil || err != nil {
		t.Errorf("an unregistered run opened a stream: %v %v", events, err)
	}
	run.Close()
	if err := run.End(0, ""); err != nil {
		t.Error(err)
	}
	if err := run.Send(KindSteer, "x"); err == nil {
		t.Error("a run without an agent took a message")
	}
}
