package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// --mode rpc with MCP servers: get_state lists them with their statuses, and a call of an MCP
// tool that no rule decides is put to the client as a confirm dialog, as a built-in's is.
func TestRPCMCPServers(t *testing.T) {
	server, _ := filepath.Abs("../mcp/testdata/node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	if _, err := os.Stat(server); err != nil {
		t.Skip("the reference MCP servers are not installed: run `npm ci` in mcp/testdata/node (.ci/run does)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fs":     map[string]any{"command": "node", "args": []string{server, "."}},
		"absent": map[string]any{"command": "no-such-mcp-server"},
	}})
	script := writeScript(t, dir,
		map[string]any{"tool_calls": []map[string]any{{"id": "c1", "name": "mcp__fs__read_text_file", "args": []string{`{"path": "a.txt"}`}}}},
		map[string]any{"text": []string{"read"}})
	p := startRPC(t, dir, "--no-session", "--script", script, "--permission-mode", "ask", "--mcp-config", string(config))

	st := p.call("s1", map[string]any{"type": "get_state"})
	servers := st.Get("data.mcpServers").Raw
	want := `[{"name":"absent","status":"failed","transport":"stdio","tools":0,"error":"exec: \"no-such-mcp-server\": executable file not found in $PATH"},{"name":"fs","status":"connected","transport":"stdio","tools":14}]`
	if servers != want {
		t.Errorf("get_state's mcpServers:\n%s\nwant:\n%s", servers, want)
	}

	if r := p.call("p1", map[string]any{"type": "prompt", "message": "read a.txt"}); !r.Get("success").Bool() {
		t.Fatalf("prompt: %s", r.Raw)
	}
	req := p.event("extension_ui_request")
	if req.Get("method").Str != "confirm" || !strings.Contains(req.Get("title").Str, "mcp__fs__read_text_file") {
		t.Fatalf("dialog %s", req.Raw)
	}
	p.send(fmt.Sprintf(`{"type":"extension_ui_response","id":%q,"confirmed":true}`, req.Get("id").Str))
	end := p.event("tool_execution_end")
	if end.Get("isError").Bool() || end.Get("result.content.0.text").Str != "alpha\n" {
		t.Fatalf("the confirmed MCP call: %s", end.Raw)
	}
	p.event("agent_end")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.err.String())
	}
	if !strings.Contains(p.err.String(), "warning: MCP server absent failed") {
		t.Errorf("stderr %q: no warning about the failed server", p.err.String())
	}
}
