package control

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// KeepEnded is how long the stream and exit record of a resident run that has ended stay in
// the registry folder for attach to replay, counted from the last write to either.
const KeepEnded = 7 * 24 * time.Hour

// Prune removes from dir what ended runs left behind and nobody has touched since before:
// the events file and exit record of a resident run that is no longer running (ended, or
// killed without a record), and temporary files of writes cut by a crash. The files of a
// live run are kept, however old. It returns how many files it removed.
func Prune(dir string, before time.Time) (int, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	removed := 0
	remove := func(name string) {
		if err := os.Remove(filepath.Join(dir, name)); err == nil {
			removed++
		}
	}
	old := func(name string) bool {
		st, err := os.Lstat(filepath.Join(dir, name))
		return err == nil && st.Mode().IsRegular() && st.ModTime().Before(before)
	}
	runs := map[string]bool{} // ids with an events file or exit record
	for _, de := range des {
		name := de.Name()
		switch {
		case strings.HasSuffix(name, ".tmp"):
			if old(name) {
				remove(name)
			}
		case strings.HasSuffix(name, ".events.jsonl"):
			runs[strings.TrimSuffix(name, ".events.jsonl")] = true
		case strings.HasSuffix(name, ".exit"):
			runs[strings.TrimSuffix(name, ".exit")] = true
		}
	}
	for id := range runs {
		if !validID(id) {
			continue
		}
		events, exit := id+".events.jsonl", id+".exit"
		_, evErr := os.Lstat(filepath.Join(dir, events))
		_, exErr := os.Lstat(filepath.Join(dir, exit))
		// Both must be old (or absent): a new run of the session rewrites them.
		if (evErr == nil && !old(events)) || (exErr == nil && !old(exit)) {
			continue
		}
		if _, alive := Get(dir, id); alive {
			continue // a long, quiet run: its stream is still being written
		}
		remove(exit) // the record first, so that no record is left without its stream
		remove(events)
	}
	return removed, nil
}

// ParseAge reads an age: a number of days (30d) or a Go duration (12h, 90m).
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q: expected a positive number of days (30d) or a duration (12h)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: expected a positive number of days (30d) or a duration (12h)", s)
	}
	return d, nil
}
