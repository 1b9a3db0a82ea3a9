//go:build unix

package signals

import (
	"os"
	"os/signal"
	"syscall"
)

// CatchFileSizeLimit makes a write past a file size limit (ulimit -f) fail with EFBIG
// instead of killing the process, so that a run can end properly and say why it could not
// save. (Caught, not ignored: the commands the tools run keep the default action.)
func CatchFileSizeLimit() { signal.Notify(make(chan os.Signal, 1), syscall.SIGXFSZ) }
