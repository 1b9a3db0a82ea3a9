package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// rpcProc is a `base-context --mode rpc` process driven by a test: commands go to its stdin,
// every stdout line is kept in order.
type rpcProc struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	seen  []string // every line read so far
	home  string
	dir   string
	err   strings.Builder
}

// lineWait bounds every wait for a line, so that a broken server fails the test instead
// of hanging it. It is no timing assertion: the lines come within milliseconds.
const lineWait = 30 * time.Second

func startRPC(t testing.TB, dir string, args ...string) *rpcProc {
	t.Helper()
	bin, err := exec.LookPath("base-context")
	if err != nil {
		t.Fatal(err)
	}
	if dir == "" {
		dir = t.TempDir()
	}
	p := &rpcProc{t: t, dir: dir, home: filepath.Join(dir, ".home"), lines: make(chan string, 1<<16)}
	p.cmd = exec.Command(bin, append([]string{"--mode", "rpc"}, args...)...)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "BASE_CONTEXT_HOME="+p.home)
	p.cmd.Stderr = &p.err
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				p.lines <- strings.TrimSuffix(line, "\n")
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// send writes one raw command line.
func (p *rpcProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing %s: %v", line, err)
	}
}

// next returns the next stdout line.
func (p *rpcProc) next() string {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("stdout ended; stderr:\n%s", p.err.String())
		}
		p.seen = append(p.seen, line)
		if !gjson.Valid(line) {
			p.t.Fatalf("stdout line is not JSON: %q", line)
		}
		return line
	case <-time.After(lineWait):
		p.t.Fatalf("no line within %s; stderr:\n%s", lineWait, p.err.String())
	}
	return ""
}

// until reads lines up to the first that match says is it, and returns it.
func (p *rpcProc) until(match func(gjson.Result) bool) gjson.Result {
	p.t.Helper()
	for {
		v := gjson.Parse(p.next())
		if match(v) {
			return v
		}
	}
}

// response reads up to the response with id.
func (p *rpcProc) response(id string) gjson.Result {
	p.t.Helper()
	return p.until(func(v gjson.Result) bool { return v.Get("type").Str == "response" && v.Get("id").Str == id })
}

// call sends a command object (with id) and returns its response.
func (p *rpcProc) call(id string, cmd map[string]any) gjson.Result {
	p.t.Helper()
	cmd["id"] = id
	b, _ := json.Marshal(cmd)
	p.send(string(b))
	return p.response(id)
}

func (p *rpcProc) event(typ string) gjson.Result {
	p.t.Helper()
	return p.until(func(v gjson.Result) bool { return v.Get("type").Str == typ })
}

// wait closes stdin (unless closed) and returns the exit status.
func (p *rpcProc) wait() int {
	p.t.Helper()
	p.in.Close()
	for line := range p.lines {
		p.seen = append(p.seen, line)
	}
	err := p.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

func writeScript(t *testing.T, dir string, responses ...any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"responses": responses})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "script.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// slowText is a scripted answer that streams for about 20 s unless aborted.
func slowText(dir string, t *testing.T) string {
	chunks := make([]string, 200)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("c%03d ", i)
	}
	return writeScript(t, dir, map[string]any{"text": chunks, "delay_ms": 100})
}

func TestRPCFramingAndErrors(t *testing.T) {
	p := startRPC(t, "", "--no-session")
	header := gjson.Parse(p.next())
	if header.Get("type").Str != "session" || header.Get("id").Str == "" {
		t.Fatalf("first line is not the session header: %s", header.Raw)
	}
	p.send(`not json`)
	r := p.until(func(v gjson.Result) bool { return v.Get("type").Str == "response" })
	if r.Get("command").Str != "parse" || r.Get("success").Bool() || !strings.Contains(r.Get("error").Str, "line 1") || r.Get("id").Exists() {
		t.Errorf("parse error response: %s", r.Raw)
	}
	p.send(`[1,2]`)
	r = p.until(func(v gjson.Result) bool { return v.Get("type").Str == "response" })
	if r.Get("command").Str != "parse" || !strings.Contains(r.Get("error").Str, "line 2") {
		t.Errorf("non-object: %s", r.Raw)
	}
	// CRLF is accepted, and the response repeats the id.
	p.send("{\"id\":\"crlf\",\"type\":\"get_commands\"}\r")
	if r = p.response("crlf"); !r.Get("success").Bool() || r.Get("data.commands").Raw != "[]" {
		t.Errorf("get_commands: %s", r.Raw)
	}
	for _, c := range []struct{ line, id, want string }{
		{`{"id":"u","type":"no_such_command"}`, "u", `unknown command type "no_such_command"`},
		{`{"id":"m","type":"prompt"}`, "m", `missing "message"`},
		{`{"id":"n","type":"prompt","message":7}`, "n", `"message" must be a string, got a number`},
		{`{"id":"t"}`, "t", `no "type"`},
		{`{"id":"l","type":"set_thinking_level","level":"huge"}`, "l", `"level" must be one of off, minimal, low, medium, high, xhigh`},
		{`{"id":"i","type":"prompt","message":"x","images":[{"type":"text","text":"no"}]}`, "i", `expected an image block`},
		{`{"id":"s","type":"switch_session","sessionPath":"x"}`, "s", `--no-session`},
		{`{"id":"e","type":"export_html"}`, "e", `not supported`},
		{`{"id":"b","type":"set_auto_retry","enabled":"yes"}`, "b", `"enabled" must be true or false`},
		// A key written twice is refused, whatever reader would pick which.
		{`{"id":"d1","type":"bash","type":"get_state","command":"echo ran > ran.txt"}`, "d1", `the key "type" twice`},
		{`{"id":"d2","type":"bash","command":"echo ran > ran.txt","command":"true"}`, "d2", `the key "command" twice`},
		{`{"id":"d3","type":"prompt","message":"x","images":[{"type":"image","mimeType":"image/png","data":"aGk=","data":"aGk="}]}`, "d3",
			`the key "images[0].data" twice`},
	} {
		p.send(c.line)
		r := p.response(c.id)
		if r.Get("success").Bool() || !strings.Contains(r.Get("error").Str, c.want) {
			t.Errorf("%s: got %s, want an error containing %q", c.line, r.Raw, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(p.dir, "ran.txt")); err == nil {
		t.Error("a command with a duplicate key ran")
	}
	// U+2028 and U+2029 inside a string are part of it, not line ends.
	msg := "one\u2028two\u2029three"
	line, _ := json.Marshal(map[string]any{"id": "sep", "type": "prompt", "message": msg})
	line = []byte(strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(string(line)))
	p.send(string(line))
	if r := p.response("sep"); !r.Get("success").Bool() {
		t.Fatalf("prompt: %s", r.Raw)
	}
	user := p.until(func(v gjson.Result) bool {
		return v.Get("type").Str == "message_end" && v.Get("message.role").Str == "user"
	})
	if got := user.Get("message.content.0.text").Str; got != msg {
		t.Errorf("the prompt arrived as %q, want %q", got, msg)
	}
	p.event("agent_end")
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d after EOF, want 0; stderr:\n%s", code, p.err.String())
	}
}

// The events of a prompt are those of --mode json, line for line apart from timestamps and
// ids; --json-deltas applies to both.
func TestRPCEventsAreTheJSONModeStream(t *testing.T) {
	dir := t.TempDir()
	bin, _ := exec.LookPath("base-context")
	cmd := exec.Command(bin, "--mode", "json", "--json-deltas", "--no-session", "List files")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BASE_CONTEXT_HOME="+filepath.Join(dir, ".home"))
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	p := startRPC(t, dir, "--json-deltas", "--no-session")
	p.next() // the header
	p.call("1", map[string]any{"type": "prompt", "message": "List files"})
	p.event("agent_end")
	var got []string
	for _, l := range p.seen[1:] {
		if gjson.Get(l, "type").Str != "response" {
			got = append(got, l)
		}
	}
	wantLines := strings.Split(strings.TrimSpace(string(want)), "\n")[1:]
	if len(got) != len(wantLines) {
		t.Fatalf("rpc gave %d events, json mode %d", len(got), len(wantLines))
	}
	for i := range got {
		if a, b := stripVolatile(got[i]), stripVolatile(wantLines[i]); a != b {
			t.Errorf("event %d:\n rpc:  %s\n json: %s", i, a, b)
		}
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// stripVolatile blanks what differs between two runs of the same script: times.
func stripVolatile(line string) string {
	var v any
	json.Unmarshal([]byte(line), &v)
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, y := range x {
				if k == "timestamp" {
					x[k] = 0
				}
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	b, _ := json.Marshal(v)
	return string(b)
}

// While a run streams, commands are answered at once; abort ends the run with an aborted
// message, a prompt without streamingBehavior is refused, and a follow-up runs after.
func TestRPCCommandsWhileStreaming(t *testing.T) {
	dir := t.TempDir()
	p := startRPC(t, dir, "--script", slowText(dir, t))
	header := gjson.Parse(p.next())
	if r := p.call("p1", map[string]any{"type": "prompt", "message": "Count slowly"}); !r.Get("success").Bool() {
		t.Fatalf("prompt: %s", r.Raw)
	}
	p.until(func(v gjson.Result) bool { return v.Get("assistantMessageEvent.type").Str == "text_delta" })
	st := p.call("s1", map[string]any{"type": "get_state"})
	if !st.Get("data.isStreaming").Bool() || st.Get("data.sessionId").Str != header.Get("id").Str ||
		st.Get("data.messageCount").Int() != 1 || !strings.HasSuffix(st.Get("data.sessionFile").Str, header.Get("id").Str+".jsonl") {
		t.Errorf("get_state while streaming: %s", st.Raw)
	}
	if r := p.call("p2", map[string]any{"type": "prompt", "message": "Meanwhile"}); r.Get("success").Bool() ||
		!strings.Contains(r.Get("error").Str, "streamingBehavior") {
		t.Errorf("a prompt during a run without streamingBehavior: %s", r.Raw)
	}
	if r := p.call("f1", map[string]any{"type": "prompt", "message": "Afterwards", "streamingBehavior": "followUp"}); !r.Get("success").Bool() {
		t.Errorf("followUp: %s", r.Raw)
	}
	if r := p.call("s2", map[string]any{"type": "get_state"}); r.Get("data.pendingMessageCount").Int() != 1 {
		t.Errorf("pendingMessageCount: %s", r.Raw)
	}
	// The abort's response comes once the run has ended: the aborted message is before it.
	p.send(`{"id":"a1","type":"abort"}`)
	var aborted bool
	p.until(func(v gjson.Result) bool {
		if v.Get("type").Str == "message_end" && v.Get("message.stopReason").Str == "aborted" {
			aborted = true
		}
		return v.Get("id").Str == "a1"
	})
	if !aborted {
		t.Errorf("no aborted assistant message before the abort's response")
	}
	// The follow-up is not lost: it waits for the next prompt.
	st = p.call("s3", map[string]any{"type": "get_state"})
	if st.Get("data.isStreaming").Bool() || st.Get("data.pendingMessageCount").Int() != 1 {
		t.Errorf("state after abort: %s", st.Raw)
	}
	msgs := p.call("m1", map[string]any{"type": "get_messages"})
	roles := []string{}
	for _, m := range msgs.Get("data.messages").Array() {
		roles = append(roles, m.Get("role").Str+":"+m.Get("stopReason").Str)
	}
	if strings.Join(roles, ",") != "user:,assistant:aborted" {
		t.Errorf("messages after abort: %v", roles)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// The end of stdin lets the run finish; SIGTERM aborts it with the stream closed properly.
func TestRPCLifetime(t *testing.T) {
	t.Run("eof", func(t *testing.T) {
		p := startRPC(t, "", "--no-session")
		p.next()
		p.send(`{"id":"1","type":"prompt","message":"List files"}`)
		p.in.Close()
		end := p.event("agent_end")
		if n := len(end.Get("messages").Array()); n != 4 {
			t.Errorf("the run did not finish: %s", end.Raw)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit %d", code)
		}
	})
	t.Run("sigterm", func(t *testing.T) {
		dir := t.TempDir()
		p := startRPC(t, dir, "--no-session", "--script", slowText(dir, t))
		p.next()
		p.call("1", map[string]any{"type": "prompt", "message": "Count"})
		p.until(func(v gjson.Result) bool { return v.Get("assistantMessageEvent.type").Str == "text_delta" })
		p.cmd.Process.Signal(syscall.SIGTERM)
		end := p.event("agent_end")
		if sr := end.Get("messages.1.stopReason").Str; sr != "aborted" {
			t.Errorf("agent_end after SIGTERM: %s", end.Raw)
		}
		if code := p.wait(); code != 143 {
			t.Errorf("exit %d, want 143", code)
		}
	})
	for name, args := range map[string][]string{
		"unknown model":     {"--model", "nosuch/model"},
		"prompt argument":   {"List files"},
		"session of nobody": {"--resume", "0000dead"},
	} {
		t.Run("startup failure: "+name, func(t *testing.T) {
			p := startRPC(t, "", args...)
			code := p.wait()
			if code != 2 || len(p.seen) != 0 || !strings.Contains(p.err.String(), "error: ") {
				t.Errorf("exit %d with %d lines, want 2 and none; stderr %q", code, len(p.seen), p.err.String())
			}
		})
	}
}

// Sessions: new_session writes a new header; bash output joins the context; fork and clone
// start sessions from the conversation; switch_session continues a saved one.
func TestRPCSessions(t *testing.T) {
	p := startRPC(t, "")
	first := gjson.Parse(p.next()).Get("id").Str
	p.call("1", map[string]any{"type": "prompt", "message": "List files"})
	p.event("agent_end")
	// The output keeps its final line break, as the upstream's does, whatever the exit status.
	bash := p.call("b", map[string]any{"type": "bash", "command": "printf 'out\\n'; exit 3"})
	if bash.Get("data.output").Str != "out\n" || bash.Get("data.exitCode").Int() != 3 || bash.Get("data.cancelled").Bool() {
		t.Errorf("bash: %s", bash.Raw)
	}
	msgs := p.call("m", map[string]any{"type": "get_messages"}).Get("data.messages").Array()
	if last := msgs[len(msgs)-1]; last.Get("role").Str != "bashExecution" || last.Get("command").Str == "" {
		t.Errorf("bash message: %s", last.Raw)
	}
	stats := p.call("st", map[string]any{"type": "get_session_stats"})
	if stats.Get("data.userMessages").Int() != 1 || stats.Get("data.assistantMessages").Int() != 2 ||
		stats.Get("data.toolCalls").Int() != 1 || stats.Get("data.totalMessages").Int() != 5 || stats.Get("data.tokens.total").Int() == 0 {
		t.Errorf("stats: %s", stats.Raw)
	}
	if r := p.call("txt", map[string]any{"type": "get_last_assistant_text"}); r.Get("data.text").Str == "" {
		t.Errorf("last assistant text: %s", r.Raw)
	}
	forks := p.call("fm", map[string]any{"type": "get_fork_messages"}).Get("data.messages").Array()
	if len(forks) != 1 || forks[0].Get("text").Str != "List files" {
		t.Fatalf("fork messages: %v", forks)
	}
	if r := p.call("nm", map[string]any{"type": "set_session_name", "name": "listing"}); !r.Get("success").Bool() {
		t.Errorf("set_session_name: %s", r.Raw)
	}
	// new_session: a new header, an empty conversation, the parent recorded.
	p.send(`{"id":"n","type":"new_session","parentSession":"` + first + `"}`)
	hdr := p.event("session")
	if r := p.response("n"); r.Get("data.cancelled").Bool() || !r.Get("success").Bool() {
		t.Errorf("new_session: %s", r.Raw)
	}
	if hdr.Get("id").Str == first || hdr.Get("parentSession").Str != first {
		t.Errorf("new header: %s", hdr.Raw)
	}
	if st := p.call("s", map[string]any{"type": "get_state"}); st.Get("data.messageCount").Int() != 0 || st.Get("data.sessionId").Str != hdr.Get("id").Str {
		t.Errorf("state after new_session: %s", st.Raw)
	}
	// switch_session back to the first: its conversation is the context again.
	p.send(`{"id":"sw","type":"switch_session","sessionPath":"` + first + `"}`)
	if h := p.event("session"); h.Get("id").Str != first {
		t.Errorf("switch header: %s", h.Raw)
	}
	p.response("sw")
	if st := p.call("s2", map[string]any{"type": "get_state"}); st.Get("data.messageCount").Int() != 5 || st.Get("data.sessionName").Str != "listing" {
		t.Errorf("state after switch: %s", st.Raw)
	}
	// fork before the first prompt: an empty conversation, the prompt's text returned.
	p.send(`{"id":"f","type":"fork","entryId":"` + forks[0].Get("entryId").Str + `"}`)
	fh := p.event("session")
	if r := p.response("f"); r.Get("data.text").Str != "List files" {
		t.Errorf("fork: %s", r.Raw)
	}
	if fh.Get("parentSession").Str != first {
		t.Errorf("fork header: %s", fh.Raw)
	}
	if st := p.call("s3", map[string]any{"type": "get_state"}); st.Get("data.messageCount").Int() != 0 {
		t.Errorf("state after fork: %s", st.Raw)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d: %s", code, p.err.String())
	}
}

// An rpc run registers as any run: list shows it, send starts a run or queues into it,
// attach replays its events, stop aborts it (exit 1).
func TestRPCRegistry(t *testing.T) {
	dir := t.TempDir()
	p := startRPC(t, dir, "--script", slowText(dir, t))
	id := gjson.Parse(p.next()).Get("id").Str
	bin, _ := exec.LookPath("base-context")
	run := func(args ...string) (string, int) {
		c := exec.Command(bin, args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "BASE_CONTEXT_HOME="+p.home)
		out, err := c.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	if out, _ := run("list"); !strings.Contains(out, id) {
		t.Errorf("list does not show the run:\n%s", out)
	}
	// send to the idle session starts a run with the message.
	if out, code := run("send", id, "count from outside"); code != 0 {
		t.Errorf("send to the idle session: %d %s", code, out)
	}
	user := p.until(func(v gjson.Result) bool { return v.Get("type").Str == "message_end" })
	if user.Get("message.content.0.text").Str != "count from outside" {
		t.Errorf("the run started by send: %s", user.Raw)
	}
	p.until(func(v gjson.Result) bool { return v.Get("assistantMessageEvent.type").Str == "text_delta" })
	if out, code := run("send", "--follow-up", id, "from outside"); code != 0 {
		t.Errorf("send: %d %s", code, out)
	}
	if st := p.call("s", map[string]any{"type": "get_state"}); st.Get("data.pendingMessageCount").Int() != 1 {
		t.Errorf("the sent message is not queued: %s", st.Raw)
	}
	if out, code := run("stop", id); code != 0 {
		t.Errorf("stop: %d %s", code, out)
	}
	if code := p.wait(); code != 1 {
		t.Errorf("exit %d after stop, want 1", code)
	}
	out, code := run("attach", id)
	if code != 1 || !strings.Contains(out, `"type":"agent_end"`) || !strings.HasPrefix(out, `{"type":"session","version":3,"id":"`+id) ||
		strings.Contains(out, `"type":"response"`) {
		t.Errorf("attach (exit %d):\n%s", code, out)
	}
}

// BenchmarkRPCCommandRoundTrip measures a command's round trip on an idle rpc process: the
// line written, its response read (the issue asks for under 10 ms).
func BenchmarkRPCCommandRoundTrip(b *testing.B) {
	p := startRPC(b, b.TempDir(), "--no-session")
	p.next()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprint(i)
		p.send(`{"id":"` + id + `","type":"get_state"}`)
		if r := p.response(id); !r.Get("success").Bool() {
			b.Fatal(r.Raw)
		}
	}
	b.StopTimer()
	p.wait()
}

// compact answers with the compaction's result once done, and the context is the summary
// and what it kept; settings commands change what get_state reports.
func TestRPCCompactAndSettings(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	script, _ := filepath.Abs("../testdata/scripts/long_manual.json")
	p := startRPC(t, dir, "--no-session", "--script", script, "--compaction-keep", "10")
	p.next()
	p.call("1", map[string]any{"type": "prompt", "message": "Summarise notes.txt"})
	p.event("agent_end")
	r := p.call("c", map[string]any{"type": "compact", "customInstructions": "keep the file names"})
	if !r.Get("success").Bool() || !strings.Contains(r.Get("data.summary").Str, "## Goal") || r.Get("data.tokensBefore").Int() == 0 ||
		!r.Get("data.firstKeptEntryId").Exists() {
		t.Fatalf("compact: %s", r.Raw)
	}
	msgs := p.call("m", map[string]any{"type": "get_messages"}).Get("data.messages").Array()
	if len(msgs) == 0 || msgs[0].Get("role").Str != "compactionSummary" {
		t.Errorf("context after compaction starts with %v", msgs)
	}
	for _, c := range []struct{ cmd, check string }{
		{`{"id":"a","type":"set_auto_compaction","enabled":false}`, "autoCompactionEnabled:false"},
		{`{"id":"b","type":"set_thinking_level","level":"low"}`, "thinkingLevel:low"},
		{`{"id":"c","type":"set_steering_mode","mode":"one-at-a-time"}`, "steeringMode:one-at-a-time"},
		{`{"id":"d","type":"set_follow_up_mode","mode":"all"}`, "followUpMode:all"},
	} {
		p.send(c.cmd)
		if r := p.response(gjson.Get(c.cmd, "id").Str); !r.Get("success").Bool() {
			t.Errorf("%s: %s", c.cmd, r.Raw)
		}
		key, want, _ := strings.Cut(c.check, ":")
		if got := p.call("s"+key, map[string]any{"type": "get_state"}).Get("data." + key).String(); got != want {
			t.Errorf("%s: get_state %s = %s, want %s", c.cmd, key, got, want)
		}
	}
	if r := p.call("cy", map[string]any{"type": "cycle_thinking_level"}); r.Get("data").Raw != "null" {
		t.Errorf("cycle_thinking_level on a model without reasoning: %s", r.Raw)
	}
	if r := p.call("sm", map[string]any{"type": "set_model", "provider": "nosuch", "modelId": "x"}); r.Get("success").Bool() ||
		!strings.HasPrefix(r.Get("error").Str, "Model not found: nosuch/x") {
		t.Errorf("set_model of an unknown model: %s", r.Raw)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d: %s", code, p.err.String())
	}
}

// --redact applies to the rpc stream as to --mode json: it is the same chain.
func TestRPCRedacts(t *testing.T) {
	dir := t.TempDir()
	secret := "ghp_" + strings.Repeat("aB3", 12)
	script := writeScript(t, dir, map[string]any{"text": []string{"the token is ", secret[:10], secret[10:]}})
	p := startRPC(t, dir, "--no-session", "--redact", "--script", script)
	p.next()
	p.call("1", map[string]any{"type": "prompt", "message": "Show the token"})
	end := p.event("agent_end")
	if !strings.Contains(end.Raw, "[REDACTED:github-pat]") {
		t.Errorf("agent_end not redacted: %s", end.Raw)
	}
	// Responses go through the same redaction.
	if r := p.call("m", map[string]any{"type": "get_messages"}); !strings.Contains(r.Raw, "[REDACTED:github-pat]") {
		t.Errorf("get_messages not redacted: %s", r.Raw)
	}
	if r := p.call("b", map[string]any{"type": "bash", "command": "echo " + secret}); !strings.Contains(r.Raw, "[REDACTED:github-pat]") {
		t.Errorf("bash not redacted: %s", r.Raw)
	}
	p.wait()
	for _, l := range p.seen {
		if strings.Contains(l, secret[:8]) || strings.Contains(l, secret[10:18]) {
			t.Errorf("a line shows the secret: %s", l)
		}
	}
}

// abort_bash ends a running bash command (cancelled, no exit code); abort_retry ends the
// pause before a retry, and with it the run, in the provider's error.
func TestRPCAbortBashAndRetry(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, map[string]any{"status": 503, "message": "busy"})
	p := startRPC(t, dir, "--no-session", "--script", script, "--retry-base-delay", "10m")
	p.next()
	p.send(`{"id":"b","type":"bash","command":"echo started; sleep 60"}`)
	p.send(`{"id":"ab","type":"abort_bash"}`)
	bash := p.response("b")
	if !bash.Get("success").Bool() || !bash.Get("data.cancelled").Bool() || bash.Get("data.exitCode").Exists() {
		t.Errorf("aborted bash: %s", bash.Raw)
	}
	p.response("ab")
	if msgs := p.call("m", map[string]any{"type": "get_messages"}).Get("data.messages").Array(); len(msgs) != 1 || !msgs[0].Get("cancelled").Bool() {
		t.Errorf("the cancelled command's message: %v", msgs)
	}

	p.call("p", map[string]any{"type": "prompt", "message": "Try"})
	p.event("auto_retry_start")
	p.send(`{"id":"ar","type":"abort_retry"}`)
	var retryEnd gjson.Result
	p.until(func(v gjson.Result) bool {
		if v.Get("type").Str == "auto_retry_end" {
			retryEnd = v
		}
		return v.Get("id").Str == "ar"
	})
	if !retryEnd.Exists() || retryEnd.Get("success").Bool() {
		t.Errorf("no failed auto_retry_end before abort_retry's response: %s", retryEnd.Raw)
	}
	if st := p.call("s2", map[string]any{"type": "get_state"}); st.Get("data.isStreaming").Bool() {
		t.Errorf("still streaming: %s", st.Raw)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// --permission-mode ask puts each tool call no rule decides to the client as a confirm
// dialog: a yes runs it, a no refuses it with an error result naming the mode.
func TestRPCPermissionAsk(t *testing.T) {
	dir := t.TempDir()
	call := func(id, command string) map[string]any {
		return map[string]any{"tool_calls": []map[string]any{{"id": id, "name": "bash",
			"args": []string{fmt.Sprintf(`{"command": %q}`, command)}}}}
	}
	script := writeScript(t, dir,
		call("call_yes", "echo allowed-ran > yes.txt"), map[string]any{"text": []string{"one done"}},
		call("call_no", "echo refused-ran > no.txt"), map[string]any{"text": []string{"two done"}})
	p := startRPC(t, dir, "--no-session", "--script", script, "--permission-mode", "ask", "--allow", "read")

	answer := func(confirmed bool) gjson.Result {
		req := p.event("extension_ui_request")
		if req.Get("method").Str != "confirm" || !strings.Contains(req.Get("title").Str, "bash(echo ") {
			t.Fatalf("dialog %s", req.Raw)
		}
		b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req.Get("id").Str, "confirmed": confirmed})
		p.send(string(b))
		return req
	}

	if r := p.call("p1", map[string]any{"type": "prompt", "message": "first"}); !r.Get("success").Bool() {
		t.Fatalf("prompt: %s", r.Raw)
	}
	answer(true)
	end := p.event("tool_execution_end")
	if end.Get("isError").Bool() {
		t.Fatalf("the allowed call failed: %s", end.Raw)
	}
	p.event("agent_end")
	if b, err := os.ReadFile(filepath.Join(dir, "yes.txt")); err != nil || string(b) != "allowed-ran\n" {
		t.Fatalf("yes.txt %q, %v", b, err)
	}

	if r := p.call("p2", map[string]any{"type": "prompt", "message": "second"}); !r.Get("success").Bool() {
		t.Fatalf("prompt: %s", r.Raw)
	}
	answer(false)
	end = p.event("tool_execution_end")
	if text := end.Get("result.content.0.text").Str; !end.Get("isError").Bool() || !strings.HasPrefix(text, "Permission denied: bash(echo refused-ran > no.txt)") {
		t.Fatalf("the refused call: %s", end.Raw)
	}
	p.event("agent_end")
	if _, err := os.Stat(filepath.Join(dir, "no.txt")); !os.IsNotExist(err) {
		t.Fatalf("the refused command ran: %v", err)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.err.String())
	}
}

// A client that has read agent_end may send its next command at once: the run has only its
// bookkeeping left, and the command finds the agent idle (it once could be told "the agent is
// streaming" in that moment). Many prompts, each sent as soon as the last agent_end arrives,
// and a get_state after each, make that moment likely to be hit.
func TestRPCCommandRightAfterAgentEnd(t *testing.T) {
	dir := t.TempDir()
	const rounds = 40
	var answers []any
	for i := range rounds {
		answers = append(answers, map[string]any{"text": []string{fmt.Sprintf("answer %d", i)}})
	}
	p := startRPC(t, dir, "--no-session", "--script", writeScript(t, dir, answers...))
	for i := range rounds {
		id := fmt.Sprintf("p%d", i)
		p.send(fmt.Sprintf(`{"id":%q,"type":"prompt","message":"again"}`, id))
		p.send(fmt.Sprintf(`{"id":"s%d","type":"get_state"}`, i))
		if r := p.response(id); !r.Get("success").Bool() {
			t.Fatalf("prompt %d right after agent_end: %s", i, r.Raw)
		}
		p.event("agent_end")
	}
	if st := p.call("last", map[string]any{"type": "get_state"}); st.Get("data.isStreaming").Bool() {
		t.Errorf("streaming after the last agent_end: %s", st.Raw)
	}
}
