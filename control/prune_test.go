package control

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

func TestPruneRemovesWhatOldEndedRunsLeft(t *testing.T) {
	dir := shortDir(t)
	srv, _, _ := serve(t, dir, "live") // a long, quiet resident run: its files are kept
	defer srv.Close()
	write := func(name string, age time.Duration) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	week, hour := KeepEnded+time.Hour, time.Hour
	write("live.events.jsonl", week)
	write("ended.events.jsonl", week) // ended long ago: both files go
	write("ended.exit", week)
	write("killed.events.jsonl", week) // killed without a record: its stream goes
	write("recent.events.jsonl", week) // the stream is old but the record new: kept
	write("recent.exit", hour)
	write("fresh.events.jsonl", hour) // a new run's stream, not registered yet: kept
	write("ended.exit.0a1b2c3d.tmp", week)
	write("fresh.0a1b2c3d.tmp", hour)
	write("notes.txt", week) // not ours: kept

	n, err := Prune(dir, time.Now().Add(-KeepEnded))
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("removed %d files, want 4", n)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, de := range des {
		got = append(got, de.Name())
	}
	sort.Strings(got)
	want := []string{"fresh.0a1b2c3d.tmp", "fresh.events.jsonl", "live", "live.events.jsonl", "live.sock",
		"notes.txt", "recent.events.jsonl", "recent.exit"}
	if len(got) != len(want) {
		t.Fatalf("left %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("left %v, want %v", got, want)
		}
	}
	// No registry folder: nothing to do.
	if n, err := Prune(filepath.Join(dir, "none"), time.Now()); n != 0 || err != nil {
		t.Fatalf("missing folder: %d, %v", n, err)
	}
}
