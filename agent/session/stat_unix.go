//go:build unix

package session

import (
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// statNames sets the size and modification time of files, stat'ed by name relative to the
// open directory d (no walk of the whole path per file), split over the CPUs: a stat is
// most of what listing a large folder costs. A file that is not regular gets size -1; one
// that cannot be stat'ed (removed meanwhile) keeps modTime 0.
func statNames(d *os.File, files []SavedFile) {
	fd := int(d.Fd())
	stat := func(part []SavedFile) {
		var st unix.Stat_t
		for i := range part {
			f := &part[i]
			if unix.Fstatat(fd, f.Name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue
			}
			if st.Mode&unix.S_IFMT != unix.S_IFREG {
				f.size = -1
				continue
			}
			f.size, f.modTime = st.Size, st.Mtim.Nano()
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 8, len(files)/512+1)
	var wg sync.WaitGroup
	for w := range workers {
		part := files[w*len(files)/workers : (w+1)*len(files)/workers]
		wg.Go(func() { stat(part) })
	}
	wg.Wait()
}
