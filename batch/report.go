package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/report"
)

// results reads the result of every task folder of the batch's folder, by id.
func results(dir string) ([]Result, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	var out []Result
	for _, e := range entries {
		if !e.IsDir() || !idPattern.MatchString(e.Name()) {
			continue
		}
		r, ok, err := readResult(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// Report prints the table of a batch's folder: one row per finished task, then the totals.
// With index set, it writes the HTML index of the tasks' streams there instead.
func Report(dir, index, title string, w io.Writer) error {
	rs, err := results(dir)
	if err != nil {
		return err
	}
	if index != "" {
		var files []string
		for _, r := range rs {
			files = append(files, filepath.Join(dir, r.ID, eventsFile))
		}
		var page bytes.Buffer
		if err := report.WriteIndex(&page, files, report.Options{Title: title}); err != nil {
			return err
		}
		return writeFileAtomic(index, page.Bytes())
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "id\tstatus\texit\tcost\tduration\tattempt\t")
	var cost float64
	failed := 0
	for _, r := range rs {
		cost += r.Cost
		if r.Status != "completed" {
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t$%.4f\t%s\t%d\t\n", r.ID, r.Status, r.Exit, r.Cost, (time.Duration(r.DurationMs) * time.Millisecond).String(), r.Attempt)
	}
	fmt.Fprintf(tw, "%d tasks\t%d failed\t\t$%.4f\t\t\t\n", len(rs), failed, cost)
	return tw.Flush()
}

// Merge joins the folders of several batches (the shards of one) into out: each task folder
// is copied whole, a task finished in two folders is refused before anything is copied, and
// summary.jsonl is rebuilt. With tasks set, the tasks of that file that no folder finished
// are listed and the merge exits 1.
func Merge(dirs []string, out, tasks string, w io.Writer) error {
	from := map[string]string{}
	existing, err := results(out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, r := range existing {
		from[r.ID] = out
	}
	for _, d := range dirs {
		rs, err := results(d)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if other, dup := from[r.ID]; dup {
				return exitcode.New(exitcode.Failure, fmt.Sprintf("task %q is in both %s and %s: refusing to merge", r.ID, other, d))
			}
			from[r.ID] = d
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	unlock, err := lockDir(out)
	if err != nil {
		return err
	}
	defer unlock()
	ids := sortedKeys(from)
	for _, id := range ids {
		if from[id] == out {
			continue
		}
		if err := copyTask(filepath.Join(from[id], id), filepath.Join(out, id)); err != nil {
			return err
		}
	}
	if _, err := reconcile(out); err != nil {
		return err
	}
	var missing []string
	if tasks != "" {
		all, err := ReadTasks(tasks, nil, nil)
		if err != nil {
			return err
		}
		for _, t := range all {
			if _, ok := from[t.ID]; !ok {
				missing = append(missing, t.ID)
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.Encode(map[string]any{"type": "merge_end", "tasks": len(ids), "missing": append([]string{}, missing...)})
	if len(missing) > 0 {
		sort.Strings(missing)
		return exitcode.New(exitcode.Failure, fmt.Sprintf("%d tasks missing: %v", len(missing), missing))
	}
	return nil
}

// copyTask copies a task folder into a temporary folder beside its place, then renames it
// there: the merged folder has the task whole or not at all.
func copyTask(src, dst string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".merge-*")
	if err != nil {
		return err
	}
	err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(tmp, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(path, target)
	})
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.RemoveAll(tmp)
	}
	return err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
