package filters

import (
	"bytes"
	"io"
	"os"

	"github.com/basecontext/base-context/codec"
)

// LastErrorLine returns the reason of the last "error: <reason>" line of the file at path,
// "" for no path or no such line.
func LastErrorLine(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var reason string
	lr := codec.NewLineReader(f)
	for {
		line, err := lr.ReadLine()
		if err == io.EOF {
			return reason, nil
		}
		if err != nil {
			return "", err
		}
		if r, ok := bytes.CutPrefix(line, []byte("error: ")); ok {
			reason = string(bytes.TrimSpace(r))
		}
	}
}
