// Package atomicfile replaces a file whole: a reader sees its old content or its new one,
// never a part, and a crash leaves one or the other.
//
// The tools' write and edit, and the filters' -o outputs, replace files they did not create
// (keeping their owner and mode, refusing to replace what is not a regular file) and have
// their own code for it; this is for the files base-context owns: the registry of runs, a
// batch's results, the session index.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, mode perm: a temporary file beside it, synced, renamed over
// it, and the folder synced so that the rename survives a crash (where the file system
// syncs folders).
func Write(path string, data []byte, perm fs.FileMode) error {
	if err := write(path, data, perm, true); err != nil {
		return err
	}
	SyncDir(filepath.Dir(path))
	return nil
}

// SyncDir syncs the folder dir, so that the renames and new names in it survive a crash. It
// is best effort: not every file system syncs folders, and the renames stand either way.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// WriteCache is Write without the syncs, for a cache its reader checks (a checksum) and
// rebuilds: a crash may leave it old, new or torn, which costs a rebuild and nothing more,
// where a sync would cost every write a wait for the disk.
func WriteCache(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

// TempPattern is the pattern of the temporary files Write leaves when the process is
// killed before its rename, as filepath.Match takes it, for those who clean them up.
func TempPattern(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
}

func write(path string, data []byte, perm fs.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm) // CreateTemp makes 0600
	}
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
