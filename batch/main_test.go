package batch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basecontext/base-context/batch"
	"github.com/basecontext/base-context/cli"
)

// The test binary is also base-context: the batch runs its tasks as children of its own
// executable, which is this binary when the variable says so.
func TestMain(m *testing.M) {
	if os.Getenv("BATCH_TEST_AS_CLI") == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// On a terminal, stderr shows the progress line; a task run with --output-schema has the
// value of its answer in result.json.
func TestProgressLineAndOutputValue(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BATCH_TEST_AS_CLI", "1")
	dir := t.TempDir()
	t.Setenv("BASE_CONTEXT_HOME", filepath.Join(dir, "home"))
	write(t, filepath.Join(dir, "schema.json"), `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	write(t, filepath.Join(dir, "fenced.json"), `{"responses":[{"text":["Done.\n\n`+"```json\\n"+`{\"ok\": true}\n`+"```"+`"]}]}`)
	write(t, filepath.Join(dir, "tasks.jsonl"), `{"id":"plain","prompt":"x"}
{"id":"schema","prompt":"x","cwd":".","flags":{"script":"fenced.json","output-schema":"schema.json"}}
`)
	var stdout, stderr bytes.Buffer
	err = batch.Run(batch.Config{
		Flags: batch.Flags{Out: filepath.Join(dir, "out"), Workers: 1},
		Tasks: filepath.Join(dir, "tasks.jsonl"), Defaults: []string{"--no-session"}, Exe: self,
		Process: batch.Process{Ctx: context.Background(), Stdout: &stdout, Stderr: &stderr, Live: true},
	})
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "out", "schema", "stderr.log"))
		t.Fatalf("%v\n%s\n%s", err, stderr.String(), log)
	}
	if !strings.Contains(stderr.String(), "batch: 2/2 done, 0 running, 0 failed, $0.0000, ETA 0s") {
		t.Errorf("no progress line on the terminal: %q", stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "out", "schema", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r batch.Result
	if err := json.Unmarshal(data, &r); err != nil || string(r.Output) != `{"ok": true}` && string(r.Output) != `{"ok":true}` {
		t.Errorf("output %s (%v) in %s", r.Output, err, data)
	}
}
