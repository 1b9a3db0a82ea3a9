// Package userfile reads the files a user or a client names (@FILE, --system-prompt @FILE,
// schemas, session files): only regular files, and never more than a bound, so that
// /dev/zero, a FIFO or a huge file is a clear error instead of a read without end.
package userfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Bounds of the inputs read whole, documented with the flags that take them.
const (
	PromptFileMax   = 8 << 20  // @FILE arguments, images included, and stdin
	SystemPromptMax = 2 << 20  // --system-prompt and --append-system-prompt @FILE
	SchemaMax       = 1 << 20  // --output-schema and every file its $ref names
	ConfigMax       = 4 << 20  // models.json
	ScriptMax       = 64 << 20 // --script files (offline test scripts, which may script long outputs)
)

// Open opens the regular file at path for reading; anything else (a directory, a device,
// a FIFO, a socket) is refused without being opened, since opening a FIFO waits for a writer.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if pe, ok := err.(*fs.PathError); ok {
		pe.Op = "open" // what the caller asked for, as os.Open says it
	}
	if err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// What was opened may not be what was looked at: check the open file itself too.
	if st, err = f.Stat(); err == nil {
		err = regular(path, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the regular file at path whole, refusing one larger than max bytes.
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAtMost(f, path, max)
}

// ReadAtMost reads r to its end, refusing more than max bytes; name says what r is in the
// error.
func ReadAtMost(r io.Reader, name string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Name: name, Max: max}
	}
	return data, nil
}

// TooLargeError is an input past its bound.
type TooLargeError struct {
	Name string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most read", e.Name, Size(e.Max))
}

// Size writes a bound for people: "8 MB", "512 KB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func regular(path string, st fs.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch m := st.Mode(); {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s is %s, not a regular file", path, what)
}
