package control

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
)

// rawExchange writes line to the run's socket as a client of its own would, and returns the
// reply line ("" when the run closed the connection without one).
func rawExchange(t *testing.T, socket, line string) string {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { c.Write([]byte(line)) }() // the run may stop reading before the end of a long line
	reply, _ := bufio.NewReader(c).ReadString('\n')
	return reply
}

// A request that parsers read in different ways is refused, not guessed at: the last "op"
// of {"op":"status","op":"stop"} once stopped the run.
func TestRequestsWithDuplicateKeysAreRefused(t *testing.T) {
	dir := shortDir(t)
	srv, run, e := serve(t, dir, "dups")
	defer srv.Close()
	for line, want := range map[string]string{
		`{"op":"status","op":"stop"}` + "\n":                               `duplicate key \"op\"`,
		`{"op":"stop","op":"status"}` + "\n":                               `duplicate key \"op\"`,
		`{"op":"send","kind":"steer","text":"a","text":"b"}` + "\n":        `duplicate key \"text\"`,
		`{"op":"send","kind":"followUp","kind":"steer","text":"a"}` + "\n": `duplicate key \"kind\"`,
		`{"op":"send","kind":"steer","text":"\ud800"}` + "\n":              `text: lone surrogate \\ud800`,
		`{"op":"status"` + "\n":                                            `invalid request: unexpected end of JSON input`,
	} {
		reply := rawExchange(t, e.Socket, line)
		if !strings.HasPrefix(reply, `{"ok":false,"error":"invalid request: `) || !strings.Contains(reply, want) {
			t.Errorf("%s: reply %q, want a refusal naming %s", strings.TrimSpace(line), reply, want)
		}
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.stopped || len(run.sent) != 0 {
		t.Errorf("refused requests were carried out: stopped %v, sent %q", run.stopped, run.sent)
	}
}

// A request line may be 1 MB long, newline included, and no longer: the run does not hold
// whatever a caller sends.
func TestRequestLineLimit(t *testing.T) {
	dir := shortDir(t)
	srv, run, e := serve(t, dir, "long")
	defer srv.Close()
	sendLine := func(textLen int) string {
		data, _ := json.Marshal(Request{Op: OpSend, Kind: KindSteer, Text: strings.Repeat("x", textLen)})
		return string(data) + "\n"
	}
	overhead := len(sendLine(1)) - 1

	if reply := rawExchange(t, e.Socket, sendLine(MaxRequest-overhead)); reply != "{\"ok\":true}\n" {
		t.Fatalf("a request of exactly %d bytes: %q", MaxRequest, reply)
	}
	if reply := rawExchange(t, e.Socket, sendLine(MaxRequest-overhead+1)); reply != "{\"ok\":false,\"error\":\"request line longer than 1048576 bytes\"}\n" {
		t.Fatalf("a request of %d bytes: %q", MaxRequest+1, reply)
	}
	// Without a newline at all, too.
	if reply := rawExchange(t, e.Socket, strings.Repeat(" ", 3*MaxRequest)); !strings.Contains(reply, "longer than 1048576 bytes") {
		t.Fatalf("3 MB without a newline: %q", reply)
	}
	run.mu.Lock()
	if len(run.sent) != 1 || len(run.sent[0]) != len("steer:")+MaxRequest-overhead {
		t.Errorf("sent %d messages", len(run.sent))
	}
	run.mu.Unlock()

	// The client says so before sending.
	_, err := Call(e.Socket, Request{Op: OpSend, Kind: KindSteer, Text: strings.Repeat("x", MaxRequest)})
	if err == nil || errors.Is(err, ErrRemote) || !strings.Contains(err.Error(), "the request is too long") {
		t.Errorf("Call of a too long request: %v", err)
	}
}
