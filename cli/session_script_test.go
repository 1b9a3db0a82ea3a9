package cli_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitforLimit bounds a waitfor: long enough for the slowest machine, short enough that a
// test that cannot pass fails instead of hanging.
const waitforLimit = time.Minute

// cmdWaitfor is the testscript command that waits for something a background process
// writes, instead of sleeping and hoping:
//
//	waitfor FILE REGEXP    until FILE exists and matches REGEXP (multi-line mode)
//	! waitfor FILE         until FILE no longer exists
func cmdWaitfor(ts *testscript.TestScript, neg bool, args []string) {
	if (neg && len(args) != 1) || (!neg && len(args) != 2) {
		ts.Fatalf("usage: waitfor FILE REGEXP | ! waitfor FILE")
	}
	path := ts.MkAbs(args[0])
	var re *regexp.Regexp
	if !neg {
		var err error
		re, err = regexp.Compile("(?m)" + args[1])
		ts.Check(err)
	}
	deadline := time.Now().Add(waitforLimit)
	for {
		data, err := os.ReadFile(path)
		if neg && os.IsNotExist(err) {
			return
		}
		if !neg && err == nil && re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			if neg {
				ts.Fatalf("waitfor: %s still exists after %v", args[0], waitforLimit)
			}
			ts.Fatalf("waitfor: no match for %q in %s after %v", args[1], args[0], waitforLimit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdHeaderID is the testscript command that records a run's session id, as a client
// would from the first line of the stream:
//
//	headerid VAR FILE    set $VAR to the "id" of FILE's first line
func cmdHeaderID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: headerid VAR FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	first, _, _ := strings.Cut(string(data), "\n")
	var h struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if err := json.Unmarshal([]byte(first), &h); err != nil || h.Type != "session" || h.ID == "" {
		ts.Fatalf("headerid: the first line of %s is not a session header: %q", args[1], first)
	}
	ts.Setenv(args[0], h.ID)
}
