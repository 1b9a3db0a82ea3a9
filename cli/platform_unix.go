//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// unsupported says why a command cannot run on this system; nil: it can.
func unsupported(string) error { return nil }

// catchFileSizeLimit makes a write past a file size limit (ulimit -f) fail with EFBIG instead
// of killing the process, so the run can end properly and say why it could not save. (Caught,
// not ignored: the commands the tools run keep the default action.)
func catchFileSizeLimit() { signal.Notify(make(chan os.Signal, 1), syscall.SIGXFSZ) }
