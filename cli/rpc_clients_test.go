package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The upstream's own RpcClient (npm @mariozechner/pi-coding-agent, pinned in
// rpc/testdata/node/package.json) drives base-context through a one-line shim: prompt and
// wait, steer, follow-up, abort, bash, models, state, session stats, new_session. The
// checks are in rpc/testdata/node/client.mjs. Without node or npm the test is skipped and
// says why; without node_modules it installs them (`npm ci`, as CI does).
func TestRPCUpstreamClient(t *testing.T) {
	bin, err := exec.LookPath("base-context")
	if err != nil {
		t.Fatal(err)
	}
	runUpstreamClient(t, bin)
}

// runUpstreamClient runs rpc/testdata/node/client.mjs with bin as base-context, and fails
// the test unless it runs to its end.
func runUpstreamClient(t *testing.T, bin string) {
	t.Helper()
	node, nodeDir := upstreamNode(t)
	dir := t.TempDir()
	// The first answer streams for 1.5 s: the steer and the follow-up the client sends after
	// its first delta must arrive while it streams, on a loaded machine too (with 0.3 s a
	// steer once came after the run had ended, and started a third).
	chunks := make([]string, 50)
	for i := range chunks {
		chunks[i] = "tick "
	}
	long := make([]string, 400)
	for i := range long {
		long[i] = "tock "
	}
	script := writeScript(t, dir,
		map[string]any{"text": chunks, "delay_ms": 30, "usage": map[string]int{"input": 100, "output": 10}},
		map[string]any{"text": []string{"steered"}, "usage": map[string]int{"input": 120, "output": 1}},
		map[string]any{"text": []string{"followed"}, "usage": map[string]int{"input": 130, "output": 1}},
		map[string]any{"text": long, "delay_ms": 50},
	)
	cmd := exec.Command(node, filepath.Join(nodeDir, "client.mjs"))
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "BASE_CONTEXT_BIN="+bin, "BASE_CONTEXT_HOME="+filepath.Join(dir, ".home"),
		"WORKDIR="+dir, "SCRIPT="+script)
	out, err := cmd.CombinedOutput()
	t.Logf("client.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the upstream RpcClient failed: %v", err)
	}
	if !strings.Contains(string(out), "ok get_commands, export_html") {
		t.Fatal("client.mjs did not run to its end")
	}
}

// upstreamNode is node and the folder of the upstream's package (installed with npm ci when
// it is not); the test is skipped without node or npm.
func upstreamNode(t *testing.T) (node, nodeDir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the upstream RpcClient cannot run")
	}
	nodeDir, err = filepath.Abs("../rpc/testdata/node")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@mariozechner", "pi-coding-agent")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("npm is not installed: cannot install the upstream RpcClient")
		}
		install := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		install.Dir = nodeDir
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	return node, nodeDir
}

// The Python client of the upstream's RPC document, exactly as written there
// (rpc/testdata/example_client.py), with `pi` being base-context.
func TestRPCPythonExampleClient(t *testing.T) {
	out := runPythonExample(t, func(bin string) string { return "exec " + bin + " \"$@\"" })
	// The default script's two answers, streamed as text deltas: the second quotes the
	// listing of the folder (the test made both entries).
	if out != "Let me look at the files.These are the files in this directory:\n\n.home/\nbin/\n" {
		t.Errorf("the example printed %q", out)
	}
}

// runPythonExample runs rpc/testdata/example_client.py in a new folder with `pi` a shell
// script running the line pi(bin) names, and returns what it printed.
func runPythonExample(t *testing.T, pi func(bin string) string) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	bin, err := exec.LookPath("base-context")
	if err != nil {
		t.Fatal(err)
	}
	example, err := filepath.Abs("../rpc/testdata/example_client.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	binDir := filepath.Join(dir, "bin")
	os.Mkdir(binDir, 0o755)
	// A wrapper, not a link: the test binary acts as base-context only under that name.
	if err := os.WriteFile(filepath.Join(binDir, "pi"), []byte("#!/bin/sh\n"+pi(bin)+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, example)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "BASE_CONTEXT_HOME="+filepath.Join(dir, ".home"))
	// The wrapper's processes hold the output pipe: this returns once they have all ended.
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

// The ten-line client of docs/rpc.md works as printed there.
func TestRPCReadmeClient(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	page, err := os.ReadFile("../docs/rpc.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(page), "## A client in ten lines")
	_, code, _ := strings.Cut(section, "```python\n")
	code, _, _ = strings.Cut(code, "```")
	dir := t.TempDir()
	cmd := exec.Command(python, "-c", code)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BASE_CONTEXT_HOME="+filepath.Join(dir, ".home"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := "response: prompt True \nLet me look at the files.These are the files in this directory:\n\n.home/\n"
	if string(out) != want {
		t.Errorf("the client of docs/rpc.md printed %q, want %q", out, want)
	}
}
