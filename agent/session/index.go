package session

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/atomicfile"
)

// The summaries of a folder's session files are cached in an index, so that listing them
// and finding the newest one read only the files that changed: a year of CI runs costs a
// directory listing, a stat per file and one small file. The index is a cache only: each
// entry is used only while its file's size and modification time are those it was made
// from; a missing, stale, corrupt or other-version index is rebuilt; it is replaced
// atomically (a temporary file renamed over it), so processes updating it at once leave one
// of their versions, each right about what it lists.

// indexName is the index file of a session folder; its version is part of its name and of
// its first bytes. oldIndexNames are those of earlier versions, removed when it is written.
const (
	indexName  = ".index-v2"
	indexMagic = "base-context session index 2\n"
)

var oldIndexNames = []string{".index-v1.gob"}

// SavedFile is a session file of a folder: its id, and its name (<id>.jsonl, or the upstream's
// <timestamp>_<id>.jsonl).
type SavedFile struct {
	ID, Name string
	size     int64
	modTime  int64 // Unix nanoseconds; 0 when the file could not be stat'ed
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

// Files returns the regular session files in dir (symbolic links are not followed), sorted
// by id, then name; a missing dir holds none. Each file's size and modification time come
// from the one stat a listing needs (statNames: relative to the open directory, on all CPUs).
func Files(dir string) ([]SavedFile, error) { return listFiles(dir, true) }

// listFiles is Files, with the stats only when stat is true (their names and types are what
// finding an id needs).
func listFiles(dir string, stat bool) ([]SavedFile, error) {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	defer d.Close()
	des, err := d.ReadDir(-1) // the types come with the names, where the file system gives them
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	files := make([]SavedFile, 0, len(des))
	for _, de := range des {
		if id, ok := idOfName(de.Name()); ok && de.Type().IsRegular() {
			files = append(files, SavedFile{ID: id, Name: de.Name()})
		}
	}
	if stat {
		statNames(d, files)
		files = slices.DeleteFunc(files, func(f SavedFile) bool { return f.size < 0 })
	}
	slices.SortFunc(files, compareFiles)
	return files, nil
}

// compareFiles orders files by id, then name: the order of Files and of the index.
func compareFiles(a, b SavedFile) int {
	if c := strings.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// indexEntry is an entry of the index: a file as it was when summarized, and its summary.
type indexEntry struct {
	SavedFile
	Info Info
}

// openIndex reads dir's index, whose entries indexDecoder.next then gives in the order of
// Files; anything wrong with it (missing, corrupt, another version) gives none. The
// entries' strings share the one copy of the file.
func openIndex(dir string) *indexDecoder {
	data, err := os.ReadFile(filepath.Join(dir, indexName))
	if err != nil || len(data) < len(indexMagic)+4 || string(data[:len(indexMagic)]) != indexMagic {
		return &indexDecoder{}
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return &indexDecoder{}
	}
	d := &indexDecoder{s: codec.UnsafeString(body), off: len(indexMagic)} // body is not changed after
	if d.left = d.int(); d.bad || d.left < 0 {
		return &indexDecoder{}
	}
	return d
}

// next decodes the next entry into e; false at the end or at a malformed entry.
func (d *indexDecoder) next(e *indexEntry) bool {
	if d.left <= 0 || d.bad {
		return false
	}
	d.left--
	e.Name = d.str()
	e.ID, _ = idOfName(e.Name)
	e.size, e.modTime = d.int(), d.int()
	in := &e.Info
	in.ID, in.Cwd, in.ParentSession, in.Created, in.LastActivity = d.str(), d.str(), d.str(), d.str(), d.str()
	in.Model, in.Status, in.FirstPrompt = d.str(), d.str(), d.str()
	in.Messages, in.Skipped = int(d.int()), int(d.int())
	return !d.bad
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// indexDecoder reads the index's varints and length-prefixed strings; bad is set, and
// zero values returned, past the end or at a malformed number.
type indexDecoder struct {
	s    string
	off  int
	bad  bool
	left int64 // entries not yet decoded
}

func (d *indexDecoder) int() int64 {
	var u uint64
	for shift := 0; shift < 64 && d.off < len(d.s); shift += 7 {
		b := d.s[d.off]
		d.off++
		u |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return int64(u>>1) ^ -int64(u&1)
		}
	}
	d.bad = true
	return 0
}

func (d *indexDecoder) str() string {
	n := d.int()
	if n < 0 || n > int64(len(d.s)-d.off) {
		d.bad = true
		return ""
	}
	s := d.s[d.off : d.off+int(n)]
	d.off += int(n)
	return s
}

// encodeIndex is the index file holding files and their summaries, the inverse of loadIndex.
func encodeIndex(files []SavedFile, infos []Info) []byte {
	b := append(make([]byte, 0, 64+len(files)*256), indexMagic...)
	b = binary.AppendVarint(b, int64(len(files)))
	str := func(s string) {
		b = binary.AppendVarint(b, int64(len(s)))
		b = append(b, s...)
	}
	for i, f := range files {
		str(f.Name)
		b = binary.AppendVarint(b, f.size)
		b = binary.AppendVarint(b, f.modTime)
		in := &infos[i]
		for _, s := range [...]string{in.ID, in.Cwd, in.ParentSession, in.Created, in.LastActivity, in.Model, in.Status, in.FirstPrompt} {
			str(s)
		}
		b = binary.AppendVarint(b, int64(in.Messages))
		b = binary.AppendVarint(b, int64(in.Skipped))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// saveIndex replaces dir's index with files and their summaries; a failure leaves the old
// one (or none), which only costs the next listing its scans.
func saveIndex(dir string, files []SavedFile, infos []Info) {
	if atomicfile.WriteCache(filepath.Join(dir, indexName), encodeIndex(files, infos), 0o600) != nil {
		return
	}
	for _, old := range oldIndexNames {
		os.Remove(filepath.Join(dir, old))
	}
}

// Summarize returns the summaries of files (in dir, as Files listed them), from the index
// where a file is unchanged, scanning the others; the index is rewritten when anything
// changed. problems are the files that could not be read, left out.
func Summarize(dir string, files []SavedFile) (infos []Info, problems []error) {
	idx := openIndex(dir)
	changed := idx.left != int64(len(files))
	var cached indexEntry
	more := idx.next(&cached)
	infos = make([]Info, 0, len(files))
	var summarized []SavedFile // the files of infos, once one cannot be read
	var lr *codec.LineReader
	for i, f := range files {
		for more && compareFiles(cached.SavedFile, f) < 0 { // both in compareFiles order
			more = idx.next(&cached)
		}
		path := dir + string(filepath.Separator) + f.Name
		var info Info
		if more && cached.SavedFile == f && f.modTime != 0 {
			info = cached.Info
		} else {
			if lr == nil {
				lr = codec.NewLineReader(nil)
			}
			var err error
			if info, err = scanWith(lr, path); err != nil {
				if summarized == nil {
					summarized = slices.Clone(files[:i])
				}
				problems = append(problems, err)
				changed = true
				continue
			}
			changed = true
		}
		if summarized != nil {
			summarized = append(summarized, f)
		}
		info.Path = path
		infos = append(infos, info)
	}
	if summarized == nil {
		summarized = files
	}
	if changed {
		saveIndex(dir, summarized, infos)
	}
	return infos, problems
}
