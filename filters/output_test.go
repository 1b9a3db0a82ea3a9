package filters

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCreateReplacesTheFileALinkNamesAndKeepsTheLink(t *testing.T) {
	dir := t.TempDir()
	file, link := filepath.Join(dir, "file"), filepath.Join(dir, "link")
	os.WriteFile(file, []byte("old"), 0o640)
	os.Chmod(file, 0o640)
	if err := os.Symlink("file", link); err != nil {
		t.Fatal(err)
	}
	out, err := Create(link)
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("new")
	if err := out.Commit(true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Errorf("the file holds %q", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a %v", st.Mode())
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode())
	}
}

func TestCreateLeavesNothingOfAnIncompleteOutput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	os.WriteFile(path, []byte("old"), 0o644)
	out, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("half")
	out.Commit(false)
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the file holds %q, want it untouched", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries: a temporary file was left", len(entries))
	}
}

func TestCreateRefusesADirectory(t *testing.T) {
	if _, err := Create(t.TempDir()); err == nil {
		t.Error("no error for a directory")
	}
}
