package cli_test

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/basecontext/base-context/control"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdControlRaw is the testscript command that speaks to a run's control socket as any
// client could, byte for byte:
//
//	controlraw ID REQUEST    send REQUEST (or the contents of FILE for @FILE) and a line
//	                         break to the socket of running session ID; print the reply line
func cmdControlRaw(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: controlraw ID REQUEST|@FILE")
	}
	e, ok := control.Get(filepath.Join(ts.Getenv("BASE_CONTEXT_HOME"), "run"), args[0])
	if !ok {
		ts.Fatalf("controlraw: session %s is not running", args[0])
	}
	req := args[1]
	if name, ok := strings.CutPrefix(req, "@"); ok {
		data, err := os.ReadFile(ts.MkAbs(name))
		ts.Check(err)
		req = string(data)
	}
	c, err := net.Dial("unix", e.Socket)
	ts.Check(err)
	defer c.Close()
	go c.Write([]byte(req + "\n")) // the run may refuse before reading it all
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		ts.Fatalf("controlraw: no reply: %v", err)
	}
	ts.Stdout().Write([]byte(reply))
}
