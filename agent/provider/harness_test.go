// What the tests of the wire protocols (Anthropic Messages, Chat Completions, Responses)
// share: each plays the same scripts through the scripted provider and through its own
// provider over the mock server, and the two must come out the same. They live outside
// package provider because mockserver imports it.
package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/provider/mockserver"
)

// The scripts every protocol must play like the scripted provider: ours, and those of the
// reference runs.
const (
	ownScripts       = "../../testdata/scripts"
	referenceScripts = "../../testdata/reference/scripts"
)

// loadScript parses a script without its delays, so tests run fast, and returns it with its
// number of entries.
func loadScript(t *testing.T, data []byte) (*provider.Script, int) {
	t.Helper()
	var doc struct {
		Responses []map[string]json.RawMessage `json:"responses"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Responses {
		delete(r, "delay_ms")
	}
	fast, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := provider.ParseScript(fast)
	if err != nil {
		t.Fatal(err)
	}
	return s, len(doc.Responses)
}

// eachScript runs fn as a subtest for every script file, named by the tree it is in and
// its file ("testdata/a_text.json", "reference/b_tool_bash.json"). Finding none fails.
func eachScript(t *testing.T, fn func(t *testing.T, data []byte)) {
	var files []string
	for _, dir := range []string{ownScripts, referenceScripts} {
		found, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Fatal("no scripts found")
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(f)))+"/"+filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, data)
		})
	}
}

// serveScript starts the mock server playing s, closed when the test ends.
func serveScript(t *testing.T, s *provider.Script) *mockserver.Server {
	t.Helper()
	srv := mockserver.New(s)
	t.Cleanup(srv.Close)
	return srv
}

// scriptAndWire loads data twice, for the scripted provider and for a mock server, and
// returns the scripted provider, the protocol's provider that connect makes for the
// server, and the number of entries.
func scriptAndWire(t *testing.T, data []byte, connect func(*mockserver.Server) provider.Provider) (script, wire provider.Provider, entries int) {
	t.Helper()
	direct, n := loadScript(t, data)
	played, _ := loadScript(t, data)
	return direct, connect(serveScript(t, played)), n
}

// playEvents streams req through p and returns the events and the error.
func playEvents(ctx context.Context, p provider.Provider, req provider.Request) ([]provider.Event, error) {
	var evs []provider.Event
	err := p.Stream(ctx, req, func(e provider.Event) { evs = append(evs, e) })
	return evs, err
}

// requestBody decodes the body of the server's request n (from 0).
func requestBody(t *testing.T, srv *mockserver.Server, n int) map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= n {
		t.Fatalf("%d requests, want request %d", len(reqs), n+1)
	}
	var body map[string]any
	if err := json.Unmarshal(reqs[n].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// decodeJSON decodes JSON for comparisons.
func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return v
}

// jsonString encodes v for messages.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func ptr[T any](v T) *T { return &v }

// referenceScript reads a script of the reference runs.
func referenceScript(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(referenceScripts, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// summarize renders a response compactly, one token per event: blocks in order with their
// deltas joined, the finish with its usage (and cost, when there is one); response ids only
// with meta, since they differ between providers by nature.
func summarize(evs []provider.Event, meta bool) string {
	var out []string
	var delta strings.Builder
	deltas := 0
	flush := func() {
		if deltas > 0 {
			out = append(out, fmt.Sprintf("delta*%d(%s)", deltas, delta.String()))
			delta.Reset()
			deltas = 0
		}
	}
	for _, e := range evs {
		if e.Kind != provider.BlockDelta {
			flush()
		}
		switch e.Kind {
		case provider.Metadata:
			if meta {
				out = append(out, "meta("+e.ResponseID+")")
			}
		case provider.BlockStart:
			s := fmt.Sprintf("start#%d(%s", e.Block, e.BlockKind)
			if e.BlockKind == "toolCall" {
				s += " " + e.ToolCallID + " " + e.ToolName
			}
			out = append(out, s+")")
		case provider.BlockDelta:
			delta.WriteString(e.Delta)
			deltas++
		case provider.BlockEnd:
			out = append(out, fmt.Sprintf("end#%d", e.Block))
		case provider.Done:
			u := e.Usage
			done := fmt.Sprintf("done(%s %d/%d/%d/%d=%d", e.StopReason, u.Input, u.Output, u.CacheRead, u.CacheWrite, u.TotalTokens)
			if u.Cost.Total != 0 {
				done += fmt.Sprintf(" %.2fµ$", u.Cost.Total*1e6)
			}
			out = append(out, done+")")
		}
	}
	flush()
	return strings.Join(out, " ")
}
