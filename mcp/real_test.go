package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/codec"
)

// Tests against the reference MCP servers from npm (mcp/testdata/node, installed by .ci/run
// with npm ci): servers nobody here wrote.

// nodeModules is the folder of the installed servers; the test skips without node or them.
func nodeModules(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs("testdata/node/node_modules/@modelcontextprotocol")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the tests against the reference MCP servers need it")
	}
	if _, err := os.Stat(filepath.Join(dir, "server-everything")); err != nil {
		t.Skip("the reference MCP servers are not installed: run `npm ci` in mcp/testdata/node (.ci/run does)")
	}
	return dir
}

func call(t *testing.T, set *Set, name, args string) string {
	t.Helper()
	res, err := tool(t, set, name).Execute(context.Background(), json.RawMessage(args), func(codec.ToolResult) {})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %s: error result %q", name, args, texts(res))
	}
	return texts(res)
}

func TestFilesystemServer(t *testing.T) {
	modules := nodeModules(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "notes", "a.txt"), "alpha\n")
	set := Start(context.Background(), []*Server{{Name: "fs", Command: "node",
		Args: []string{filepath.Join(modules, "server-filesystem", "dist", "index.js"), dir}}}, Options{Cwd: dir, LogDir: t.TempDir()})
	defer set.Close()
	if st := set.Statuses()[0]; st.Status != "connected" {
		t.Fatalf("status %+v", st)
	}
	if got := call(t, set, "mcp__fs__list_directory", fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "notes"))); got != "[FILE] a.txt" {
		t.Errorf("list_directory: %q", got)
	}
	if got := call(t, set, "mcp__fs__read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "notes", "a.txt"))); got != "alpha\n" {
		t.Errorf("read_text_file: %q", got)
	}
	// What --read-only goes by: the server's readOnlyHint annotations.
	if set.Writes("mcp__fs__read_text_file") || !set.Writes("mcp__fs__write_file") || !set.Writes("mcp__fs__move_file") {
		t.Error("read_text_file is read-only, write_file and move_file are not")
	}
}

// everything starts server-everything's streamable HTTP transport on a free port and returns
// its URL once it listens.
func everything(t *testing.T) string {
	modules := nodeModules(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", filepath.Join(modules, "server-everything", "dist", "index.js"), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "listening on port") {
			go func() { // keep reading, so the server never blocks on its stderr
				for lines.Scan() {
				}
			}()
			return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		}
	}
	t.Fatal("server-everything ended before it listened")
	return ""
}

func TestEverythingServerOverStreamableHTTP(t *testing.T) {
	url := everything(t)
	set := Start(context.Background(), []*Server{{Name: "every", URL: url, Headers: map[string]string{"X-Test": "1"},
		ToolTimeout: Duration(1500 * time.Millisecond)}}, Options{})
	defer set.Close()
	if st := set.Statuses()[0]; st.Status != "connected" || st.Transport != "http" || st.Tools < 5 {
		t.Fatalf("status %+v", st)
	}
	if got := call(t, set, "mcp__every__echo", `{"message":"hi there"}`); got != "Echo: hi there" {
		t.Errorf("echo: %q", got)
	}
	if got := call(t, set, "mcp__every__get-sum", `{"a":2,"b":40}`); got != "The sum of 2 and 40 is 42." {
		t.Errorf("get-sum: %q", got)
	}

	// 3s in 6 steps under a 1.5s timeout: each step's progress resets it.
	var updates []string
	res, err := tool(t, set, "mcp__every__trigger-long-running-operation").Execute(context.Background(), json.RawMessage(`{"duration":3,"steps":6}`),
		func(r codec.ToolResult) { updates = append(updates, r.Content[0].(*codec.TextContent).Text) })
	if err != nil || texts(res) != "Long running operation completed. Duration: 3 seconds, Steps: 6." {
		t.Errorf("long-running operation with progress: %q, %v", texts(res), err)
	}
	// The last notification may come after the result, which drops it.
	if len(updates) < 5 || updates[0] != "progress 1/6" || updates[4] != "progress 5/6" {
		t.Errorf("progress updates %q", updates)
	}

	// 4s in one step: no progress for longer than the timeout.
	_, err = tool(t, set, "mcp__every__trigger-long-running-operation").Execute(context.Background(), json.RawMessage(`{"duration":4,"steps":1}`), func(codec.ToolResult) {})
	if err == nil || !strings.Contains(err.Error(), "no answer or progress within 1.5s (toolTimeout): the call was cancelled") {
		t.Errorf("a call cut by toolTimeout: %v", err)
	}
	// The session is still good after the cancellation.
	if got := call(t, set, "mcp__every__echo", `{"message":"still"}`); got != "Echo: still" {
		t.Errorf("echo after a cancelled call: %q", got)
	}
}

func TestHTTPServerThatIsNotThere(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close() // nothing listens there now
	set := Start(context.Background(), []*Server{{Name: "gone", URL: url}}, Options{})
	defer set.Close()
	if st := set.Statuses()[0]; st.Status != "failed" || !strings.Contains(st.Error, "connection refused") {
		t.Errorf("status %+v", st)
	}
}

// A stdio server process that exits during a call (testdata/node/dies.mjs): the call ends
// with an error, the next call starts the server again (a new process), and after a second
// death its tools return errors. Nothing waits for a timeout.
func TestStdioServerThatDies(t *testing.T) {
	nodeModules(t)
	script, _ := filepath.Abs("testdata/node/dies.mjs")
	set := Start(context.Background(), []*Server{{Name: "d", Command: "node", Args: []string{script}}}, Options{Cwd: t.TempDir()})
	defer set.Close()
	if st := set.Statuses()[0]; st.Status != "connected" || st.Tools != 2 {
		t.Fatalf("status %+v", st)
	}
	first := call(t, set, "mcp__d__ping", `{}`)
	_, err := tool(t, set, "mcp__d__die").Execute(context.Background(), json.RawMessage(`{}`), func(codec.ToolResult) {})
	if err == nil || !strings.Contains(err.Error(), "MCP server d stopped during the call") {
		t.Fatalf("the call during which the server exits: %v", err)
	}
	again := call(t, set, "mcp__d__ping", `{}`)
	if !strings.HasPrefix(again, "pong ") || again == first {
		t.Errorf("after the restart: %q, first %q: not a new process", again, first)
	}
	tool(t, set, "mcp__d__die").Execute(context.Background(), json.RawMessage(`{}`), func(codec.ToolResult) {})
	_, err = tool(t, set, "mcp__d__ping").Execute(context.Background(), json.RawMessage(`{}`), func(codec.ToolResult) {})
	if err == nil || !strings.Contains(err.Error(), "MCP server d stopped and did not come back after a restart") {
		t.Errorf("after a second death: %v", err)
	}
}
