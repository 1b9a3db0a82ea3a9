package batch

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestShardIsFNV1aAndPartitions(t *testing.T) {
	const n = 4
	count := make([]int, n)
	for i := range 1000 {
		id := "task-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('0'+i%10)) + strings.Repeat("y", i/26)
		h := fnv.New32a()
		h.Write([]byte(id))
		in := 0
		for s := range uint32(n) {
			if (Shard{s, n}).Has(id) {
				in++
				count[s]++
				if s != h.Sum32()%n {
					t.Fatalf("%s in shard %d, FNV-1a says %d", id, s, h.Sum32()%n)
				}
			}
		}
		if in != 1 {
			t.Fatalf("%s is in %d shards", id, in)
		}
	}
	for s, c := range count {
		if c < 150 {
			t.Errorf("shard %d has %d of 1000 tasks", s, c)
		}
	}
	for _, bad := range []string{"4/4", "1", "-1/2", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("--shard %s accepted", bad)
		}
	}
}

func TestFlagValues(t *testing.T) {
	for _, c := range []struct {
		key, json string
		want      []string
	}{
		{"no-session", `true`, []string{"--no-session"}},
		{"redact", `false`, []string{"--redact=false"}},
		{"max-turns", `5`, []string{"--max-turns=5"}},
		{"max-cost", `0.25`, []string{"--max-cost=0.25"}},
		{"allow", `["bash(git *)","read"]`, []string{"--allow=bash(git *)", "--allow=read"}},
		{"C", `"sub dir"`, []string{"-C=sub dir"}},
	} {
		got, err := flagValues(c.key, []byte(c.json))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s: got %q, %v; want %q", c.key, c.json, got, err, c.want)
		}
	}
	if _, err := flagValues("x", []byte(`{"a":1}`)); err == nil {
		t.Error("an object value accepted")
	}
}

// reconcile keeps one line per result, first lines as they were, adds the lines of results
// that lost theirs, drops lines without a result and a torn last line.
func TestReconcile(t *testing.T) {
	out := t.TempDir()
	for _, id := range []string{"a", "b", "c"} {
		os.Mkdir(filepath.Join(out, id), 0o755)
		if err := writeFileAtomic(filepath.Join(out, id, resultFile), []byte(`{"id":"`+id+`","status":"completed","exit":0,"durationMs":1,"cost":0.5,"attempt":1,"verdict":{}}`)); err != nil {
			t.Fatal(err)
		}
	}
	summary := `{"id":"b","status":"completed","exit":0, "durationMs":7,"cost":0.5}` + "\n" + // kept byte for byte
		`{"id":"gone","status":"failed"}` + "\n" +
		`{"id":"b","status":"failed"}` + "\n" +
		`{"id":"a","stat`
	os.WriteFile(filepath.Join(out, summaryFile), []byte(summary), 0o644)
	results, err := reconcile(out)
	if err != nil || len(results) != 3 {
		t.Fatal(results, err)
	}
	got, _ := os.ReadFile(filepath.Join(out, summaryFile))
	want := `{"id":"b","status":"completed","exit":0, "durationMs":7,"cost":0.5}` + "\n" +
		`{"id":"a","status":"completed","exit":0,"durationMs":1,"cost":0.5}` + "\n" +
		`{"id":"c","status":"completed","exit":0,"durationMs":1,"cost":0.5}` + "\n"
	if string(got) != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

// TestDefaultWorkers: one worker per CPU only when every task, with the batch's defaults,
// stays on the offline scripted provider.
func TestDefaultWorkers(t *testing.T) {
	const cpus = 8
	for _, c := range []struct {
		defaults []string
		tasks    string
		want     int
	}{
		{nil, `{"id":"a","prompt":"p"}`, cpus},
		{nil, `{"id":"a","prompt":"p","model":"script/default"}` + "\n" + `{"id":"b","prompt":"p","flags":{"model":"script/other"}}`, cpus},
		{[]string{"--model", "script/x"}, `{"id":"a","prompt":"p"}`, cpus},
		{[]string{"--model", "anthropic/claude-sonnet-4-5"}, `{"id":"a","prompt":"p"}`, 2},
		{[]string{"--model", "anthropic/claude-sonnet-4-5"}, `{"id":"a","prompt":"p","model":"script/default"}`, cpus}, // the task's own wins
		{nil, `{"id":"a","prompt":"p"}` + "\n" + `{"id":"b","prompt":"p","model":"openai/gpt-5"}`, 2},
		{[]string{"--provider=openai", "--model=gpt-5"}, `{"id":"a","prompt":"p"}`, 2},
		{[]string{"--provider", "script", "--model", "default"}, `{"id":"a","prompt":"p"}`, cpus},
	} {
		path := filepath.Join(t.TempDir(), "tasks.jsonl")
		if err := os.WriteFile(path, []byte(c.tasks+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		tasks, err := ReadTasks(path, c.defaults, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := defaultWorkers(tasks, cpus); got != c.want {
			t.Errorf("defaults %q, tasks %s: %d workers, want %d", c.defaults, c.tasks, got, c.want)
		}
	}
}
