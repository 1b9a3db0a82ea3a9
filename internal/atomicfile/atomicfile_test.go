package atomicfile

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteReplacesWhole: the file has the new content and mode, no temporary file is
// left, and readers during concurrent writes see one whole version, never a mix.
func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, write := range []func(string, []byte, os.FileMode) error{Write, WriteCache} {
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := write(path, []byte("new content"), 0o644); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		st, _ := os.Stat(path)
		if err != nil || string(data) != "new content" || st.Mode().Perm() != 0o644 {
			t.Fatalf("after the write: %q, %v, mode %v", data, err, st.Mode())
		}
	}
	versions := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 8 {
		v := string(rune('a'+i)) + string(make([]byte, 64<<10))
		versions[v] = true
		wg.Go(func() {
			for range 20 {
				if err := Write(path, []byte(v), 0o644); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for range 200 {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(data); s != "new content" && !versions[s] {
			t.Fatalf("a reader saw a mix of %d bytes", len(data))
		}
	}
	wg.Wait()
	if temps, _ := filepath.Glob(TempPattern(path)); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// TestWriteFailureLeavesTheOld: a write that cannot finish (the target is a folder) leaves
// what was there and no temporary file.
func TestWriteFailureLeavesTheOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, "x"), []byte("x"), 0o600)
	if err := Write(path, []byte("data"), 0o644); err == nil {
		t.Fatal("a folder with files was replaced")
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		t.Fatalf("the folder is gone: %v", err)
	}
	if temps, _ := filepath.Glob(TempPattern(path)); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}
