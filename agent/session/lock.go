package session

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrLocked is the error of opening a session file another process is writing.
var ErrLocked = errors.New("the session is being written by another process")

// lock takes the exclusive lock on an open session file, without waiting. A File holds it
// until Close; the kernel drops it when the process ends, however it ends, so a crash never
// leaves a session locked. The lock is advisory (flock): it keeps our own writers apart.
func lock(f *os.File) error {
	for {
		err := flock(f)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return fmt.Errorf("session: %s: %w", f.Name(), ErrLocked)
		default:
			return fmt.Errorf("session: locking %s: %w", f.Name(), err)
		}
	}
}

// Locked reports whether another process holds the write lock of the session file at path.
// It takes the lock for a moment to find out, so use it for reports, not before opening.
func Locked(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = lock(f)
	if errors.Is(err, ErrLocked) {
		return true, nil
	}
	return false, err
}
