package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

const smapsSample = `00400000-01ab4000 r-xp 00000000 fe:00 1234 /opt/bc/base-context
Size:              23248 kB
Rss:               16528 kB
FilePmdMapped:      8192 kB
VmFlags: rd ex mr mw me
01ab4000-03bbe000 r--p 016b4000 fe:00 1234 /opt/bc/base-context
Size:              33832 kB
Rss:               12136 kB
FilePmdMapped:         0 kB
VmFlags: rd mr mw me
03bbe000-03c24000 rw-p 037be000 fe:00 1234 /opt/bc/base-context
FilePmdMapped:      2048 kB
VmFlags: rd wr mr mw me ac
7f0000000000-7f0000400000 r-xp 00000000 fe:00 99 /usr/lib/other.so
FilePmdMapped:      4096 kB
VmFlags: rd ex mr mw me
7f0000600000-7f0000a00000 r--p 00000000 fe:00 1234 /opt/bc/base-context (deleted)
FilePmdMapped:      4096 kB
7f0000c00000-7f0000e00000 r--p 00000000 fe:00 1235 /opt/bc/base-context two
FilePmdMapped:      2048 kB
7ffc0e491000-7ffc0e4b2000 rw-p 00000000 00:00 0                          [stack]
Rss:                  16 kB
FilePmdMapped:         0 kB
`

// Only the executable's own read-only mappings with 2 MB pages are unmapped: not its
// writable data, not another file's, not a mapping without 2 MB pages.
func TestPMDMappings(t *testing.T) {
	got := pmdMappings([]byte(smapsSample), "/opt/bc/base-context")
	want := [][2]uintptr{{0x400000, 0x1ab4000}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pmdMappings = %x, want %x", got, want)
	}
	// A path with spaces, and the " (deleted)" the kernel adds to both once the file is gone.
	got = pmdMappings([]byte(smapsSample), "/opt/bc/base-context (deleted)")
	if want := [][2]uintptr{{0x7f0000600000, 0x7f0000a00000}}; !reflect.DeepEqual(got, want) {
		t.Errorf("pmdMappings of a deleted file = %x, want %x", got, want)
	}
	if n := smapsValue([]byte(smapsSample), "FilePmdMapped:"); n != 8192 {
		t.Errorf("smapsValue = %d, want the first mapping's 8192", n)
	}
	if n := smapsValue([]byte("FilePmdMapped:   2048 kB\n"), "FilePmdMapped:"); n != 2048 {
		t.Errorf("smapsValue of a block's first line = %d, want 2048", n)
	}
	if n := smapsValue([]byte(smapsSample), "Missing:"); n != 0 {
		t.Errorf("smapsValue of a missing key = %d", n)
	}
}

// This process's mappings are read only when some process has a file mapped in 2 MB pages.
func TestFilePMDMapped(t *testing.T) {
	const meminfoNone = "MemTotal:        8000000 kB\nShmemPmdMapped:     2048 kB\nFilePmdMapped:         0 kB\nCmaTotal:              0 kB\n"
	const meminfoSome = "MemTotal:        8000000 kB\nShmemPmdMapped:        0 kB\nFilePmdMapped:      4096 kB\n"
	const rollupNone = "Rss:                1784 kB\nFilePmdMapped:         0 kB\n"
	const rollupSome = "Rss:               27784 kB\nFilePmdMapped:      2048 kB\n"
	for _, c := range []struct {
		meminfo, rollup  string // "": the file cannot be read
		want, rollupRead bool
	}{
		{meminfoNone, rollupSome, false, false},
		{meminfoSome, rollupSome, true, true},
		{meminfoSome, rollupNone, false, true},
		{meminfoSome, "", false, true},
		{"", rollupSome, true, true},                              // no /proc/meminfo: the process's own sum decides
		{"MemTotal:        8000000 kB\n", rollupSome, true, true}, // no FilePmdMapped line in it: likewise
	} {
		var read []string
		got := filePMDMapped(func(name string) ([]byte, error) {
			read = append(read, name)
			content := map[string]string{"/proc/meminfo": c.meminfo, "/proc/self/smaps_rollup": c.rollup}[name]
			if content == "" {
				return nil, os.ErrNotExist
			}
			return []byte(content), nil
		})
		rollupRead := slices.Contains(read, "/proc/self/smaps_rollup")
		if got != c.want || rollupRead != c.rollupRead {
			t.Errorf("meminfo %q, smaps_rollup %q: %v, smaps_rollup read %v; want %v, %v", c.meminfo, c.rollup, got, rollupRead, c.want, c.rollupRead)
		}
	}
}

// readProcFile reads what os.ReadFile does: a file of /proc, whose size stat does not tell,
// and a file longer than its first buffer.
func TestReadProcFile(t *testing.T) {
	long := filepath.Join(t.TempDir(), "long")
	if err := os.WriteFile(long, bytes.Repeat([]byte("0123456789abcdef"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/proc/self/cmdline", long} {
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readProcFile(name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("readProcFile(%s) = %d bytes, %v; want os.ReadFile's %d bytes", name, len(got), err, len(want))
		}
	}
	if b, err := readProcFile("/proc/meminfo"); err != nil || !bytes.HasPrefix(b, []byte("MemTotal:")) {
		t.Errorf("readProcFile(/proc/meminfo) = %.20q, %v", b, err)
	}
	if _, err := readProcFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("readProcFile of a missing file: %v, want os.ErrNotExist", err)
	}
}
