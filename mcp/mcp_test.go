package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ---- configuration ----

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLoadMergesTheSourcesInOrder(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "settings.json"), `{"model": "x", "mcpServers": {
  "a": {"command": "from-user"},
  "b": {"command": "b-user"}}}`)
	write(t, filepath.Join(repo, ".base-context", "settings.json"), `{"mcpServers": {"b": {"command": "b-project"}}}`)
	write(t, filepath.Join(repo, ".mcp.json"), `{"mcpServers": {"c": {"type": "http", "url": "${HOST:-http://localhost}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}`)
	flagFile := filepath.Join(t.TempDir(), "more.json")
	write(t, flagFile, `{"mcpServers": {"a": {"command": "${BIN}", "args": ["--x=${BIN}"], "env": {"K": "${BIN:-no}"}}}}`)
	src := Sources{Home: home, Cwd: repo, Getenv: env(map[string]string{"BIN": "flagged", "TOKEN": "t0k"}),
		Flags: []string{flagFile, `{"mcpServers": {"d": {"command": "inline", "enabled": false, "args": ["${UNSET}"]}}}`}}
	servers, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range servers {
		got = append(got, s.Name+"="+s.Command+s.URL)
	}
	if want := "a=flagged b=b-project c=http://localhost/mcp d=inline"; strings.Join(got, " ") != want {
		t.Errorf("servers %q, want %q", strings.Join(got, " "), want)
	}
	if a := servers[0]; a.Args[0] != "--x=flagged" || a.Env["K"] != "flagged" {
		t.Errorf("a: args %q env %q: not expanded", a.Args, a.Env)
	}
	if c := servers[2]; c.Headers["Authorization"] != "Bearer t0k" || c.Transport() != "http" {
		t.Errorf("c: headers %q transport %s", c.Headers, c.Transport())
	}
	// d is disabled: its unset variable is not an error.
	if !servers[3].Disabled() {
		t.Error("d is enabled")
	}

	src.Strict = true
	if servers, _ = Load(src); len(servers) != 2 || servers[0].Name != "a" || servers[1].Name != "d" {
		t.Errorf("--strict-mcp-config: %v, want only the flags' a and d", servers)
	}
	src.None = true
	if servers, _ = Load(src); len(servers) != 0 {
		t.Errorf("--no-mcp: %d servers", len(servers))
	}
}

func TestLoadErrorsNameTheFileAndLine(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	for _, c := range []struct{ file, text, want string }{
		{".mcp.json", "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",\n   \"comand\": \"y\"}}}", `.mcp.json: line 3: json: unknown field "comand"`},
		{".mcp.json", "{\"mcpServers\": {\n\n  \"a\": {\"args\": [\"x\"]}}}", `.mcp.json: line 3: server "a": expected command`},
		{".mcp.json", "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\", \"toolTimeout\": \"soon\"}}}", `.mcp.json: line 2: time: invalid duration "soon"`},
		{".mcp.json", "{\"mcpServers\": {\"a\": {\"type\": \"sse\", \"url\": \"http://x\"}}}", `type "sse" (the old HTTP+SSE transport) is not supported`},
		{".mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"${NOPE}\"}}}", `.mcp.json: line 1: server "a": ${NOPE} is not set`},
		{".mcp.json", "{\"servers\": {}}", `.mcp.json: line 1: json: unknown field "servers"`},
		{".base-context/settings.json", "{\n  \"model\": \"m\",\n  \"mcpServers\": {\n    \"a\": {\"command\": 1}}}", `.base-context/settings.json: line 4: json: cannot unmarshal number`},
	} {
		path := filepath.Join(repo, c.file)
		write(t, path, c.text)
		_, err := Load(Sources{Home: home, Cwd: repo, Getenv: env(nil)})
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.ExitCode() != 2 || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), repo) {
			t.Errorf("%s %q: error %v, want a ConfigError with %q", c.file, c.text, err, c.want)
		}
		os.Remove(path)
	}
	if _, err := Load(Sources{Cwd: repo, Getenv: env(nil), Flags: []string{"{not json"}}); err == nil || !strings.HasPrefix(err.Error(), "--mcp-config: line 1:") {
		t.Errorf("a bad --mcp-config JSON: %v", err)
	}
	if _, err := Load(Sources{Cwd: repo, Getenv: env(nil), Flags: []string{filepath.Join(repo, "missing.json")}}); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing --mcp-config file: %v", err)
	}
}

func TestToolNames(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my.server", "get sum/2", "mcp__my_server__get_sum_2"},
		{"s", strings.Repeat("x", 80), "mcp__s__" + strings.Repeat("x", 56)},
	} {
		if got := ToolName(c.server, c.tool); got != c.want || len(got) > 64 {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
}

// ---- servers over the SDK's in-memory transport ----

type testServer struct {
	connects  atomic.Int32
	cancelled chan struct{} // closed when the slow tool saw its cancellation
	conn      atomic.Value  // the server's end of the current connection (sdk.Connection)
}

// keptTransport keeps the server's end of the connection, for the test to close.
type keptTransport struct {
	sdk.Transport
	kept *atomic.Value
}

func (k keptTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := k.Transport.Connect(ctx)
	if err == nil {
		k.kept.Store(c)
	}
	return c, err
}

func object() any { return map[string]any{"type": "object"} }

// start serves a new server with the test tools on one end of an in-memory pipe.
func (ts *testServer) start(t *testing.T) func(*Server) (sdk.Transport, error) {
	return func(*Server) (sdk.Transport, error) {
		ts.connects.Add(1)
		srv := sdk.NewServer(&sdk.Implementation{Name: "test"}, nil)
		text := func(s string) *sdk.CallToolResult {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
		}
		srv.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes.", InputSchema: object(), Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return text("echo: " + string(req.Params.Arguments)), nil
			})
		srv.AddTool(&sdk.Tool{Name: "write.it", InputSchema: object()}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "no"}}, IsError: true}, nil
		})
		srv.AddTool(&sdk.Tool{Name: "write_it", InputSchema: object()}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("collides"), nil
		})
		srv.AddTool(&sdk.Tool{Name: "media", InputSchema: object()}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a picture"},
				&sdk.ImageContent{Data: []byte("PNG"), MIMEType: "image/png"},
				&sdk.ResourceLink{URI: "file:///tmp/x.txt", Name: "x.txt", MIMEType: "text/plain"},
			}}, nil
		})
		srv.AddTool(&sdk.Tool{Name: "slow", InputSchema: object()}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			close(ts.cancelled)
			return nil, ctx.Err()
		})
		srv.AddTool(&sdk.Tool{Name: "steps", InputSchema: object()}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			for i := 1; i <= 6; i++ {
				time.Sleep(100 * time.Millisecond)
				req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 6})
			}
			return text("six steps"), nil
		})
		srv.AddTool(&sdk.Tool{Name: "die", InputSchema: object()}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			ts.conn.Load().(sdk.Connection).Close() // the server goes away during the call: its end of the pipe closes
			<-ctx.Done()
			return nil, ctx.Err()
		})
		client, server := sdk.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), keptTransport{server, &ts.conn}, nil); err != nil {
			t.Fatal(err)
		}
		return client, nil
	}
}

func startTest(t *testing.T, cfg *Server) (*Set, *testServer) {
	t.Helper()
	ts := &testServer{cancelled: make(chan struct{})}
	set := Start(context.Background(), []*Server{cfg}, Options{Connect: ts.start(t)})
	t.Cleanup(set.Close)
	return set, ts
}

func tool(t *testing.T, set *Set, name string) tools.Tool {
	t.Helper()
	for _, tl := range set.Tools(tools.Options{}) {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s among %v", name, set.ToolNames())
	return nil
}

func texts(r tools.Result) string {
	var out []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *codec.TextContent:
			out = append(out, c.Text)
		case *codec.ImageContent:
			out = append(out, "image "+c.MimeType+" "+c.Data)
		}
	}
	return strings.Join(out, " | ")
}

func TestToolsOfAServer(t *testing.T) {
	set, _ := startTest(t, &Server{Name: "t", Command: "unused", DisabledTools: []string{"die"}})
	st := set.Statuses()
	if len(st) != 1 || st[0].Status != "connected" || st[0].Transport != "stdio" {
		t.Fatalf("statuses %+v", st[0])
	}
	// write.it and write_it are both mcp__t__write_it: the second listed is refused.
	want := "mcp__t__echo mcp__t__media mcp__t__slow mcp__t__steps mcp__t__write_it" // as the server lists them
	if got := strings.Join(set.ToolNames(), " "); got != want || st[0].Tools != 5 {
		t.Errorf("tools %q (status says %d), want %q", got, st[0].Tools, want)
	}
	if notes := strings.Join(set.Notes(), "\n"); !strings.Contains(notes, `tool "write_it" is left out: its name mcp__t__write_it is t/write.it's already`) {
		t.Errorf("notes %q", notes)
	}
	if set.Writes("mcp__t__echo") || !set.Writes("mcp__t__write_it") || !set.Writes("mcp__other__x") || set.Writes("bash") {
		t.Error("Writes: echo is read-only, write_it and unknown MCP tools write, bash is not the servers'")
	}
	echo := tool(t, set, "mcp__t__echo")
	if p := string(echo.Parameters()); p != `{"properties":{},"type":"object"}` {
		t.Errorf("parameters %s", p)
	}
	res, err := echo.Execute(context.Background(), json.RawMessage(`{"a":1}`), func(codec.ToolResult) {})
	if err != nil || texts(res) != `echo: {"a":1}` || res.IsError {
		t.Errorf("echo: %q %v %v", texts(res), res.IsError, err)
	}
	res, err = tool(t, set, "mcp__t__write_it").Execute(context.Background(), nil, func(codec.ToolResult) {})
	if err != nil || !res.IsError || texts(res) != "no" {
		t.Errorf("an error result: %q isError %v, %v", texts(res), res.IsError, err)
	}
	res, err = tool(t, set, "mcp__t__media").Execute(context.Background(), nil, func(codec.ToolResult) {})
	if want := "a picture | image image/png UE5H | Resource link: file:///tmp/x.txt (x.txt) text/plain"; err != nil || texts(res) != want {
		t.Errorf("media: %q, want %q (%v)", texts(res), want, err)
	}
}

func TestToolTimeoutCancelsTheCall(t *testing.T) {
	set, ts := startTest(t, &Server{Name: "t", Command: "x", ToolTimeout: Duration(200 * time.Millisecond)})
	_, err := tool(t, set, "mcp__t__slow").Execute(context.Background(), nil, func(codec.ToolResult) {})
	if err == nil || !strings.Contains(err.Error(), "no answer or progress within 200ms (toolTimeout): the call was cancelled") {
		t.Errorf("error %v", err)
	}
	select {
	case <-ts.cancelled: // the server was told
	case <-time.After(10 * time.Second):
		t.Error("the server's handler was not cancelled")
	}
}

func TestProgressResetsTheTimeout(t *testing.T) {
	// Six steps of 100ms, each with progress, under a 350ms timeout: the call takes 600ms.
	set, _ := startTest(t, &Server{Name: "t", Command: "x", ToolTimeout: Duration(350 * time.Millisecond)})
	var updates []string
	res, err := tool(t, set, "mcp__t__steps").Execute(context.Background(), nil, func(r codec.ToolResult) {
		updates = append(updates, r.Content[0].(*codec.TextContent).Text)
	})
	if err != nil || texts(res) != "six steps" {
		t.Fatalf("%q, %v", texts(res), err)
	}
	if len(updates) < 5 || updates[4] != "progress 5/6" { // the last may come after the result
		t.Errorf("updates %q", updates)
	}
}

func TestADeadServerIsRestartedOnce(t *testing.T) {
	set, ts := startTest(t, &Server{Name: "t", Command: "x"})
	die, echo := tool(t, set, "mcp__t__die"), tool(t, set, "mcp__t__echo")
	if _, err := die.Execute(context.Background(), nil, func(codec.ToolResult) {}); err == nil || !strings.Contains(err.Error(), "MCP server t stopped during the call") {
		t.Fatalf("the call of a server that dies: %v", err)
	}
	if res, err := echo.Execute(context.Background(), json.RawMessage(`{}`), func(codec.ToolResult) {}); err != nil || texts(res) != "echo: {}" {
		t.Fatalf("after a restart: %q %v", texts(res), err)
	}
	if n := ts.connects.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
	die.Execute(context.Background(), nil, func(codec.ToolResult) {})
	_, err := echo.Execute(context.Background(), nil, func(codec.ToolResult) {})
	if err == nil || !strings.Contains(err.Error(), "did not come back after a restart: its tools are unavailable") {
		t.Errorf("a second death: %v", err)
	}
}

func TestStartFailuresAndRequired(t *testing.T) {
	dir := t.TempDir()
	no := false
	servers := []*Server{
		{Name: "absent", Command: filepath.Join(dir, "no-such-program")},
		{Name: "exits", Command: "sh", Args: []string{"-c", "echo bye >&2; exit 3"}, Required: true},
		{Name: "mute", Command: "sleep", Args: []string{"30"}, StartupTimeout: Duration(300 * time.Millisecond)},
		{Name: "off", Command: "x", Enabled: &no},
	}
	set := Start(context.Background(), servers, Options{Cwd: dir, LogDir: filepath.Join(dir, "logs")})
	defer set.Close()
	var got []string
	for _, st := range set.Statuses() {
		got = append(got, st.Name+" "+st.Status+": "+st.Error)
	}
	log := filepath.Join(dir, "logs", "mcp-exits.log")
	want := []string{
		"absent failed: fork/exec " + filepath.Join(dir, "no-such-program") + ": no such file or directory",
		"exits failed: the server exited before answering initialize (its stderr: " + log + ")",
		"mute failed: no answer to initialize within 300ms (startupTimeout) (its stderr: " + filepath.Join(dir, "logs", "mcp-mute.log") + ")",
		"off disabled: ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("statuses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var se *StartError
	if err := set.Required(); !errors.As(err, &se) || se.Name != "exits" || se.ExitCode() != 2 {
		t.Errorf("Required: %v", err)
	}
	if data, _ := os.ReadFile(log); string(data) != "bye\n" {
		t.Errorf("the server's stderr in its log: %q", data)
	}
	if notes := set.Notes(); len(notes) != 2 || !strings.HasPrefix(notes[0], "MCP server absent failed, its tools are absent") {
		t.Errorf("notes %q: the two optional failures", notes)
	}
}
