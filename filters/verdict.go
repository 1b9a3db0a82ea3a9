package filters

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/basecontext/base-context/internal/userfile"
)

// errorLineMax is the longest stderr line read for an error line: ours are short, and a
// longer line (a tool's output, a binary file) is skipped without being held in memory.
const errorLineMax = 64 << 10

// LastErrorLine returns the reason of the last "error: <reason>" line of the file at path,
// "" for no path or no such line. The file must be a regular file (userfile.Open).
func LastErrorLine(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	f, err := userfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var reason string
	r := bufio.NewReaderSize(f, errorLineMax)
	long := false // in a line longer than the buffer: skipped to its end
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = true
			continue
		}
		if !long {
			if rest, ok := bytes.CutPrefix(line, []byte("error: ")); ok {
				reason = string(bytes.TrimSpace(rest))
			}
		}
		long = false
		if err == io.EOF {
			return reason, nil
		}
		if err != nil {
			return "", err
		}
	}
}

// RunStderr is a run's stderr kept in a file (filter verdict's and filter text's --stderr),
// read only once the stream has ended, as the run may still be writing it.
type RunStderr struct {
	Path string // "": none
	err  error
}

// Check fails, before any input is read, when the file cannot be opened.
func (r *RunStderr) Check() error {
	if r.Path == "" {
		return nil
	}
	f, err := userfile.Open(r.Path)
	if err != nil {
		return err
	}
	return f.Close()
}

// LastError is the reason of the file's last "error:" line, read now (LastErrorLine); Err
// says afterwards how reading it went.
func (r *RunStderr) LastError() string {
	reason, err := LastErrorLine(r.Path)
	r.err = err
	return reason
}

// Err is the error of reading the file, nil before LastError.
func (r *RunStderr) Err() error { return r.err }
