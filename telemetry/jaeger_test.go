package telemetry_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// JaegerEnv names the Jaeger binary TestJaeger exports to (scripts/jaeger/build prints it;
// .ci/run sets it).
const JaegerEnv = "BASE_CONTEXT_JAEGER"

// jaeger is a Jaeger all-in-one with in-memory storage on loopback ports.
type jaeger struct {
	otlp, grpc, query string // OTLP over HTTP and over gRPC, the query API: http://127.0.0.1:port
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func startJaeger(t *testing.T) jaeger {
	bin := os.Getenv(JaegerEnv)
	if bin == "" {
		t.Skipf("%s is not set: build Jaeger v1.75.0 with scripts/jaeger/build and set %s to the path it prints (.ci/run does both)", JaegerEnv, JaegerEnv)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s=%s: %v (scripts/jaeger/build builds it)", JaegerEnv, bin, err)
	}
	dir := t.TempDir()
	ports := make([]int, 5)
	for i := range ports {
		ports[i] = freePort(t)
	}
	config := fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 1000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
      grpc:
        endpoint: 127.0.0.1:%d
processors:
  batch:
    timeout: 50ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`, ports[0], ports[1], ports[2], ports[3])
	cfg := filepath.Join(dir, "jaeger.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--config", "file:"+cfg)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("jaeger's output:\n%s", logs.String())
		}
	})
	j := jaeger{otlp: fmt.Sprintf("http://127.0.0.1:%d", ports[2]), grpc: fmt.Sprintf("http://127.0.0.1:%d", ports[3]), query: fmt.Sprintf("http://127.0.0.1:%d", ports[0])}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(j.query + "/api/services"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger did not answer on %s:\n%s", j.query, logs.String())
		}
	}
	return j
}

// A span as Jaeger's HTTP API returns it.
type jaegerSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

func (s jaegerSpan) tag(key string) any {
	for _, t := range s.Tags {
		if t.Key == key {
			return t.Value
		}
	}
	return nil
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// traces returns the traces of service, waiting until there are want of them.
func (j jaeger) traces(t *testing.T, service string, want int) [][]jaegerSpan {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		resp, err := http.Get(j.query + "/api/traces?limit=20&service=" + service)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Data []struct {
				Spans []jaegerSpan `json:"spans"`
			} `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(body.Data) >= want {
			var out [][]jaegerSpan
			for _, d := range body.Data {
				out = append(out, d.Spans)
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger has %d traces of %s, want %d", len(body.Data), service, want)
		}
	}
}

// buildBinary builds base-context into a temporary folder.
func buildBinary(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "base-context")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/basecontext/base-context/cmd/base-context").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

const jaegerScript = `{"responses": [
  {"text": ["Checking."],
   "tool_calls": [{"id": "call_tp", "name": "bash", "args": ["{\"command\": \"echo $TRACEPARENT > traceparent.txt\"}"]},
                  {"id": "call_rm", "name": "bash", "args": ["{\"command\": \"rm -rf build\"}"]}],
   "usage": {"input": 200, "output": 15}},
  {"text": ["Done."], "usage": {"input": 260, "output": 9}}
]}`

// The agent on the scripted provider with --otel, into a real Jaeger: the tree Jaeger
// shows; the same recording through filter otel; a collector that is down; a run stopped by
// a signal.
func TestJaeger(t *testing.T) {
	j := startJaeger(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(jaegerScript), 0o644); err != nil {
		t.Fatal(err)
	}
	protocol := "http/protobuf"
	env := func(service, endpoint string) []string {
		return append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL="+protocol, "OTEL_SERVICE_NAME="+service,
			"BASE_CONTEXT_HOME="+filepath.Join(dir, "home"), "TRACEPARENT=")
	}
	run := func(service, endpoint string, args ...string) (stdout, stderr string, code int, took time.Duration) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env(service, endpoint)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		err := cmd.Run()
		took = time.Since(start)
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code, took
	}
	agentArgs := []string{"--mode", "json", "--script", script, "--no-session", "--deny", "bash(rm *)", "--otel", "work"}

	stream, stderr, code, _ := run("bc-live", j.otlp, agentArgs...)
	if code != 0 || stderr != "" {
		t.Fatalf("run: status %d, stderr %q", code, stderr)
	}
	spans := j.traces(t, "bc-live", 1)
	if len(spans) != 1 {
		t.Fatalf("%d traces for one run", len(spans))
	}
	checkTree(t, spans[0], dir)

	// The recording, through filter otel: the same tree, the stream unchanged.
	rec := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(rec, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code, _ := run("bc-filter", j.otlp, "filter", "otel", rec)
	if code != 0 || stderr != "" || out != stream {
		t.Fatalf("filter otel: status %d, stderr %q, stream changed: %v", code, stderr, out != stream)
	}
	checkTree(t, j.traces(t, "bc-filter", 1)[0], "")
	protocol = "grpc"
	if _, stderr, code, _ := run("bc-grpc", j.grpc, "filter", "otel", rec); code != 0 || stderr != "" {
		t.Fatalf("filter otel over grpc: status %d, stderr %q", code, stderr)
	}
	checkTree(t, j.traces(t, "bc-grpc", 1)[0], "")
	protocol = "http/protobuf"

	// --otel-content: the prompt and the tool's arguments, redacted by the run's rules (the
	// default ones here) though the stream is not.
	token := "ghp_" + strings.Repeat("a1b2c3", 6) // made here: the repository holds no secret-looking text
	stream, _, _, _ = run("bc-content", j.otlp, append(slices.Clone(agentArgs[:len(agentArgs)-1]), "--otel-content", "work with "+token)...)
	j.traces(t, "bc-content", 1)
	resp, err := http.Get(j.query + "/api/traces?service=bc-content")
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	raw.ReadFrom(resp.Body)
	resp.Body.Close()
	if !strings.Contains(stream, token) || strings.Contains(raw.String(), token) ||
		!strings.Contains(raw.String(), "[REDACTED:github-pat]") || !strings.Contains(raw.String(), "traceparent.txt") {
		t.Errorf("--otel-content: the stream holds the token %v; the trace:\n%s", strings.Contains(stream, token), raw.String())
	}

	// A collector that is down: the run ends within the bound, one warning, same status.
	down := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	_, stderr, code, took := run("bc-down", down, append(agentArgs, "--otel-timeout", "1s")...)
	if code != 0 {
		t.Errorf("with the collector down: status %d", code)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "warning: telemetry: ") || !strings.Contains(lines[0], down) {
		t.Errorf("with the collector down, stderr:\n%s", stderr)
	}
	if took > 10*time.Second {
		t.Errorf("with the collector down, the run took %v (--otel-timeout 1s)", took)
	}

	t.Run("signal", func(t *testing.T) {
		flushOnSignal(t, j, bin, dir, func(service string) []string { return env(service, j.otlp) })
	})
}

const stallScript = `{"responses": [
  {"text": ["Waiting."], "tool_calls": [{"id": "call_sleep", "name": "bash", "args": ["{\"command\": \"sleep 60\"}"]}], "usage": {"input": 100, "output": 5}},
  {"text": ["Never."], "usage": {"input": 1, "output": 1}}
]}`

// flushOnSignal: a run stopped by SIGINT or SIGTERM while a tool runs still exports its
// trace before it exits with 130 or 143: the root, the model call, and the tool call cut
// short. env is the environment of a run exporting as service.
func flushOnSignal(t *testing.T, j jaeger, bin, dir string, env func(service string) []string) {
	script := filepath.Join(dir, "stall.json")
	if err := os.WriteFile(script, []byte(stallScript), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []struct {
		signal os.Signal
		code   int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		service := fmt.Sprintf("bc-signal-%d", sig.code)
		cmd := exec.Command(bin, "--mode", "json", "--script", script, "--no-session", "--otel", "wait")
		cmd.Dir, cmd.Env = dir, env(service)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() && !strings.HasPrefix(lines.Text(), `{"type":"tool_execution_start"`) {
		}
		if err := cmd.Process.Signal(sig.signal); err != nil {
			t.Fatal(err)
		}
		var last string
		for lines.Scan() {
			last = lines.Text()
		}
		err = cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != sig.code {
			t.Fatalf("%v: %v, want status %d; stderr:\n%s", sig.signal, err, sig.code, errb.String())
		}
		if !strings.HasPrefix(last, `{"type":"agent_end"`) {
			t.Errorf("%v: the stream ends with %.80s", sig.signal, last)
		}
		spans := j.traces(t, service, 1)[0]
		names := map[string]int{}
		for _, s := range spans {
			names[s.OperationName]++
		}
		if names["invoke_agent base-context"] != 1 || names["chat default"] != 1 || names["execute_tool bash"] != 1 {
			t.Errorf("%v: spans %v", sig.signal, names)
		}
	}
}

// checkTree checks the trace of the scripted run: the root; two chat spans with their token
// counts; two tool spans under the root, the refused one in error; the bash tool's command
// saw TRACEPARENT of its span (when dir, where it wrote it, is given).
func checkTree(t *testing.T, spans []jaegerSpan, dir string) {
	t.Helper()
	byName := map[string][]jaegerSpan{}
	for _, s := range spans {
		byName[s.OperationName] = append(byName[s.OperationName], s)
	}
	roots := byName["invoke_agent base-context"]
	if len(roots) != 1 || roots[0].parent() != "" {
		t.Fatalf("roots: %+v (spans %v)", roots, byName)
	}
	root := roots[0]
	if root.tag("gen_ai.usage.input_tokens") != float64(460) || root.tag("gen_ai.conversation.id") == nil {
		t.Errorf("root tags %+v", root.Tags)
	}
	chats := byName["chat default"]
	if len(chats) != 2 {
		t.Fatalf("chat spans %v", byName)
	}
	in := map[any]bool{}
	for _, c := range chats {
		in[c.tag("gen_ai.usage.input_tokens")] = true
		if c.parent() != root.SpanID || c.tag("gen_ai.operation.name") != "chat" {
			t.Errorf("chat span %+v", c)
		}
	}
	if !in[float64(200)] || !in[float64(260)] {
		t.Errorf("chat input tokens %v", in)
	}
	tools := byName["execute_tool bash"]
	if len(tools) != 2 {
		t.Fatalf("tool spans %v", byName)
	}
	for _, s := range tools {
		if s.parent() != root.SpanID {
			t.Errorf("tool span %s not under the root", s.tag("gen_ai.tool.call.id"))
		}
		refused := s.tag("gen_ai.tool.call.id") == "call_rm"
		if (s.tag("error") == true) != refused || refused && s.tag("error.type") != "refused" {
			t.Errorf("tool span %s: error %v, error.type %v", s.tag("gen_ai.tool.call.id"), s.tag("error"), s.tag("error.type"))
		}
		if !refused && dir != "" {
			tp, _ := os.ReadFile(filepath.Join(dir, "traceparent.txt"))
			if want := "00-" + s.TraceID + "-" + s.SpanID + "-01"; strings.TrimSpace(string(tp)) != want {
				t.Errorf("the tool's command saw TRACEPARENT %q, want %q", tp, want)
			}
		}
	}
}
