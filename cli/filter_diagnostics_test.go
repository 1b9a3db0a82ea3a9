package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/basecontext/base-context/cli"
	"github.com/basecontext/base-context/internal/exitcode"
)

// writeCounter counts the writes made to it.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// The diagnostics of a filter are buffered as its output is: a write per message made
// `filter validate` on ten million bad lines a hundred times slower than the other filters.
func TestFilterDiagnosticsAreWrittenInBlocks(t *testing.T) {
	const bad = 5000
	input := strings.Repeat("x\n", bad)
	for _, args := range [][]string{
		{"filter", "validate"},
		{"filter", "deltas"},
		{"filter", "select", "--skip-invalid"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stderr writeCounter
			code := cli.Run(args, cli.IO{In: strings.NewReader(input), Out: &bytes.Buffer{}, Err: &stderr})
			if code != exitcode.Failure {
				t.Fatalf("exit %d, want 1; stderr:\n%.300s", code, stderr.String())
			}
			if lines := strings.Count(stderr.String(), "\n"); lines < bad {
				t.Fatalf("%d lines on stderr, want one per bad line (%d) and more", lines, bad)
			}
			// 5000 short messages fill a few buffers; a write per message would be 5000.
			if stderr.writes > 20 {
				t.Errorf("%d writes to stderr for %d messages", stderr.writes, bad)
			}
		})
	}
}
