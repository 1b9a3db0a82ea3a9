package tools

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// PruneOutputs removes the full outputs written before the cut-off, and the session
// folders it empties; newer files and their folders stay.
func TestPruneOutputs(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-8 * 24 * time.Hour)
	write := func(rel string, mtime time.Time) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("out"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := write("s1/base-context-1.txt", old)
	oldInMixed := write("s2/base-context-2.txt", old)
	fresh := write("s2/base-context-3.txt", time.Now())
	if n := PruneOutputs(root, time.Now().Add(-7*24*time.Hour)); n != 2 {
		t.Errorf("removed %d files, want 2", n)
	}
	for _, p := range []string{gone, oldInMixed, filepath.Dir(gone)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", p, err)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("the fresh output went: %v", err)
	}
	if n := PruneOutputs(filepath.Join(root, "missing"), time.Now()); n != 0 {
		t.Errorf("removed %d files of a missing folder", n)
	}
}
