package cli_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Filters write in large blocks, but never hold a line back while they wait for input: each
// line written into a filter's stdin comes out of its stdout before the next one is written.
// The test writes a line, then reads the filter's line for it; only then does it write the
// next. A filter that held lines until its buffer filled or its input ended would leave the
// read waiting, and the test fails when it gives up (a guard against hanging, not a timing).
func TestFiltersPassEachLineOnBeforeTheNextArrives(t *testing.T) {
	bin, err := exec.LookPath("base-context") // installed in PATH by TestMain
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile("../testdata/reference/b_tool_bash.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	deltas, err := os.ReadFile("../testdata/golden/b_tool_bash.deltas.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		input []byte
	}{
		{[]string{"filter", "deltas"}, full},
		{[]string{"filter", "expand"}, deltas},
		{[]string{"filter", "select"}, full},
		{[]string{"filter", "header", "--stamp", "--seq"}, full},
		{[]string{"filter", "validate", "--pass"}, full},
		{[]string{"filter", "redact"}, full},
		{[]string{"filter", "text", "--follow"}, deltas},
	} {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			out := bufio.NewReader(stdout)
			text := c.args[1] == "text"
			for i, line := range bytes.SplitAfter(c.input, []byte("\n")) {
				if len(line) == 0 {
					continue
				}
				if _, err := stdin.Write(line); err != nil {
					t.Fatal(err)
				}
				if text && !bytes.Contains(line, []byte(`"text_delta"`)) {
					continue // text prints only the answer's text
				}
				got := make(chan string, 1)
				go func() {
					var s []byte
					if text {
						s = make([]byte, 1)
						_, err = io.ReadFull(out, s) // the delta's text, at least its first byte
					} else {
						s, err = out.ReadBytes('\n')
					}
					got <- string(s)
				}()
				select {
				case s := <-got:
					if s == "" {
						t.Fatalf("line %d: nothing came out: %v", i+1, err)
					}
				case <-time.After(60 * time.Second):
					t.Fatalf("line %d was written, and after a minute nothing had come out for it", i+1)
				}
			}
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
