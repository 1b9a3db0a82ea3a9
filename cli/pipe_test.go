package cli_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A live run piped through three filters reaches the end of the pipe event by event. The
// run cannot finish until the test has read certain events at the far end: its one tool
// call waits for a marker file that the test creates when it reads tool_execution_start,
// then for a second one that the test creates when it reads the tool's first streamed
// output. Were any process in the pipe to hold lines back (a buffer flushed only when full
// or at the end), those events would not arrive while the tool waits, and the tool gives up
// and fails, which the test reports. No timing is measured.
func TestLivePipeShowsEachEventAsItHappens(t *testing.T) {
	bin, err := exec.LookPath("base-context") // installed in PATH by TestMain
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Each wait gives up after about 60 s, so a pipe that buffers fails rather than hangs.
	wait := `i=0; while [ ! -e %s ]; do i=$((i+1)); if [ $i -gt 600 ]; then echo "gave up waiting for %s"; exit 3; fi; sleep 0.1; done; echo "saw %s"; `
	command := strings.NewReplacer("%s", "first.marker").Replace(wait) + strings.NewReplacer("%s", "second.marker").Replace(wait)
	script, err := json.Marshal(map[string]any{"responses": []any{
		map[string]any{"text": []string{"Waiting", " for the reader."},
			"tool_calls": []any{map[string]any{"id": "call_wait", "name": "bash", "args": map[string]string{"command": command}}}},
		map[string]any{"text": []string{"Both", " markers", " seen."}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(dir, "script.json")
	if err := os.WriteFile(scriptPath, script, 0o644); err != nil {
		t.Fatal(err)
	}

	cmds := []*exec.Cmd{
		exec.Command(bin, "--mode", "json", "--script", scriptPath, "--no-session", "Wait for the reader"),
		exec.Command(bin, "filter", "header", "--stamp", "--seq"),
		exec.Command(bin, "filter", "select", "--not", "turn_start"),
		exec.Command(bin, "filter", "deltas"),
	}
	var out io.Reader
	for i, c := range cmds {
		c.Dir = dir
		c.Stderr = &prefixWriter{t: t, name: strings.Join(c.Args[1:3], " ")}
		if i > 0 {
			c.Stdin = out
		}
		if out, err = c.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}

	var types []string
	var toolEnd map[string]any
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("line %d: %v: %s", len(types)+1, err, line)
		}
		typ, _ := ev["type"].(string)
		types = append(types, typ)
		switch {
		case typ == "tool_execution_start":
			touch(t, filepath.Join(dir, "first.marker"))
		case typ == "tool_execution_update" && strings.Contains(string(line), "saw first.marker"):
			touch(t, filepath.Join(dir, "second.marker"))
		case typ == "tool_execution_end":
			toolEnd = ev
		}
		// Each filter did its part: header stamps, select drops, deltas numbers.
		if len(types) > 1 && (ev["sessionId"] == nil || ev["seq"] == nil) {
			t.Errorf("line %d (%s) not stamped", len(types), typ)
		}
		if typ == "turn_start" {
			t.Error("select let turn_start through")
		}
		if typ == "message_update" && ev["messageId"] == nil {
			t.Error("message_update without messageId: deltas did not run")
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("%s: %v", strings.Join(c.Args[1:3], " "), err)
		}
	}

	if len(types) == 0 || types[0] != "session" {
		t.Fatalf("the stream does not start with the header: %v", types)
	}
	if toolEnd == nil {
		t.Fatalf("no tool_execution_end in %v", types)
	}
	result, _ := json.Marshal(toolEnd["result"])
	if toolEnd["isError"] != false || !strings.Contains(string(result), "saw second.marker") {
		t.Fatalf("the tool did not see both markers, so events were held back in the pipe: %s", result)
	}
	if types[len(types)-1] != "agent_end" {
		t.Errorf("last event %s, want agent_end", types[len(types)-1])
	}
}

func touch(t *testing.T, path string) {
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// prefixWriter logs a process's stderr through the test.
type prefixWriter struct {
	t    *testing.T
	name string
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s: %s", w.name, strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// A filter reading a file into a pipe whose reader goes away (`| head`) ends quietly with
// status 0, whether it was writing lines it made or lines it passed on from the file
// (which go to a pipe from the file itself: see stages.Run).
func TestFilterIntoAClosedPipeEndsQuietly(t *testing.T) {
	bin, err := exec.LookPath("base-context") // installed in PATH by TestMain
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var stream strings.Builder
	stream.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
	for i := range 200000 { // 24 MB: more than any pipe holds
		stream.WriteString(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"` + strings.Repeat("x", i%7) + `"}}` + "\n")
	}
	input := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(input, []byte(stream.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"deltas"}, {"select", "message_update"}, {"header", "--seq"}} {
		c := exec.Command(bin, append(append([]string{"filter"}, args...), input)...)
		var stderr strings.Builder
		c.Stderr = &stderr
		out, err := c.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(out, make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
		out.Close()
		if err := c.Wait(); err != nil || stderr.Len() > 0 {
			t.Errorf("filter %s into a closed pipe: %v, %q", strings.Join(args, " "), err, stderr.String())
		}
	}
}
