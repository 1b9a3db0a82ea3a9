package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/basecontext/base-context/internal/atomicfile"
)

// Result is DIR/<id>/result.json: how the task's run ended.
type Result struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"` // the verdict on the stream (filter verdict)
	Exit       int             `json:"exit"`   // the run's exit status; 128+N when killed by signal N
	Signal     string          `json:"signal,omitempty"`
	TimedOut   bool            `json:"timedOut,omitempty"`
	DurationMs int64           `json:"durationMs"`
	Cost       float64         `json:"cost"`
	SessionID  string          `json:"sessionId,omitempty"`
	Attempt    int             `json:"attempt"`
	Output     json.RawMessage `json:"output,omitempty"` // the --output-schema value
	Verdict    json.RawMessage `json:"verdict"`          // filter verdict's summary line
}

// summaryLine is the task's line in summary.jsonl.
func (r *Result) summaryLine() []byte {
	b, _ := json.Marshal(struct {
		ID         string  `json:"id"`
		Status     string  `json:"status"`
		Exit       int     `json:"exit"`
		DurationMs int64   `json:"durationMs"`
		Cost       float64 `json:"cost"`
		SessionID  string  `json:"sessionId,omitempty"`
	}{r.ID, r.Status, r.Exit, r.DurationMs, r.Cost, r.SessionID})
	return append(b, '\n')
}

const (
	resultFile  = "result.json"
	eventsFile  = "events.jsonl"
	stderrFile  = "stderr.log"
	summaryFile = "summary.jsonl"
)

// readResult reads DIR/<id>/result.json; ok is false when there is none.
func readResult(dir string) (r Result, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, resultFile))
	if os.IsNotExist(err) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, false, fmt.Errorf("%s: %v", filepath.Join(dir, resultFile), err)
	}
	return r, true, nil
}

// writeFileAtomic writes the file whole or not at all, the rename synced.
func writeFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o644) }

// removeTemps removes the temporary files a killed batch left in dir before their rename.
func removeTemps(dir string) {
	temps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
	for _, t := range temps {
		os.Remove(t)
	}
}

// appendLine appends one line with a single write, then syncs: a reader sees the line
// whole or not at all.
func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// keepAside moves what a cut or retried attempt left in the task's folder into
// attempt-N (the next free N), so that the next attempt starts clean and nothing is lost.
func keepAside(dir string, names ...string) error {
	var present []string
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			present = append(present, n)
		}
	}
	if len(present) == 0 {
		return nil
	}
	n := attempts(dir) + 1
	aside := filepath.Join(dir, fmt.Sprintf("attempt-%d", n))
	if err := os.Mkdir(aside, 0o755); err != nil {
		return err
	}
	for _, name := range present {
		if err := os.Rename(filepath.Join(dir, name), filepath.Join(aside, name)); err != nil {
			return err
		}
	}
	atomicfile.SyncDir(dir)
	return nil
}

// attempts is the number of attempts kept aside in the task's folder.
func attempts(dir string) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "attempt-") {
			n++
		}
	}
	return n
}

// reconcile makes summary.jsonl say exactly what the result files say: one line per task
// folder with a result.json, in the order the lines were written, the first line of an id
// kept as it is; a line without its result (a task retried, or a result removed) goes, and
// a result without its line (the batch was killed between the two writes) gets one. The
// file is rewritten, atomically, only when it changes.
func reconcile(out string) (map[string]Result, error) {
	results := map[string]Result{}
	entries, err := os.ReadDir(out)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() || !idPattern.MatchString(e.Name()) {
			continue
		}
		r, ok, err := readResult(filepath.Join(out, e.Name()))
		if err != nil {
			return nil, err
		}
		if ok {
			results[e.Name()] = r
		}
	}
	removeTemps(out)
	path := filepath.Join(out, summaryFile)
	old, _ := os.ReadFile(path)
	var kept bytes.Buffer
	listed := map[string]bool{}
	err = scanLines(path, func(line []byte) error {
		var head struct{ ID string }
		if json.Unmarshal(line, &head) != nil || listed[head.ID] {
			return nil
		}
		if _, ok := results[head.ID]; ok {
			listed[head.ID] = true
			kept.Write(line)
			kept.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, id := range sortedKeys(results) {
		if !listed[id] {
			r := results[id]
			kept.Write(r.summaryLine())
		}
	}
	if !bytes.Equal(old, kept.Bytes()) && (len(old) > 0 || kept.Len() > 0) {
		if err := writeFileAtomic(path, kept.Bytes()); err != nil {
			return nil, err
		}
	}
	return results, nil
}
