package cli_test

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// -o FILE of every filter replaces a regular file atomically, keeping its mode, and writes a
// FIFO or a device as it is: replacing /dev/null or a reader's FIFO would break the system
// or the reader.
func TestFilterOutputKeepsWhatTheFileIs(t *testing.T) {
	bin, err := exec.LookPath("base-context") // installed in PATH by TestMain
	if err != nil {
		t.Fatal(err)
	}
	full, err := filepath.Abs("../testdata/reference/b_tool_bash.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	deltas, err := filepath.Abs("../testdata/golden/b_tool_bash.deltas.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		input string
	}{
		{[]string{"filter", "deltas"}, full},
		{[]string{"filter", "expand"}, deltas},
		{[]string{"filter", "select", "message_end"}, full},
		{[]string{"filter", "header", "--stamp"}, full},
		{[]string{"filter", "validate"}, full},
		{[]string{"filter", "redact"}, full},
		{[]string{"filter", "text"}, deltas},
		{[]string{"filter", "verdict"}, full},
	} {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			run := func(out string) []byte {
				t.Helper()
				args := append(append([]string(nil), c.args...), c.input)
				if out != "" {
					args = append(args, "-o", out)
				}
				got, err := exec.Command(bin, args...).Output()
				if err != nil {
					t.Fatalf("%s: %v", strings.Join(args, " "), err)
				}
				return got
			}
			want := run("")
			if c.args[1] == "validate" {
				want, _ = os.ReadFile(c.input) // -o implies --pass
			}

			t.Run("regular file", func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "out")
				if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				os.Chmod(path, 0o644) // whatever the umask
				run(path)
				assertFile(t, path, want)
				if st, _ := os.Stat(path); st.Mode() != 0o644 {
					t.Errorf("mode %v after -o, want -rw-r--r--", st.Mode())
				}
				assertOnly(t, dir, "out")
			})

			t.Run("fifo", func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "fifo")
				if err := syscall.Mkfifo(path, 0o644); err != nil {
					t.Fatal(err)
				}
				read := make(chan []byte)
				go func() {
					f, err := os.Open(path) // waits for the writer
					if err != nil {
						read <- nil
						return
					}
					defer f.Close()
					b, _ := io.ReadAll(f)
					read <- b
				}()
				run(path)
				if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
					// Its reader then waits forever: leave it.
					t.Fatalf("the FIFO is no longer a FIFO: %v %v", st.Mode(), err)
				}
				if got := <-read; !bytes.Equal(got, want) {
					t.Errorf("the FIFO's reader got %d bytes, want the %d of stdout", len(got), len(want))
				}
				assertOnly(t, dir, "fifo")
			})

			t.Run("character device", func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "null")
				if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, int(devNumber(1, 3))); err != nil {
					t.Skipf("cannot make a character device 1,3 for the test (mknod: %v)", err)
				}
				run(path)
				st, err := os.Lstat(path)
				if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
					t.Fatalf("the device is no longer a character device: %v %v", st.Mode(), err)
				}
				if b, _ := os.ReadFile(path); len(b) != 0 {
					t.Errorf("reading the null device gave %d bytes", len(b))
				}
				assertOnly(t, dir, "null")
			})
		})
	}
}

// devNumber is makedev(3) of Linux for small numbers.
func devNumber(major, minor uint64) uint64 { return major<<8 | minor }

func assertFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes, want the %d of stdout", path, len(got), len(want))
	}
}

// assertOnly checks that dir holds only name: no temporary file left behind.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != name {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the folder holds %v, want only %s", names, name)
	}
}
