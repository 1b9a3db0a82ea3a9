package batch_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A batch killed with kill -9 at random points, and single runs killed with kill -9, then
// started again (with --retry-failed) until it ends well: every task is in summary.jsonl
// exactly once, and no result.json or summary line is ever half-written.
func TestKilledAndResumed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a batch many times")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const n = 30
	var tasks bytes.Buffer
	for i := range n {
		fmt.Fprintf(&tasks, `{"id":"k%02d","prompt":"x"}`+"\n", i)
	}
	write(t, filepath.Join(dir, "tasks.jsonl"), tasks.String())
	write(t, filepath.Join(dir, "slow.json"), `{"responses":[{"text":["a","b","c","d","e"],"delay_ms":40}]}`)
	out := filepath.Join(dir, "out")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	kills := 0
	for round := 0; ; round++ {
		if round > 60 {
			t.Fatal("the batch never finished")
		}
		cmd := exec.Command(self, "batch", filepath.Join(dir, "tasks.jsonl"), "--out", out, "--workers", "4",
			"--retry-failed", "--no-session", "--script", filepath.Join(dir, "slow.json"))
		cmd.Env = append(os.Environ(), "BATCH_TEST_AS_CLI=1", "BASE_CONTEXT_HOME="+filepath.Join(dir, "home"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if round < 8 {
			time.Sleep(time.Duration(100+rnd.IntN(600)) * time.Millisecond)
			if round%2 == 1 {
				if kids := children(cmd.Process.Pid); len(kids) > 0 {
					syscall.Kill(kids[rnd.IntN(len(kids))], syscall.SIGKILL)
					kills++
				}
				time.Sleep(time.Duration(rnd.IntN(300)) * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
		}
		err := cmd.Wait()
		check(t, out, false)
		if err == nil {
			break
		}
		if round >= 8 {
			t.Logf("round %d: %v: %s", round, err, stderr.String())
		}
	}
	got := check(t, out, true)
	if len(got) != n {
		t.Fatalf("summary has %d tasks, want %d", len(got), n)
	}
	aside, _ := filepath.Glob(filepath.Join(out, "*", "attempt-*"))
	t.Logf("%d single runs killed, %d attempts kept aside", kills, len(aside))
}

// check verifies the folder: each result.json whole, each summary line whole and its id once,
// and, once finished, every task completed with its summary line.
func check(t *testing.T, out string, finished bool) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "summary.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		var l struct{ ID, Status string }
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("summary line %d is not whole: %q", i+1, line)
		}
		if ids[l.ID] {
			t.Fatalf("summary: %s twice", l.ID)
		}
		ids[l.ID] = true
		if finished && l.Status != "completed" {
			t.Errorf("summary: %s %s", l.ID, l.Status)
		}
	}
	results, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
	for _, r := range results {
		b, err := os.ReadFile(r)
		if err != nil || !json.Valid(b) {
			t.Fatalf("%s is not whole: %q", r, b)
		}
		if id := filepath.Base(filepath.Dir(r)); finished && !ids[id] {
			t.Errorf("%s has no summary line", id)
		}
	}
	if finished && len(results) != len(ids) {
		t.Errorf("%d results, %d summary lines", len(results), len(ids))
	}
	return ids
}

// children are the processes whose parent is pid.
func children(pid int) []int {
	var kids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			kids = append(kids, child)
		}
	}
	return kids
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
