package filters

import (
	"bufio"
	"io"
	"sync"
)

// Diagnostics are a filter's messages to stderr, one a line, buffered as its output is: a
// write(2) per message made validating a stream of ten million bad lines a hundred times
// slower than the filter. Flush writes them out; Run calls it before it waits for input
// (stages.RunOptions.BeforeWait), so that on a live stream the messages keep up with the
// lines, and the command at its end. Safe for concurrent use: a filter cut by a signal
// flushes what was reported while the stage may still be reporting.
type Diagnostics struct {
	mu  sync.Mutex
	buf *bufio.Writer
}

// NewDiagnostics buffers messages to w.
func NewDiagnostics(w io.Writer) *Diagnostics {
	return &Diagnostics{buf: bufio.NewWriterSize(w, 64<<10)}
}

// Println adds the line msg.
func (d *Diagnostics) Println(msg string) {
	d.mu.Lock()
	d.buf.WriteString(msg)
	d.buf.WriteByte('\n')
	d.mu.Unlock()
}

// Flush writes out the messages buffered.
func (d *Diagnostics) Flush() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.buf.Flush()
}
