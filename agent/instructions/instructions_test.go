package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadOrderAndChoices(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(root, "AGENTS.md"), "above")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref")
	write(t, filepath.Join(repo, "CLAUDE.md"), "repo")
	write(t, filepath.Join(repo, "a", "AGENTS.md"), "a")
	write(t, filepath.Join(repo, "a", "CLAUDE.md"), "a-claude")
	write(t, filepath.Join(repo, "a", "b", "AGENTS.md"), strings.Repeat("x", MaxSize+1))
	// The home inside the repository is read once, first.
	files, warnings := Load(filepath.Join(repo, "a"), filepath.Join(repo, "a", "b"))
	var got []string
	for _, f := range files {
		got = append(got, f.Content)
	}
	if strings.Join(got, ",") != "a,repo" {
		t.Errorf("contents %q, want a (home), repo", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "larger than 64 KB") {
		t.Errorf("warnings %q", warnings)
	}
	if r := RepoRoot(filepath.Join(repo, "a", "b")); r != repo {
		t.Errorf("RepoRoot = %q, want %q", r, repo)
	}
}
