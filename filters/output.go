// Package filters is the machinery of the `filter` commands beyond the stages themselves:
// opening their inputs and output, and turning their flags into stage options.
package filters

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Output is the file an -o FILE writes. A regular file (or one that does not exist yet) is
// written as a temporary file beside it, renamed over it by Commit only once complete, so it
// is never left half-written; it keeps the mode (and, where the process may, the owner) of
// the file it replaces. Anything else that can be written (a FIFO, a terminal, /dev/null) is
// opened and written as it is, as a shell's > would: replacing it would break whoever reads
// it, or the system.
type Output struct {
	*os.File
	target string // the path renamed over; "" when written in place
}

// Create opens the output named path.
func Create(path string) (*Output, error) {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved // a link to a file: the file is replaced, the link stays
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return createBeside(target, 0o666, nil)
	case err != nil:
		return nil, err
	case st.Mode().IsRegular():
		// A file the user may not write is not replaced behind their back: > would fail too.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		f.Close()
		return createBeside(target, st.Mode().Perm()|st.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), st)
	case st.IsDir():
		return nil, fmt.Errorf("%s: is a directory", path)
	case st.Mode()&fs.ModeSocket != 0:
		return nil, fmt.Errorf("%s: is a socket, which cannot be opened for writing", path)
	}
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	return &Output{File: f}, nil
}

// createBeside creates the temporary file that will replace target, with mode perm, and the
// owner of the file it replaces (old) where the process may give it. The kernel applies the
// umask to a new file's mode, as it does for a shell's >.
func createBeside(target string, perm fs.FileMode, old fs.FileInfo) (*Output, error) {
	dir, base := filepath.Split(target)
	var f *os.File
	for range 100 {
		suffix := make([]byte, 6)
		rand.Read(suffix)
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(suffix)+".tmp")
		var err error
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm&fs.ModePerm)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	if f == nil {
		return nil, fmt.Errorf("%s: cannot create a temporary file beside it", target)
	}
	if old != nil {
		keepOwner(f, old)
		// The mode given at creation is masked by the umask; the file replaced had its own.
		if err := f.Chmod(perm); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	return &Output{File: f, target: target}, nil
}

// Commit closes the output and, when complete, puts it in place; an incomplete one is
// removed (written in place, what was written stays written).
func (o *Output) Commit(complete bool) error {
	if o.target == "" {
		return o.Close()
	}
	var err error
	if complete {
		err = o.Sync() // on disk before it is named: a crash leaves the old file, not an empty one
	}
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if complete && err == nil {
		// What was looked at may have been replaced since by something not to replace.
		if st, lerr := os.Lstat(o.target); lerr == nil && !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
			err = fmt.Errorf("%s: is no longer a regular file; the output is not put in its place", o.target)
		} else if err = os.Rename(o.Name(), o.target); err == nil {
			return nil
		}
	}
	os.Remove(o.Name())
	return err
}
