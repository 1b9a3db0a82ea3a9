//go:build unix

package filters

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of old, where the process may (only root may give a
// file away): best effort, as cp -p does.
func keepOwner(f *os.File, old fs.FileInfo) {
	if sys, ok := old.Sys().(*syscall.Stat_t); ok {
		f.Chown(int(sys.Uid), int(sys.Gid))
	}
}
