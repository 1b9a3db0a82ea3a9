// Package instructions finds the project instructions an agent reads before it starts:
// AGENTS.md (else CLAUDE.md) in base-context's home folder, then in each directory from the
// repository root down to the working directory.
package instructions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/basecontext/base-context/internal/userfile"
)

// Names are the file names looked for in each directory, the first one present wins.
var Names = []string{"AGENTS.md", "CLAUDE.md"}

// MaxSize is the largest file read; a larger one is skipped with a warning, since it would
// take a large part of every request's context.
const MaxSize = 64 << 10

// File is one instructions file found.
type File struct {
	Path    string
	Content string
}

// Load returns the instructions files in the order they apply: the global one of home
// (skipped when home is ""), then from the repository root (the nearest directory above
// cwd holding .git, else the file system root) down to cwd. A file that cannot be read or
// is too large is left out, and a warning says why.
func Load(home, cwd string) (files []File, warnings []string) {
	dirs := chain(cwd)
	if home != "" {
		dirs = append([]string{home}, dirs...)
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		if seen[dir] {
			continue // home inside the repository: read once
		}
		seen[dir] = true
		f, warn := find(dir)
		if warn != "" {
			warnings = append(warnings, warn)
		}
		if f != nil {
			files = append(files, *f)
		}
	}
	return files, warnings
}

// RepoRoot is the repository root of cwd: the nearest directory at or above it holding
// .git; "" when there is none.
func RepoRoot(cwd string) string {
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// chain is the directories from the repository root of cwd (else the file system root)
// down to cwd.
func chain(cwd string) []string {
	root := RepoRoot(cwd)
	var up []string
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		up = append(up, dir)
		if dir == root || filepath.Dir(dir) == dir {
			break
		}
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up
}

// find reads the first instructions file of dir; nil when there is none.
func find(dir string) (*File, string) {
	for _, name := range Names {
		path := filepath.Join(dir, name)
		st, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) { // ENOTDIR: a folder on its path is a file
			continue
		}
		if err != nil {
			return nil, fmt.Sprintf("cannot read %s: %v", path, err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Sprintf("%s is not a regular file; skipped", path)
		}
		if st.Size() > MaxSize {
			return nil, fmt.Sprintf("%s is larger than %d KB (%d bytes); skipped", path, MaxSize>>10, st.Size())
		}
		content, err := userfile.Read(path, MaxSize) // it may have grown since it was measured
		if err != nil {
			return nil, fmt.Sprintf("cannot read %s: %v", path, err)
		}
		return &File{Path: path, Content: string(content)}, ""
	}
	return nil, ""
}

// Format renders the files as a section of the system prompt, each under its path.
func Format(files []File) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n# Project instructions\n\nFollow these instructions from the user and the project; later ones are more specific.\n")
	for _, f := range files {
		fmt.Fprintf(&b, "\n<instructions path=%q>\n%s\n</instructions>\n", f.Path, strings.TrimRight(f.Content, "\n"))
	}
	return b.String()
}
