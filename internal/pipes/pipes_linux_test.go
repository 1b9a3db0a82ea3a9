package pipes

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func pipeCapacity(t *testing.T, f *os.File) int {
	t.Helper()
	size, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	return size
}

func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if got := pipeCapacity(t, w); got >= pipeSize {
		t.Skipf("pipes start with %d bytes here", got)
	}
	growPipe(w)
	if got := pipeCapacity(t, r); got != pipeSize {
		t.Errorf("capacity after growPipe = %d, want %d", got, pipeSize)
	}

	// A pipe already bigger is left as it is.
	if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 2*pipeSize); err != nil {
		t.Logf("cannot make a pipe of %d bytes here (%v): not checked that a bigger pipe is kept", 2*pipeSize, err)
		return
	}
	growPipe(w)
	if got := pipeCapacity(t, w); got != 2*pipeSize {
		t.Errorf("growPipe shrank a pipe of %d bytes to %d", 2*pipeSize, got)
	}

	// Not a pipe: nothing happens, nothing fails.
	f, err := os.CreateTemp(t.TempDir(), "file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(f)
}
