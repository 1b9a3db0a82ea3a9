package filters

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/userfile"
	"github.com/basecontext/base-context/stages"
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

// Outcome turns the verdict a filter reached after it ended with err into the command's
// result: an unreadable file is a usage error; an error other than the report of invalid
// lines (exit 1) means the stream was not read; a run that did not complete exits with its
// status, saying why (after the status's name when named); else err (nil, or the report
// of invalid lines).
func (r *RunStderr) Outcome(err error, verdict func() stages.VerdictSummary, named bool) error {
	if r.err != nil {
		return exitcode.Wrap(exitcode.Usage, r.err)
	}
	if e, ok := errors.AsType[*exitcode.Error](err); err != nil && !(ok && e.Code == exitcode.Failure) {
		return err
	}
	if s := verdict(); s.Status != stages.VerdictCompleted {
		if named {
			return exitcode.New(s.ExitCode(), s.Status+": "+s.Reason)
		}
		return exitcode.New(s.ExitCode(), s.Reason)
	}
	return err
}
