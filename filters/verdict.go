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
