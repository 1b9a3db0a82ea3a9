package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("12345"), 0o644)
	if data, err := Read(small, 5); err != nil || string(data) != "12345" {
		t.Errorf("at the bound: %q, %v", data, err)
	}
	_, err := Read(small, 4)
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || err.Error() != small+" is larger than 4 bytes, the most read" {
		t.Errorf("past the bound: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 4); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// Devices, directories and FIFOs are refused before anything is read: /dev/zero never
// ends, and opening a FIFO without a writer would wait for one.
func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for path, what := range map[string]string{"/dev/zero": "a device", dir: "a directory", fifo: "a named pipe"} {
		_, err := Read(path, 1<<20)
		if err == nil || !strings.Contains(err.Error(), path+" is "+what+", not a regular file") {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{8 << 20: "8 MB", 512 << 10: "512 KB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
