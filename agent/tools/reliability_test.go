package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/basecontext/base-context/codec"
)

// specialFiles makes a FIFO, a socket and (as root) a character device like /dev/full in
// dir, and returns their names by kind.
func specialFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{"fifo": "pipe", "socket": "sock"}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if os.Geteuid() == 0 {
		if err := syscall.Mknod(filepath.Join(dir, "full"), syscall.S_IFCHR|0o666, 1<<8|7); err == nil {
			files["device"] = "full"
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	files["directory"] = "dir"
	return files
}

// callUnblocked runs a call that must not block. Should it block on a FIFO anyway (the
// defect this guards against), the FIFO gets a writer after a generous delay so that the
// test fails instead of hanging.
func callUnblocked(t *testing.T, opts Options, fifo, name, args string) (Result, error) {
	t.Helper()
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := getTool(t, opts, name).Execute(context.Background(), json.RawMessage(args), func(codec.ToolResult) {})
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatalf("%s %s blocked", name, args)
		return Result{}, nil
	}
}

func TestWriteAndEditRefuseNonRegularFiles(t *testing.T) {
	opts := testOptions(t)
	files := specialFiles(t, opts.Cwd)
	// A link to a FIFO is refused too: the write would go to the FIFO.
	if err := os.Symlink("pipe", filepath.Join(opts.Cwd, "to-pipe")); err != nil {
		t.Fatal(err)
	}
	files["fifo (through a link)"] = "to-pipe"
	fifo := filepath.Join(opts.Cwd, "pipe")
	for kind, name := range files {
		before, err := os.Lstat(filepath.Join(opts.Cwd, name))
		if err != nil {
			t.Fatal(err)
		}
		want := name + " is not a regular file (" + strings.TrimSuffix(kind, " (through a link)") + ")"
		calls := map[string]string{
			"write": `{"path":"` + name + `","content":"x"}`,
			"edit":  `{"path":"` + name + `","edits":[{"oldText":"a","newText":"b"}]}`,
		}
		for tool, args := range calls {
			_, err := callUnblocked(t, opts, fifo, tool, args)
			if err == nil || err.Error() != want {
				t.Errorf("%s on a %s: %v, want %q", tool, kind, err, want)
			}
			after, err := os.Lstat(filepath.Join(opts.Cwd, name))
			if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
				t.Errorf("%s on a %s replaced it: %v %v", tool, kind, after.Mode(), err)
			}
		}
	}
	entries, _ := os.ReadDir(opts.Cwd)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

func TestWriteThroughSymlinks(t *testing.T) {
	opts := testOptions(t)
	target := writeFile(t, opts.Cwd, "real/script.sh", "old\n")
	if err := os.Chmod(target, 0o750); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(opts.Cwd, "link.sh")
	if err := os.Symlink("real/script.sh", link); err != nil {
		t.Fatal(err)
	}
	// A dangling link, relative to a linked folder: ".." is the parent of where it leads.
	if err := os.Symlink("real", filepath.Join(opts.Cwd, "reallink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../new/made.txt", filepath.Join(opts.Cwd, "real", "dangling")); err != nil {
		t.Fatal(err)
	}

	mustCall(t, opts, "write", `{"path":"link.sh","content":"new\n"}`)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if got := readFile(t, target); got != "new\n" {
		t.Errorf("target %q", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o750 {
		t.Errorf("target mode %v", fi.Mode().Perm())
	}

	mustCall(t, opts, "write", `{"path":"reallink/dangling","content":"made\n"}`)
	if fi, err := os.Lstat(filepath.Join(opts.Cwd, "real", "dangling")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the dangling link was replaced: %v", err)
	}
	if got := readFile(t, filepath.Join(opts.Cwd, "new", "made.txt")); got != "made\n" {
		t.Errorf("dangling link's target %q", got)
	}
}

func TestReadAndGrepRefuseNonRegularFilesWithoutBlocking(t *testing.T) {
	opts := testOptions(t)
	files := specialFiles(t, opts.Cwd)
	delete(files, "directory") // read names it a directory; grep searches it
	fifo := filepath.Join(opts.Cwd, "pipe")
	for kind, name := range files {
		want := name + " is not a regular file (" + kind + ")"
		for _, tool := range []string{"read", "grep"} {
			args := `{"path":"` + name + `"}`
			if tool == "grep" {
				args = `{"pattern":"x","path":"` + name + `"}`
			}
			if _, err := callUnblocked(t, opts, fifo, tool, args); err == nil || err.Error() != want {
				t.Errorf("%s of a %s: %v, want %q", tool, kind, err, want)
			}
		}
	}
	// Walking a folder, grep skips them (a link to the FIFO included); find and ls list them.
	writeFile(t, opts.Cwd, "z.txt", "x marks\n")
	if err := os.Symlink("pipe", filepath.Join(opts.Cwd, "to-pipe")); err != nil {
		t.Fatal(err)
	}
	res, err := callUnblocked(t, opts, fifo, "grep", `{"pattern":"x"}`)
	if err != nil || resultText(res) != "z.txt:1: x marks" {
		t.Errorf("grep of the folder: %q %v", resultText(res), err)
	}
	res, err = callUnblocked(t, opts, fifo, "find", `{"pattern":"*"}`)
	if err != nil || !strings.Contains(resultText(res), "pipe\n") {
		t.Errorf("find: %q %v", resultText(res), err)
	}
	res, err = callUnblocked(t, opts, fifo, "ls", `{}`)
	if err != nil || !strings.Contains(resultText(res), "pipe\n") {
		t.Errorf("ls: %q %v", resultText(res), err)
	}
}

// cancelAfter is a context that reports itself cancelled once it has been asked n times:
// a tool that looks at its context while it works stops; one that does not, finishes.
type cancelAfter struct {
	context.Context
	n atomic.Int64
}

func newCancelAfter(n int64) *cancelAfter {
	c := &cancelAfter{Context: context.Background()}
	c.n.Store(n)
	return c
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// sparseFile makes a file of size bytes that starts with head and is a hole after it.
func sparseFile(t *testing.T, dir, name, head string, size int64) string {
	t.Helper()
	p := writeFile(t, dir, name, head)
	if err := os.Truncate(p, size); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	return p
}

// allocatedBy is how many bytes f allocates on the heap (of every goroutine: the tests of
// this package do not run in parallel).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// memoryBound is far above what a streaming tool needs (buffers of 64KB, a line of at most
// 1MB) and far below the files of the tests below.
const memoryBound = 16 << 20

func TestReadHugeLineBoundedAndCancellable(t *testing.T) {
	opts := testOptions(t)
	// 9,000 bytes of text, then a hole: one line of 256MB.
	sparseFile(t, opts.Cwd, "big", strings.Repeat("a", 9000), 256<<20)
	var err error
	alloc := allocatedBy(func() { _, err = call(t, opts, "read", `{"path":"big","offset":2}`) })
	if err == nil || err.Error() != "offset 2 is beyond the end of big (1 lines)" {
		t.Errorf("read: %v", err)
	}
	if alloc > memoryBound {
		t.Errorf("read of a 256MB line allocated %d MB", alloc>>20)
	}
	// The context is looked at while the file is read, not only between lines.
	_, err = getTool(t, opts, "read").Execute(newCancelAfter(2), json.RawMessage(`{"path":"big","offset":2}`), func(codec.ToolResult) {})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
}

func TestReadLongLineKeepsItsHead(t *testing.T) {
	opts := testOptions(t)
	long := strings.Repeat("é", 200_000) // 400KB, longer than the 64KB pieces it is read in
	writeFile(t, opts.Cwd, "long.txt", long+"\nsecond\n")
	res := mustCall(t, opts, "read", `{"path":"long.txt"}`)
	text := resultText(res)
	head := long[:MaxBytes]
	if !strings.HasPrefix(text, head+"\n\n[Output truncated: line 1 is longer than 50KB; showing its first 51200 bytes (2 lines in total). Full output: ") {
		t.Fatalf("text %q", text[MaxBytes-20:])
	}
	var d details
	if err := json.Unmarshal(res.Details, &d); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, d.FullOutputPath); got != long+"\nsecond\n" {
		t.Errorf("full output has %d bytes", len(got))
	}
	if d.Truncation.TotalBytes != int64(len(long))+8 || d.Truncation.TotalLines != 2 {
		t.Errorf("truncation %+v", *d.Truncation)
	}
}

func TestGrepSparseFilesBoundedMemory(t *testing.T) {
	opts := testOptions(t)
	writeFile(t, opts.Cwd, "a.txt", "nothing\nneedle here\n")
	sparseFile(t, opts.Cwd, "hole.img", "", 2<<30)                                        // NULs from the start
	sparseFile(t, opts.Cwd, "late.log", "needle\n"+strings.Repeat("text\n", 2000), 1<<30) // NULs after 10KB of text
	var res Result
	var err error
	alloc := allocatedBy(func() { res, err = call(t, opts, "grep", `{"pattern":"needle"}`) })
	if err != nil || resultText(res) != "a.txt:2: needle here" {
		t.Errorf("grep: %q %v", resultText(res), err)
	}
	if alloc > memoryBound {
		t.Errorf("grep over 3GB of sparse files allocated %d MB", alloc>>20)
	}
}

func TestGrepLongLines(t *testing.T) {
	opts := testOptions(t)
	// A 3MB line (matched within its first 1MB and shown shortened), a match past 1MB of a
	// line (not searched), then a short line.
	writeFile(t, opts.Cwd, "min.js", "needle"+strings.Repeat("x", 3<<20)+"\n"+
		strings.Repeat("y", 2<<20)+"needle\n"+"last needle\n")
	var res Result
	var err error
	alloc := allocatedBy(func() { res, err = call(t, opts, "grep", `{"pattern":"needle","context":1}`) })
	want := "min.js:1: needle" + strings.Repeat("x", grepLineMax-6) + " [line shortened]\n" +
		"min.js-2- " + strings.Repeat("y", grepLineMax) + " [line shortened]\n" +
		"min.js:3: last needle"
	if err != nil || resultText(res) != want {
		t.Errorf("grep: %.300q %v", resultText(res), err)
	}
	if alloc > memoryBound {
		t.Errorf("grep of 5MB of lines allocated %d MB", alloc>>20)
	}
}

func TestGrepCancelledWithinAFile(t *testing.T) {
	opts := testOptions(t)
	// 8MB of text lines without a match: only the context can end the search early.
	p := writeFile(t, opts.Cwd, "huge.txt", "")
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n", 16<<10)) // 1MB
	for range 8 {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	ctx := newCancelAfter(3) // the folder, the file, then within the file
	_, err = getTool(t, opts, "grep").Execute(ctx, json.RawMessage(`{"pattern":"needle"}`), func(codec.ToolResult) {})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled grep: %v", err)
	}
}

func TestEditRefusesHugeFiles(t *testing.T) {
	opts := testOptions(t)
	p := sparseFile(t, opts.Cwd, "big.txt", "old\n", 1<<30)
	var err error
	alloc := allocatedBy(func() {
		_, err = call(t, opts, "edit", `{"path":"big.txt","edits":[{"oldText":"old","newText":"new"}]}`)
	})
	if err == nil || err.Error() != "big.txt has 1024MB, more than the 64MB edit handles; change it with bash (sed, patch) instead" {
		t.Errorf("edit: %v", err)
	}
	if alloc > memoryBound {
		t.Errorf("edit of a 1GB file allocated %d MB", alloc>>20)
	}
	if fi, _ := os.Stat(p); fi.Size() != 1<<30 {
		t.Errorf("size %d", fi.Size())
	}
}

func TestBashKillsBackgroundChildrenWhenItEnds(t *testing.T) {
	opts := testOptions(t)
	// The child does not hold the output pipe: nothing waits for it, yet it must not
	// outlive the call.
	res := mustCall(t, opts, "bash", `{"command":"sleep 300 >/dev/null 2>&1 & echo $!"}`)
	waitGone(t, firstPid(t, resultText(res)))
}

// TestBashChildrenDieWithAKilledAgent kills (SIGKILL: no cleanup possible) a process running
// the bash tool: the shell (Pdeathsig) and the child it left running in the background (the
// lifeline's watcher) die with it.
func TestBashChildrenDieWithAKilledAgent(t *testing.T) {
	if os.Getenv("BASH_TOOL_HELPER") != "" {
		opts := Options{Cwd: os.Getenv("BASH_TOOL_HELPER"), TempDir: os.Getenv("BASH_TOOL_HELPER")}
		call(t, opts, "bash", `{"command":"sleep 300 & echo $$ $! > pids.tmp && mv pids.tmp pids; wait"}`)
		return
	}
	dir := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^TestBashChildrenDieWithAKilledAgent$")
	helper.Env = append(os.Environ(), "BASH_TOOL_HELPER="+dir)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "pids")
	var shell, child int
	for deadline := time.Now().Add(10 * time.Second); ; {
		if b, err := os.ReadFile(pidFile); err == nil {
			if _, err := fmt.Sscan(string(b), &shell, &child); err != nil {
				t.Fatalf("pids file %q: %v", b, err)
			}
			break
		}
		if time.Now().After(deadline) {
			helper.Process.Kill()
			t.Fatal("the helper's command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { syscall.Kill(-shell, syscall.SIGKILL) })
	helper.Process.Kill()
	helper.Wait()
	waitGone(t, child)
	waitGone(t, shell)
}

// The lifeline's watcher is no job of the command's shell: a bare `wait` returns once the
// command's own children have.
func TestBashWaitIgnoresTheLifeline(t *testing.T) {
	res := mustCall(t, testOptions(t), "bash", `{"command":"sleep 0.1 & wait; echo waited $$"}`)
	if text := resultText(res); !strings.HasPrefix(text, "waited ") || res.IsError {
		t.Fatalf("result %q (error %v)", text, res.IsError)
	}
}

func TestGrepCollectsBoundedOutputWhateverTheLimit(t *testing.T) {
	opts := testOptions(t)
	// 48,000 matching lines of 200 bytes: 9.6MB of output asked for by a huge limit.
	line := "match " + strings.Repeat("m", 193) + "\n"
	writeFile(t, opts.Cwd, "many.txt", strings.Repeat(line, 48_000))
	res := mustCall(t, opts, "grep", `{"pattern":"match","limit":10000000}`)
	text := resultText(res)
	d := parseDetails(t, res)
	if d.Truncation == nil || d.Truncation.TotalBytes > maxCollected+int64(len(line))+20 || d.Truncation.TotalBytes < maxCollected-1 {
		t.Fatalf("details %s", res.Details)
	}
	n := d.Truncation.TotalLines
	if !strings.HasSuffix(text, "\n\n[Search stopped after "+strconv.FormatInt(n, 10)+" matches: 4MB of output is as much as grep collects. Refine the pattern or the path.]") {
		t.Errorf("text ...%q", text[len(text)-300:])
	}
}

func TestLsReadsBigFoldersInBatches(t *testing.T) {
	opts := testOptions(t)
	dir := filepath.Join(opts.Cwd, "big")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// 3,000 entries (three batches); the first five in ls order are created last.
	for i := 3000; i > 0; i-- {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("e%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "E00003x"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, opts, "ls", `{"path":"big","limit":5}`)
	if got := resultText(res); got != "e00001\ne00002\ne00003\nE00003x/\ne00004\n\n[Entry limit reached: showing 5 of 3001 entries. Use limit=3001 to see them all.]" {
		t.Errorf("got %q", got)
	}
	// Between batches the context is looked at.
	_, err := getTool(t, opts, "ls").Execute(newCancelAfter(1), json.RawMessage(`{"path":"big"}`), func(codec.ToolResult) {})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ls: %v", err)
	}
}
