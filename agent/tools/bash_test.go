package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basecontext/base-context/codec"
)

// bashRun runs a command and records the updates it streams.
func bashRun(t *testing.T, ctx context.Context, opts Options, args string) (Result, []codec.ToolResult, error) {
	t.Helper()
	var mu sync.Mutex
	var updates []codec.ToolResult
	res, err := getTool(t, opts, "bash").Execute(ctx, json.RawMessage(args), func(u codec.ToolResult) {
		mu.Lock()
		updates = append(updates, u)
		mu.Unlock()
	})
	return res, updates, err
}

func bashArgs(command string, timeout float64) string {
	b, _ := json.Marshal(map[string]any{"command": command})
	if timeout > 0 {
		b, _ = json.Marshal(map[string]any{"command": command, "timeout": timeout})
	}
	return string(b)
}

// processGone reports whether pid has exited (a zombie waiting to be reaped counts as gone).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // generous: a busy machine is slow, not wrong
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// firstPid reads the pid the command echoed on its first output line.
func firstPid(t *testing.T, text string) int {
	t.Helper()
	line, _, _ := strings.Cut(text, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("no pid in output %q", text)
	}
	return pid
}

func TestBashSuccess(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "hello.txt", "hello from the fixture file\n")
	res, updates, err := bashRun(t, context.Background(), opts, `{"command":"echo hi && wc -c < hello.txt && pwd"}`)
	if err != nil || res.IsError {
		t.Fatalf("err %v, result %q", err, resultText(res))
	}
	if got, want := resultText(res), "hi\n28\n"+opts.Cwd+"\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if res.Details != nil {
		t.Errorf("details %s", res.Details)
	}
	if len(updates) < 2 {
		t.Fatalf("%d updates", len(updates))
	}
	if first := updates[0]; first.Content == nil || len(first.Content) != 0 || first.Details != nil {
		t.Errorf("first update %#v", first)
	}
	last := updates[len(updates)-1]
	if len(last.Content) != 1 || last.Content[0].(*codec.TextContent).Text != resultText(res) || string(last.Details) != "{}" {
		t.Errorf("last update %#v", last)
	}
}

func TestBashMergesStreamsAndNullStdin(t *testing.T) {
	opts := testOptions(t)
	res := mustCall(t, opts, "bash", `{"command":"echo out1; echo err1 >&2; echo out2; cat; echo done"}`)
	if got := resultText(res); got != "out1\nerr1\nout2\ndone\n" {
		t.Errorf("output %q", got)
	}
	if got := resultText(mustCall(t, opts, "bash", `{"command":"true"}`)); got != "(no output)" {
		t.Errorf("no output: %q", got)
	}
}

func TestBashNonzeroExit(t *testing.T) {
	opts := testOptions(t)
	res, err := call(t, opts, "bash", `{"command":"echo oops; exit 3"}`)
	if err != nil || !res.IsError {
		t.Fatalf("err %v, isError %v", err, res.IsError)
	}
	if got := resultText(res); got != "oops\n\nCommand exited with code 3" {
		t.Errorf("text %q", got)
	}
	res, _ = call(t, opts, "bash", `{"command":"exit 7"}`)
	if got := resultText(res); !res.IsError || got != "Command exited with code 7" {
		t.Errorf("text %q", got)
	}
	res, _ = call(t, opts, "bash", `{"command":"printf partial; false"}`)
	if got := resultText(res); got != "partial\n\nCommand exited with code 1" {
		t.Errorf("text %q", got)
	}
}

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	opts := testOptions(t)
	res, _, err := bashRun(t, context.Background(), opts, bashArgs("sleep 30 & echo $!; sleep 30", 1))
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	if !res.IsError || !strings.HasSuffix(text, "\n\nCommand timed out after 1 seconds") {
		t.Fatalf("result %v %q", res.IsError, text)
	}
	waitGone(t, firstPid(t, text))
}

func TestBashCancel(t *testing.T) {
	opts := testOptions(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the command is running (its first output), not after a fixed time.
	res, err := getTool(t, opts, "bash").Execute(ctx, json.RawMessage(`{"command":"sleep 30 & echo $!; sleep 30"}`),
		func(u codec.ToolResult) {
			if len(u.Content) > 0 && strings.Contains(u.Content[0].(*codec.TextContent).Text, "\n") {
				cancel()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	if !res.IsError || !strings.HasSuffix(text, "\n\nCommand aborted") {
		t.Fatalf("result %v %q", res.IsError, text)
	}
	waitGone(t, firstPid(t, text))

	// Cancelled before it starts.
	_, _, err = bashRun(t, ctx, opts, `{"command":"echo never"}`)
	if err == nil || err.Error() != "Command aborted" {
		t.Errorf("err %v", err)
	}
}

func TestBashStreamsUpdates(t *testing.T) {
	opts := testOptions(t)
	res, updates, err := bashRun(t, context.Background(), opts, `{"command":"echo one; sleep 0.4; echo two"}`)
	if err != nil || res.IsError {
		t.Fatal(err, resultText(res))
	}
	var texts []string
	for i, u := range updates {
		if i == 0 {
			if len(u.Content) != 0 {
				t.Errorf("first update %#v", u)
			}
			continue
		}
		if len(u.Content) != 1 || string(u.Details) != "{}" {
			t.Fatalf("update %d: %#v", i, u)
		}
		texts = append(texts, u.Content[0].(*codec.TextContent).Text)
	}
	if len(texts) < 2 || texts[0] != "one\n" || texts[len(texts)-1] != "one\ntwo\n" {
		t.Errorf("update texts %q", texts)
	}
	if len(updates) > 6 {
		t.Errorf("%d updates for two writes: not throttled to changes", len(updates))
	}
}

func TestBashThrottlesUpdates(t *testing.T) {
	opts := testOptions(t)
	start := time.Now()
	_, updates, _ := bashRun(t, context.Background(), opts, `{"command":"for i in $(seq 1 40); do echo $i; sleep 0.01; done"}`)
	elapsed := time.Since(start)
	if max := int(elapsed/updateInterval) + 3; len(updates) > max {
		t.Errorf("%d updates in %v", len(updates), elapsed)
	}
	last := updates[len(updates)-1]
	if !strings.HasSuffix(last.Content[0].(*codec.TextContent).Text, "\n39\n40\n") {
		t.Errorf("last update %q", last.Content[0].(*codec.TextContent).Text)
	}
}

func TestBashTruncatesTailByLines(t *testing.T) {
	opts := testOptions(t)
	res, updates, err := bashRun(t, context.Background(), opts, `{"command":"seq 1 5000"}`)
	if err != nil || res.IsError {
		t.Fatal(err)
	}
	var full strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&full, "%d\n", i)
	}
	d := checkFullOutput(t, opts, res, full.String())
	text := resultText(res)
	if !strings.HasPrefix(text, "3001\n3002\n") || !strings.Contains(text, "\n5000\n\n[Output truncated: showing lines 3001-5000 of 5000. Full output: ") {
		t.Errorf("text %q...%q", text[:20], tail(text, 150))
	}
	if tr := d.Truncation; tr.TotalLines != 5000 || tr.OutputLines != 2000 || tr.TotalBytes != int64(full.Len()) {
		t.Errorf("truncation %+v", *tr)
	}
	last := updates[len(updates)-1].Content[0].(*codec.TextContent).Text
	if !strings.HasPrefix(last, "3001\n") || !strings.HasSuffix(last, "\n5000\n") {
		t.Errorf("last update not tail-truncated: %q...", last[:20])
	}
}

func TestBashTruncatesTailByBytesAndFails(t *testing.T) {
	opts := testOptions(t)
	// 3000 lines of 100 bytes: larger than the byte limit, spilled to the file while running.
	res, err := call(t, opts, "bash", `{"command":"for i in $(seq 1 3000); do printf '%099d\\n' $i; done; exit 4"}`)
	if err != nil || !res.IsError {
		t.Fatal(err, res.IsError)
	}
	var full strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&full, "%099d\n", i)
	}
	d := checkFullOutput(t, opts, res, full.String())
	text := resultText(res)
	wantStart := fmt.Sprintf("%099d\n", 3000-512+1)
	if !strings.HasPrefix(text, wantStart) || !strings.HasSuffix(text, "(50KB limit). Full output: "+d.FullOutputPath+"]\n\nCommand exited with code 4") {
		t.Errorf("text %q...%q", text[:20], tail(text, 150))
	}
	if tr := d.Truncation; tr.TotalLines != 3000 || tr.TotalBytes != 300000 || tr.OutputLines != 512 || tr.OutputBytes != 51200 {
		t.Errorf("truncation %+v", *tr)
	}
}

func TestBashHugeSingleLine(t *testing.T) {
	opts := testOptions(t)
	res := mustCall(t, opts, "bash", `{"command":"head -c 300000 /dev/zero | tr '\\0' y"}`)
	d := checkFullOutput(t, opts, res, strings.Repeat("y", 300000))
	text := resultText(res)
	if !strings.HasPrefix(text, strings.Repeat("y", MaxBytes)+"\n\n[Output truncated: line 1 is longer than 50KB; showing its last 51200 bytes") {
		t.Errorf("text ...%q", tail(text, 200))
	}
	if d.Truncation.OutputBytes != MaxBytes || d.Truncation.TotalLines != 1 {
		t.Errorf("truncation %+v", *d.Truncation)
	}
}

// TestBashBackgroundProcessDoesNotHang: a background process that keeps the output pipe open
// would hold the call for as long as it lives (300 s here) if the tool waited for the pipe to
// close; the call returns once the shell has exited and the drain grace has passed, and the
// process dies with the tool's process group (killed by the tool, not by this test).
func TestBashBackgroundProcessDoesNotHang(t *testing.T) {
	opts := testOptions(t)
	res := mustCall(t, opts, "bash", `{"command":"sleep 300 & echo $!"}`)
	waitGone(t, firstPid(t, resultText(res)))
}

func TestBashBadCwd(t *testing.T) {
	opts := testOptions(t)
	opts.Cwd += "/missing"
	if got := mustFail(t, opts, "bash", `{"command":"true"}`); !strings.Contains(got, "does not exist") {
		t.Errorf("err %s", got)
	}
}

func TestCollectorTrimBoundary(t *testing.T) {
	opts := testOptions(t)
	c := &collector{opts: opts, emitted: -1}
	var full strings.Builder
	for i := 1; i <= 1025; i++ { // the last write trims buf to exactly the last 512 lines
		line := fmt.Sprintf("%099d\n", i)
		full.WriteString(line)
		c.write([]byte(line))
	}
	text, d := c.finish()
	if d == nil || d.FullOutputPath == "" {
		t.Fatal("not truncated")
	}
	want := fmt.Sprintf("%099d\n", 514)
	if !strings.HasPrefix(text, want) || !strings.HasSuffix(text, "\n\n[Output truncated: showing lines 514-1025 of 1025 (50KB limit). Full output: "+d.FullOutputPath+"]") {
		t.Errorf("text %q...%q", text[:10], tail(text, 150))
	}
	if readFile(t, d.FullOutputPath) != full.String() {
		t.Error("full output differs")
	}
	if *d.Truncation != (truncationInfo{TotalLines: 1025, TotalBytes: 102500, OutputLines: 512, OutputBytes: 51200}) {
		t.Errorf("truncation %+v", *d.Truncation)
	}
}
