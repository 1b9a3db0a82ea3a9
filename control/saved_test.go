package control

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run in the foreground that cannot register runs all the same, unfindable, and says so;
// its session is open and closes.
func TestOpenRunUnregistered(t *testing.T) {
	dir, cwd := t.TempDir(), t.TempDir()
	reg := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(reg, nil, 0o600); err != nil { // a file where the registry folder would be
		t.Fatal(err)
	}
	choice, err := Choose(dir, cwd, Which{}, "")
	if err != nil {
		t.Fatal(err)
	}
	src, err := choice.Load(reg)
	if err != nil {
		t.Fatal(err)
	}
	var warned []error
	rs, err := src.OpenRun(OpenOptions{Dir: dir, Cwd: cwd}, reg, nil, func(err error) { warned = append(warned, err) })
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), "will not find it") {
		t.Errorf("warnings %v", warned)
	}
	if rs.Header.ID != choice.ID || rs.Registered() {
		t.Errorf("session %s, registered %v", rs.Header.ID, rs.Registered())
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
}

// A session a run is writing is not removed; one nobody writes goes with its detached run's
// stream and exit record and its tools' outputs.
func TestRemoveSession(t *testing.T) {
	dir, reg, cwd, outputs := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	id := savedSession(t, dir, cwd)
	path := filepath.Join(dir, id+".jsonl")
	for _, p := range []string{EventsPath(reg, id), ExitPath(reg, id), filepath.Join(outputs, id, "out.txt")} {
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	outputsOf := func(id string) string { return filepath.Join(outputs, id) }

	choice, _ := Choose(dir, cwd, Which{Resume: id}, "")
	src, err := choice.Load(reg)
	if err != nil {
		t.Fatal(err)
	}
	var running *RunningError
	if _, err := RemoveSession(path, reg, outputsOf); !errors.As(err, &running) || running.ID != id {
		t.Errorf("removing a session being written: %v", err)
	}
	src.Close()
	if warnings, err := RemoveSession(path, reg, outputsOf); err != nil || len(warnings) > 0 {
		t.Fatalf("%v %v", warnings, err)
	}
	for _, p := range []string{path, EventsPath(reg, id), ExitPath(reg, id), outputsOf(id)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left: %v", p, err)
		}
	}
}
