//go:build !unix

package session

import (
	"os"
	"path/filepath"
)

// statNames sets the size and modification time of files in the directory d; a file that is
// not regular gets size -1, one that cannot be stat'ed keeps modTime 0.
func statNames(d *os.File, files []SavedFile) {
	for i := range files {
		f := &files[i]
		st, err := os.Lstat(filepath.Join(d.Name(), f.Name))
		if err != nil {
			continue
		}
		if !st.Mode().IsRegular() {
			f.size = -1
			continue
		}
		f.size, f.modTime = st.Size(), st.ModTime().UnixNano()
	}
}
