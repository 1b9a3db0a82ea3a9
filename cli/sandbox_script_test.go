package cli_test

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/basecontext/base-context/sandbox"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdTCPListen: `tcplisten VAR` listens on 127.0.0.1 (a free port) until the script ends,
// accepting and closing connections, and sets VAR to the port: a target for the sandbox's
// network rules.
func cmdTCPListen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tcplisten VAR")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ts.Setenv(args[0], strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// scriptCondition: [landlock] holds where this kernel enforces --sandbox workspace-write
// (Landlock ABI 4: filesystem, truncation and TCP rules); [root] when the tests run as root.
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "landlock":
		return sandbox.Probe().Require(sandbox.WorkspaceWrite, false) == nil, nil
	case "root":
		return os.Geteuid() == 0, nil
	case "mcpservers": // the reference MCP servers are installed (npm ci in mcp/testdata/node)
		_, err := os.Stat("../mcp/testdata/node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
		return err == nil, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
