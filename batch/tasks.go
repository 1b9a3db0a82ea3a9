// Package batch runs many tasks, each a run of base-context in a child process, into one
// output folder: resumable (a task whose result.json exists is done), exact (summary.jsonl
// holds each finished task once), bounded (workers, cost, time, shared back-off on rate
// limits) and split across machines by shards (docs/batch.md).
package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/basecontext/base-context/internal/exitcode"
)

// Task is one line of the tasks file.
type Task struct {
	ID      string
	Prompts []string
	Cwd     string   // "": the batch's; relative: to the tasks file's folder
	Args    []string // run flags: the batch's defaults, then the task's own
	Line    int
	Model   string
}

// idPattern keeps an id usable as a folder name on every system.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)

// reservedFlags are run flags a batch sets itself.
var reservedFlags = map[string]string{
	"mode":  "the batch runs every task with --mode json",
	"print": "the batch runs every task with --mode json",
	"p":     "the batch runs every task with --mode json",
}

// ReadTasks reads the tasks file. validate parses run flags as the run command would (nil:
// no check); defaults are the batch's run flags, which every task starts from. A bad line is
// a usage error naming the line and what is wrong.
func ReadTasks(path string, defaults []string, validate func([]string) error) ([]Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	base := filepath.Dir(path)
	if validate != nil { // tasks mostly share their flags: each set is parsed once
		checked := map[string]error{}
		parse := validate
		validate = func(args []string) error {
			key := strings.Join(args, "\x00")
			err, ok := checked[key]
			if !ok {
				err = parse(args)
				checked[key] = err
			}
			return err
		}
	}
	var tasks []Task
	seen := map[string]int{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		t, err := parseTask(line, base, defaults, validate)
		if err != nil {
			return nil, exitcode.New(exitcode.Usage, fmt.Sprintf("%s:%d: %v", path, n+1, err))
		}
		if first, dup := seen[t.ID]; dup {
			return nil, exitcode.New(exitcode.Usage, fmt.Sprintf("%s:%d: id %q is also on line %d", path, n+1, t.ID, first))
		}
		t.Line = n + 1
		seen[t.ID] = t.Line
		tasks = append(tasks, t)
	}
	return tasks, nil
}

func parseTask(line []byte, base string, defaults []string, validate func([]string) error) (Task, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Task{}, fmt.Errorf("not a JSON object: %v", err)
	}
	var t Task
	for _, key := range sortedKeys(raw) {
		v := raw[key]
		var err error
		switch key {
		case "id":
			err = json.Unmarshal(v, &t.ID)
		case "prompt":
			var one string
			if err = json.Unmarshal(v, &one); err == nil {
				t.Prompts = []string{one}
			} else {
				err = json.Unmarshal(v, &t.Prompts)
			}
		case "cwd":
			err = json.Unmarshal(v, &t.Cwd)
		case "model":
			err = json.Unmarshal(v, &t.Model)
		case "flags":
		default:
			return Task{}, fmt.Errorf("unknown key %q (keys: id, prompt, cwd, model, flags)", key)
		}
		if err != nil {
			return Task{}, fmt.Errorf("%s: %v", key, err)
		}
	}
	if !idPattern.MatchString(t.ID) {
		return Task{}, fmt.Errorf("id %q: want 1-128 letters, digits, '.', '_' or '-', not starting with '.' or '-'", t.ID)
	}
	if len(t.Prompts) == 0 {
		return Task{}, fmt.Errorf("prompt: missing (a string or a list of strings)")
	}
	if t.Cwd != "" && !filepath.IsAbs(t.Cwd) {
		t.Cwd = filepath.Join(base, t.Cwd)
	}
	t.Args = append([]string(nil), defaults...)
	if t.Model != "" {
		t.Args = append(t.Args, "--model="+t.Model)
	}
	if f, ok := raw["flags"]; ok {
		args, err := flagArgs(f, validate)
		if err != nil {
			return Task{}, err
		}
		t.Args = append(t.Args, args...)
	}
	if validate != nil {
		if err := validate(t.Args); err != nil {
			return Task{}, err
		}
	}
	return t, nil
}

// flagArgs turns the flags object into run flags, checking each key on its own so that an
// error names it.
func flagArgs(raw json.RawMessage, validate func([]string) error) ([]string, error) {
	var flags map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&flags); err != nil {
		return nil, fmt.Errorf("flags: want an object of run flags: %v", err)
	}
	var args []string
	for _, key := range sortedKeys(flags) {
		if why, ok := reservedFlags[key]; ok {
			return nil, fmt.Errorf("flags: key %q: %s", key, why)
		}
		own, err := flagValues(key, flags[key])
		if err == nil && validate != nil {
			err = validate(own)
		}
		if err != nil {
			return nil, fmt.Errorf("flags: key %q: %v", key, err)
		}
		args = append(args, own...)
	}
	return args, nil
}

// flagValues renders one flag: true is the bare flag, a list repeats it.
func flagValues(key string, raw json.RawMessage) ([]string, error) {
	name := "--" + key
	if len(key) == 1 {
		name = "-" + key
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	one := func(v any) (string, error) {
		switch x := v.(type) {
		case bool:
			if x {
				return name, nil
			}
			return name + "=false", nil
		case string:
			return name + "=" + x, nil
		case json.Number:
			return name + "=" + x.String(), nil
		}
		return "", fmt.Errorf("want a string, number, boolean or a list of them")
	}
	if list, ok := v.([]any); ok {
		var out []string
		for _, e := range list {
			s, err := one(e)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, err := one(v)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Shard is I of N: the tasks whose id hashes to I.
type Shard struct{ I, N uint32 }

// ParseShard reads "I/N" ("": all tasks).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{0, 1}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.ParseUint(i, 10, 32)
	b, err2 := strconv.ParseUint(n, 10, 32)
	if !ok || err1 != nil || err2 != nil || b == 0 || a >= b {
		return Shard{}, exitcode.New(exitcode.Usage, fmt.Sprintf("--shard %q: want I/N with 0 <= I < N", s))
	}
	return Shard{uint32(a), uint32(b)}, nil
}

// Has says whether the task with this id belongs to the shard: FNV-1a of the id, modulo N,
// the same on every machine and every run.
func (s Shard) Has(id string) bool {
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h ^= uint32(id[i])
		h *= 16777619
	}
	return h%s.N == s.I
}

// scanLines calls fn with each complete line of the file (a last line without its newline was
// cut by a crash and is left out); a missing file has none.
func scanLines(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil
		}
		if err := fn(line[:len(line)-1]); err != nil {
			return err
		}
	}
}
