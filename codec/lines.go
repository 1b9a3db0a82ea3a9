package codec

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// LineReader splits a stream on LF, tolerating a CR before it. Lines may be of any size; the
// returned slice is valid until the next call, as the buffer is reused.
type LineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int
}

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 256<<10)}
}

// Line is the number of the line last returned, counting from 1.
func (lr *LineReader) Line() int { return lr.line }

// ReadLine returns the next line without its LF (and CR). A last line without an LF is still
// a line. At the end of input it returns io.EOF.
func (lr *LineReader) ReadLine() ([]byte, error) {
	frag, err := lr.r.ReadSlice('\n')
	if err == nil {
		lr.line++
		return trimCR(frag[:len(frag)-1]), nil
	}
	// A long line: gather its pieces in our own buffer, which is kept for the next one.
	lr.buf = append(lr.buf[:0], frag...)
	for errors.Is(err, bufio.ErrBufferFull) {
		frag, err = lr.r.ReadSlice('\n')
		lr.buf = append(lr.buf, frag...)
	}
	if err == nil {
		lr.line++
		return trimCR(lr.buf[:len(lr.buf)-1]), nil
	}
	if err == io.EOF && len(lr.buf) > 0 {
		lr.line++
		return trimCR(lr.buf), nil
	}
	return nil, err
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// LineWriter writes whole lines and flushes after each, so a reader downstream sees every
// event as soon as it happens.
type LineWriter struct {
	w   io.Writer
	buf []byte
}

// NewLineWriter writes lines to w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// maxCopy is the line length up to which a line and its LF go out in one write by copying;
// longer lines are written as they are, followed by the LF.
const maxCopy = 64 << 10

// WriteLine writes line followed by LF.
func (lw *LineWriter) WriteLine(line []byte) error {
	if len(line) <= maxCopy {
		lw.buf = append(append(lw.buf[:0], line...), '\n')
		_, err := lw.w.Write(lw.buf)
		return err
	}
	if _, err := lw.w.Write(line); err != nil {
		return err
	}
	_, err := lw.w.Write(newline)
	return err
}

var newline = []byte{'\n'}

// WriteEncoded encodes e straight into the writer's buffer and writes it as one line: an
// event made in process is encoded once, into memory that is reused, and written in one call.
func (lw *LineWriter) WriteEncoded(e Encoder) error {
	lw.buf = append(e.AppendJSON(lw.buf[:0]), '\n')
	_, err := lw.w.Write(lw.buf)
	return err
}

// SplitLines calls fn for each complete line in p, returning the unconsumed tail; used by
// writers that receive arbitrary chunks.
func SplitLines(p []byte, fn func(line []byte) error) (rest []byte, err error) {
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return p, nil
		}
		if err := fn(trimCR(p[:i])); err != nil {
			return nil, err
		}
		p = p[i+1:]
	}
}
