package cli_test

import (
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/provider/mockserver"
	"github.com/rogpeppe/go-internal/testscript"
)

var (
	mockMu      sync.Mutex
	mockServers = map[*testscript.TestScript]*mockserver.Server{}
)

// cmdMockserver is the testscript command that plays a script over the real APIs' wire
// protocols:
//
//	mockserver SCRIPT          start a server; $MOCK_URL is its base URL (without /v1)
//	mockserver requests FILE   write the requests received so far to FILE, one JSON line
//	                           each: {"path":…,"headers":{…},"body":…}
//	mockserver silent          start a server that accepts connections and never answers;
//	                           $SILENT_URL is its base URL
//	mockserver refused         $REFUSED_URL is the base URL of a loopback port that was
//	                           bound and closed: connections to it are refused
func cmdMockserver(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mockserver SCRIPT | mockserver requests FILE | mockserver silent | mockserver refused")
	}
	switch args[0] {
	case "silent":
		srv, err := mockserver.Silent()
		ts.Check(err)
		ts.Setenv("SILENT_URL", srv.URL)
		ts.Defer(srv.Close)
		return
	case "refused":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		ts.Setenv("REFUSED_URL", "http://"+ln.Addr().String())
		ts.Check(ln.Close())
		return
	}
	mockMu.Lock()
	defer mockMu.Unlock()
	if args[0] == "requests" {
		srv := mockServers[ts]
		if srv == nil || len(args) != 2 {
			ts.Fatalf("mockserver requests FILE: needs a running server and a file")
		}
		f, err := os.Create(ts.MkAbs(args[1]))
		ts.Check(err)
		defer f.Close()
		enc := json.NewEncoder(f)
		for _, r := range srv.Requests() {
			headers := map[string]string{}
			for k := range r.Header {
				headers[k] = r.Header.Get(k)
			}
			ts.Check(enc.Encode(map[string]any{"path": r.Path, "headers": headers, "body": r.Body}))
		}
		return
	}
	script, err := provider.LoadScript(ts.MkAbs(args[0]))
	ts.Check(err)
	srv := mockserver.New(script)
	if old := mockServers[ts]; old != nil {
		old.Close()
	}
	mockServers[ts] = srv
	ts.Setenv("MOCK_URL", srv.URL)
	ts.Defer(func() {
		mockMu.Lock()
		defer mockMu.Unlock()
		srv.Close()
		delete(mockServers, ts)
	})
}

// cmdReplay is the testscript command that serves a recorded response body (see
// testdata/recordings) to every request:
//
//	replay FILE [STATUS]   start a server; $REPLAY_URL is its base URL. A status serves the
//	                       file as a JSON error body with it, else as an SSE stream.
func cmdReplay(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 || len(args) > 2 {
		ts.Fatalf("usage: replay FILE [STATUS]")
	}
	body, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	status := 0
	if len(args) == 2 {
		status, err = strconv.Atoi(args[1])
		ts.Check(err)
	}
	srv := httptest.NewServer(mockserver.Recording(body, status))
	ts.Setenv("REPLAY_URL", srv.URL)
	ts.Defer(srv.Close)
}
