package session

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The summaries of a folder's session files are cached in an index, so that listing them
// and finding the newest one read only the files that changed: a year of CI runs costs a
// directory listing, a stat per file and one small file. The index is a cache only: each
// entry is used only while its file's size and modification time are those it was made
// from; a missing, stale, corrupt or other-version index is rebuilt; it is replaced
// atomically (a temporary file renamed over it), so processes updating it at once leave one
// of their versions, each right about what it lists.

// indexName is the index file of a session folder; its version is part of its name and of
// its first line.
const (
	indexName    = ".index-v1.gob"
	indexVersion = 1
)

// SavedFile is a session file of a folder: its id, and its name (<id>.jsonl, or the upstream's
// <timestamp>_<id>.jsonl).
type SavedFile struct {
	ID, Name string
	size     int64
	modTime  int64 // Unix nanoseconds
}

// idOfName is the session id a file name holds, ok false for a name that is not a session
// file's. The upstream names its files <timestamp>_<id>.jsonl.
func idOfName(name string) (string, bool) {
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok || base == "" || strings.HasPrefix(name, ".") {
		return "", false
	}
	if i := strings.LastIndexByte(base, '_'); i >= 0 {
		base = base[i+1:]
	}
	return base, base != ""
}

// IDOf is the session id of the file at path, as its name gives it.
func IDOf(path string) string {
	id, _ := idOfName(filepath.Base(path))
	return id
}

// Files returns the session files in dir, sorted by id (then name); a missing dir holds
// none. Each file's size and modification time come from the one stat a listing needs.
func Files(dir string) ([]SavedFile, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	files := make([]SavedFile, 0, len(des))
	for _, de := range des {
		id, ok := idOfName(de.Name())
		if !ok || !de.Type().IsRegular() {
			continue
		}
		f := SavedFile{ID: id, Name: de.Name()}
		if st, err := de.Info(); err == nil {
			f.size, f.modTime = st.Size(), st.ModTime().UnixNano()
		}
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].ID != files[j].ID {
			return files[i].ID < files[j].ID
		}
		return files[i].Name < files[j].Name
	})
	return files, nil
}

// indexEntry is an entry of the index: a file as it was when summarized, and its summary.
type indexEntry struct {
	Name    string
	Size    int64
	ModTime int64
	Info    Info
}

// indexFile is the index as encoded (gob: a folder of 20,000 sessions decodes in a few
// milliseconds, where JSON took a tenth of a second).
type indexFile struct {
	Version int
	Entries []indexEntry
}

// loadIndex reads dir's index; anything wrong with it gives an empty one.
func loadIndex(dir string) map[string]indexEntry {
	f, err := os.Open(filepath.Join(dir, indexName))
	if err != nil {
		return nil
	}
	defer f.Close()
	var idx indexFile
	if gob.NewDecoder(bufio.NewReaderSize(f, 256<<10)).Decode(&idx) != nil || idx.Version != indexVersion {
		return nil // corrupt or another version: rebuilt
	}
	entries := make(map[string]indexEntry, len(idx.Entries))
	for _, e := range idx.Entries {
		entries[e.Name] = e
	}
	return entries
}

// saveIndex replaces dir's index with entries; a failure leaves the old one (or none),
// which only costs the next listing its scans.
func saveIndex(dir string, entries []indexEntry) {
	tmp, err := os.CreateTemp(dir, indexName+".*.tmp")
	if err != nil {
		return
	}
	w := bufio.NewWriterSize(tmp, 256<<10)
	err = gob.NewEncoder(w).Encode(indexFile{Version: indexVersion, Entries: entries})
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, indexName))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// Summarize returns the summaries of files (in dir, as Files listed them), from the index
// where a file is unchanged, scanning the others; the index is rewritten when anything
// changed. problems are the files that could not be read, left out.
func Summarize(dir string, files []SavedFile) (infos []Info, problems []error) {
	cached := loadIndex(dir)
	entries := make([]indexEntry, 0, len(files))
	changed := len(cached) != len(files)
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		e, ok := cached[f.Name]
		if !ok || e.Size != f.size || e.ModTime != f.modTime || f.modTime == 0 {
			info, err := Scan(path)
			if err != nil {
				problems = append(problems, err)
				changed = true
				continue
			}
			e, changed = indexEntry{Name: f.Name, Size: f.size, ModTime: f.modTime, Info: info}, true
		}
		e.Info.Path = path
		entries = append(entries, e)
		infos = append(infos, e.Info)
	}
	if changed {
		saveIndex(dir, entries)
	}
	return infos, problems
}
