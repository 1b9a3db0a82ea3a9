package codec

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"unsafe"
)

// readSize is the size of a line reader's buffer: the size of its reads, and the line length
// up to which a line is returned from the buffer itself without being copied.
const readSize = 256 << 10

// maxPiece bounds the pieces a long line is gathered in, so that what they hold beyond the
// line is at most this much.
const maxPiece = 1 << 20

// bigLine is the line length from which the memory of a long line is handed back to the
// system as soon as it is free, so that a stream of huge lines peaks at twice its longest
// line rather than at that plus whatever the collector has not yet returned.
const bigLine = 32 << 20

// LineReader splits a stream on LF. Lines may be of any size; the returned slice is valid
// until the next call, as the buffers are reused.
//
// A line that fits in the buffer is returned from it without a copy. A longer one is read
// into pieces of growing size (each read lands where the line will be taken from, no piece is
// copied to make room for the next) and copied once into a buffer of its exact length, so a
// line of L bytes costs about 2L of memory and one copy.
type LineReader struct {
	r     io.Reader
	buf   []byte // buf[start:end] is read and not yet returned
	start int
	end   int
	next  int // index in buf of the next LF when known, else -1
	err   error
	line  int
	long  []byte // the last long line, assembled
	ahead []byte // where a file is read ahead to find where a long line ends
	taken int64  // bytes read from r so far: buf[:end] are the last of them

	// Where the reader started reading its input, when that is a regular file (-1 for
	// anything else), found at the first FileRange.
	origin      int64
	originKnown bool
}

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: r, next: -1}
}

// Reset makes lr read r from its start, keeping its buffers: reading many small inputs one
// after another (the session files of a folder) then allocates them once.
func (lr *LineReader) Reset(r io.Reader) {
	*lr = LineReader{r: r, next: -1, buf: lr.buf, ahead: lr.ahead}
}

// Line is the number of the line last returned, counting from 1.
func (lr *LineReader) Line() int { return lr.line }

// ReadLine returns the next line without its LF and a CR before it. A last line without an
// LF is still a line. At the end of input it returns io.EOF.
func (lr *LineReader) ReadLine() ([]byte, error) {
	line, err := lr.ReadRawLine()
	return trimCR(line), err
}

// ReadRawLine is ReadLine keeping a CR before the LF, for those who pass lines on byte for
// byte.
func (lr *LineReader) ReadRawLine() ([]byte, error) {
	for {
		if lr.Buffered() {
			line := lr.buf[lr.start:lr.next]
			lr.start, lr.next = lr.next+1, -1
			lr.line++
			return line, nil
		}
		if lr.err != nil {
			if lr.start < lr.end {
				line := lr.buf[lr.start:lr.end]
				lr.start = lr.end
				lr.line++
				return line, nil
			}
			return nil, lr.err
		}
		if lr.end == len(lr.buf) && lr.start < len(lr.buf)/2 && len(lr.buf) > 0 {
			if line, ok := lr.readLongAt(); ok {
				return line, nil
			}
			return lr.readLong()
		}
		lr.fill()
	}
}

// Pending returns what is read and not yet returned: the start of the next line, or more
// than one line, or nothing. It is valid until the next read.
func (lr *LineReader) Pending() []byte { return lr.buf[lr.start:lr.end] }

// Take returns the next line when the caller has found where it ends in Pending: its first
// n bytes, followed by an LF, which Take consumes too.
func (lr *LineReader) Take(n int) []byte {
	if lr.buf[lr.start+n] != '\n' {
		panic("codec: LineReader.Take: no LF after the line")
	}
	line := lr.buf[lr.start : lr.start+n]
	lr.start, lr.next = lr.start+n+1, -1
	lr.line++
	return line
}

// TakeLines returns the next lines when the caller has found where they end in Pending: its
// first n bytes, which end with an LF and hold count lines.
func (lr *LineReader) TakeLines(n, count int) []byte {
	if n == 0 || lr.buf[lr.start+n-1] != '\n' {
		panic("codec: LineReader.TakeLines: the lines do not end with an LF")
	}
	lines := lr.buf[lr.start : lr.start+n]
	lr.start, lr.next = lr.start+n, -1
	lr.line += count
	return lines
}

// FileRange says where b, bytes the reader has returned and not read over since (a line, or
// lines that follow one another in its buffer), lies in its input when that is a regular
// file: the file and the offset of b[0], ok true. A writer may then send b from the file
// (LineWriter.SpliceFrom) rather than from memory.
func (lr *LineReader) FileRange(b []byte) (f *os.File, off int64, ok bool) {
	f, isFile := lr.r.(*os.File)
	if !isFile || len(b) == 0 || lr.end == 0 || !lr.regular(f) {
		return nil, 0, false
	}
	at := uintptr(unsafe.Pointer(&b[0])) - uintptr(unsafe.Pointer(&lr.buf[0]))
	if at >= uintptr(lr.end) || at+uintptr(len(b)) > uintptr(lr.end) {
		return nil, 0, false // not in the buffer (a long line is assembled elsewhere)
	}
	return f, lr.origin + lr.taken - int64(lr.end) + int64(at), true
}

// regular reports whether f, the reader's input, is a regular file, and learns where the
// reader started reading it (origin), once.
func (lr *LineReader) regular(f *os.File) bool {
	if lr.origin == 0 && !lr.originKnown {
		lr.originKnown = true
		lr.origin = -1
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				lr.origin = pos - lr.taken
			}
		}
	}
	return lr.origin >= 0
}

// Buffered reports whether a whole line is already read, so that the next ReadLine returns
// without waiting for input.
func (lr *LineReader) Buffered() bool {
	if lr.next < 0 {
		i := bytes.IndexByte(lr.buf[lr.start:lr.end], '\n')
		if i < 0 {
			return false
		}
		lr.next = lr.start + i
	}
	return true
}

// fill reads more input after what is buffered, first moving a partial line (less than
// half the buffer) to its front when the buffer is full.
func (lr *LineReader) fill() {
	if lr.buf == nil {
		lr.buf = make([]byte, readSize)
	}
	if lr.end == len(lr.buf) {
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	}
	n, err := readSome(lr.r, lr.buf[lr.end:])
	lr.taken += int64(n)
	lr.end += n
	lr.err = err
}

// readSome reads at least one byte into p, or returns why it cannot.
func readSome(r io.Reader, p []byte) (int, error) {
	for range 100 {
		n, err := r.Read(p)
		if n > 0 || err != nil {
			if n > 0 && err == io.EOF {
				err = nil // reported by the next read
			}
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

// readLongAt reads a long line from a file (a reader that also reads at offsets and tells
// its position) straight into a buffer of its size: it first reads ahead, into a reused
// buffer, to find where the line ends, then reads the line once, so the line costs its own
// length in memory and no copy. ok is false, with nothing consumed, when the reader cannot
// do this (a pipe): readLong then gathers the line in pieces.
func (lr *LineReader) readLongAt() (line []byte, ok bool) {
	f, isFile := lr.r.(interface {
		io.ReaderAt
		io.Seeker
	})
	if !isFile {
		return nil, false
	}
	if st, ok := lr.r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if info, err := st.Stat(); err != nil || !info.Mode().IsRegular() {
			return nil, false // a pipe, terminal or device opened as a file
		}
	}
	from, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, false
	}
	if lr.ahead == nil {
		lr.ahead = make([]byte, readSize)
	}
	rest := int64(0) // bytes of the line after what is buffered
	lf := false
	for !lf {
		n, err := f.ReadAt(lr.ahead, from+rest)
		if i := bytes.IndexByte(lr.ahead[:n], '\n'); i >= 0 {
			n, lf = i+1, true
		}
		rest += int64(n)
		if !lf && err != nil {
			if err != io.EOF {
				return nil, false
			}
			break
		}
	}
	have := lr.end - lr.start
	n := have + int(rest)
	if cap(lr.long) < n {
		lr.long = nil // free before the larger one is made
		lr.long = make([]byte, n)
	}
	line = lr.long[:n]
	copy(line, lr.buf[lr.start:lr.end])
	got, err := io.ReadFull(lr.r, line[have:])
	lr.taken += int64(got)
	line = line[:have+got]
	lr.start, lr.end, lr.next = 0, 0, -1
	if err != nil { // the file ended sooner than it did a moment ago
		lr.err = io.EOF
		if err != io.EOF && err != io.ErrUnexpectedEOF {
			lr.err = err
		}
	}
	if lf && len(line) == n {
		line = line[:n-1]
	}
	lr.line++
	return line, true
}

// readLong gathers a line that does not fit in the buffer: the part buffered stays where it
// is, the rest is read into pieces, each as large as what is gathered so far (up to
// maxPiece), and the line is copied once into lr.long. The last piece becomes the buffer.
func (lr *LineReader) readLong() ([]byte, error) {
	pieces := [][]byte{lr.buf[lr.start:lr.end]}
	total := lr.end - lr.start
	for {
		piece := make([]byte, min(max(total, readSize), maxPiece))
		n, lf := 0, -1
		var err error
		for n < len(piece) && lf < 0 && err == nil {
			var m int
			m, err = readSome(lr.r, piece[n:])
			lr.taken += int64(m)
			if i := bytes.IndexByte(piece[n:n+m], '\n'); i >= 0 {
				lf = n + i
			}
			n += m
		}
		if lf >= 0 {
			pieces = append(pieces, piece[:lf])
			line := lr.assemble(pieces, total+lf)
			lr.buf, lr.start, lr.end, lr.next, lr.err = piece, lf+1, n, -1, err
			lr.line++
			return line, nil
		}
		pieces = append(pieces, piece[:n])
		total += n
		if err != nil {
			lr.buf, lr.start, lr.end, lr.next, lr.err = nil, 0, 0, -1, err
			if total == 0 {
				return nil, err
			}
			lr.line++
			return lr.assemble(pieces, total), nil
		}
	}
}

// assemble copies the pieces of a line of n bytes into lr.long, resized to exactly n when
// too small.
func (lr *LineReader) assemble(pieces [][]byte, n int) []byte {
	if cap(lr.long) < n {
		lr.long = nil // free before the larger one is made
		lr.long = make([]byte, n)
	}
	line := lr.long[:0]
	for _, p := range pieces {
		line = append(line, p...)
	}
	if n >= bigLine {
		// The pieces are garbage now: give their memory back before the line is worked on.
		clear(pieces)
		debug.FreeOSMemory()
	}
	return line
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// LineWriter writes whole lines. Made by NewLineWriter it writes each line at once; made by
// NewBatchWriter it gathers lines in a buffer until Flush, so that a stream read in large
// blocks is written in large blocks.
type LineWriter struct {
	w        io.Writer
	buf      []byte
	batch    bool
	err      error // the first write error: nothing more is written after it
	noSplice bool  // SpliceFrom found that w cannot take spliced bytes
}

// NewLineWriter writes lines to w, each as soon as it is written.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// NewBatchWriter writes lines to w when Flush is called or its buffer is full. The caller
// flushes whenever waiting for more input, so a live stream is not held back.
func NewBatchWriter(w io.Writer) *LineWriter {
	return &LineWriter{w: w, batch: true, buf: make([]byte, 0, batchSize)}
}

// batchSize is how much a batch writer gathers before it writes; maxCopy is the line length
// up to which a line is copied into the buffer, longer ones are written as they are.
const (
	batchSize = 256 << 10
	maxCopy   = 64 << 10
)

// WriteLine writes line followed by LF.
func (lw *LineWriter) WriteLine(line []byte) error {
	if lw.err != nil {
		return lw.err
	}
	if len(line) > maxCopy {
		if err := lw.Flush(); err != nil {
			return err
		}
		if err := lw.write(line); err != nil {
			return err
		}
		lw.buf = append(lw.buf, '\n')
		return lw.done()
	}
	if len(lw.buf)+len(line) >= batchSize {
		if err := lw.Flush(); err != nil {
			return err
		}
	}
	lw.buf = append(append(lw.buf, line...), '\n')
	return lw.done()
}

// WriteEncoded encodes e straight into the writer's buffer and writes it as one line: an
// event made in process is encoded once, into memory that is reused.
func (lw *LineWriter) WriteEncoded(e Encoder) error {
	if lw.err != nil {
		return lw.err
	}
	lw.buf = append(e.AppendJSON(lw.buf), '\n')
	return lw.done()
}

// Write writes p as it is (plain text between lines, for the filters that print text).
func (lw *LineWriter) Write(p []byte) (int, error) {
	if lw.err != nil {
		return 0, lw.err
	}
	if len(lw.buf)+len(p) >= batchSize {
		if err := lw.Flush(); err != nil {
			return 0, err
		}
	}
	lw.buf = append(lw.buf, p...)
	if err := lw.done(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteThrough writes p, whole lines, after what the writer holds, without copying p when
// it is large: what is held is written first, then p as it is.
func (lw *LineWriter) WriteThrough(p []byte) error {
	if len(p) < maxCopy {
		_, err := lw.Write(p)
		return err
	}
	if err := lw.Flush(); err != nil {
		return err
	}
	return lw.write(p)
}

// done ends a write: a line writer writes what it holds, a batch writer writes once its
// buffer is full.
func (lw *LineWriter) done() error {
	if lw.batch && len(lw.buf) < batchSize {
		return nil
	}
	return lw.Flush()
}

// Flush writes what the writer holds.
func (lw *LineWriter) Flush() error {
	if lw.err != nil {
		return lw.err
	}
	if len(lw.buf) == 0 {
		return nil
	}
	err := lw.write(lw.buf)
	lw.buf = lw.buf[:0] // kept: the next event encoded into it is likely as large
	return err
}

func (lw *LineWriter) write(p []byte) error {
	if _, err := lw.w.Write(p); err != nil {
		lw.err = err
		return err
	}
	return nil
}

// SplitLines calls fn for each complete line in p, without its LF, returning the unconsumed
// tail; used by writers that receive arbitrary chunks.
func SplitLines(p []byte, fn func(line []byte) error) (rest []byte, err error) {
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return p, nil
		}
		if err := fn(p[:i]); err != nil {
			return nil, err
		}
		p = p[i+1:]
	}
}
