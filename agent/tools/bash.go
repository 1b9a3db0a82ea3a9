package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/basecontext/base-context/codec"
)

const bashDescription = `Run a shell command with bash in the working directory and get back its output, stdout and stderr interleaved as they were written.

Standard input is empty, so anything that waits for keyboard input will not work; pass flags that make commands non-interactive.

If the output is longer than 2000 lines or 50KB, only its end is returned and the complete output is saved to a file whose path the result gives (read or grep it if you need the beginning).

A nonzero exit status makes the call an error; the result ends with the exit code. Give timeout (in seconds) for anything that might run long or hang: when it expires, the command and every process it started are killed.`

var bashParams = []param{
	{name: "command", typ: "string", required: true, desc: "The command line to run, as you would type it in bash."},
	{name: "timeout", typ: "number", desc: "Seconds after which the command is killed. No limit when omitted."},
}

const (
	// updateInterval is the shortest time between two streamed updates.
	updateInterval = 100 * time.Millisecond
	// drainGrace is how long output is still read after the shell has exited, for background
	// processes that keep the output pipe open.
	drainGrace = 200 * time.Millisecond
)

type bashTool struct{ opts Options }

func (*bashTool) Name() string                { return "bash" }
func (*bashTool) Description() string         { return bashDescription }
func (*bashTool) Parameters() json.RawMessage { return objectSchema(bashParams) }

// lifelineScript runs the command ($1) in the shell ($0) as the leader of its process group,
// beside a watcher that kills the whole group once the agent's end of the lifeline pipe (fd 3)
// closes. The agent kills the group itself on every way out it lives to see; the watcher
// covers the one it does not: the agent killed with SIGKILL, where Pdeathsig reaches only the
// shell and the shell's own children would live on. The command gets neither fd 3 nor the
// watcher as a job of its own (exec), so its `wait` and `$$` behave as in a plain `sh -c`.
const lifelineScript = `{ read _ <&3; kill -KILL 0; } </dev/null >/dev/null 2>&1 & exec "$0" -c "$1" 3<&-`

var shellPath = sync.OnceValue(func() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
})

// emptyDetails is the Details of every streamed update that carries output.
var emptyDetails = json.RawMessage("{}")

func (t *bashTool) Execute(ctx context.Context, raw json.RawMessage, update func(codec.ToolResult)) (Result, error) {
	if update == nil {
		update = func(codec.ToolResult) {}
	}
	a, err := parseArgs("bash", raw)
	if err != nil {
		return Result{}, err
	}
	command, err := a.nonEmpty("command")
	if err != nil {
		return Result{}, err
	}
	timeout, hasTimeout, err := a.number("timeout")
	if err != nil {
		return Result{}, err
	}
	if hasTimeout && timeout <= 0 {
		return Result{}, a.errorf(`"timeout" must be a positive number of seconds, got %s`, formatSeconds(timeout))
	}
	if ctx.Err() != nil {
		//lint:ignore ST1005 the upstream agent's words, which the model and RPC clients see
		return Result{}, errors.New("Command aborted")
	}

	dir := resolvePath(t.opts.Cwd, ".")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return Result{}, fmt.Errorf("working directory %s does not exist", dir)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("cannot start command: %v", err)
	}
	lifelineRead, lifelineWrite, err := os.Pipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return Result{}, fmt.Errorf("cannot start command: %v", err)
	}
	defer lifelineWrite.Close()
	shell := shellPath()
	cmd := exec.Command(shell, "-c", command)
	if lifelineSupported {
		cmd.Args = []string{shell, "-c", lifelineScript, shell, command}
		cmd.ExtraFiles = []*os.File{lifelineRead} // fd 3
	}
	cmd.Dir = dir
	cmd.Env = t.opts.commandEnv(ctx)
	cmd.Stdin = nil // the null device
	cmd.Stdout = pw // one pipe for both, so the order of writes is kept
	cmd.Stderr = pw
	cmd.SysProcAttr = processGroupAttr()

	update(codec.ToolResult{Content: []codec.Content{}})
	err = t.opts.Sandbox.Wrap(cmd) // through `sandbox exec`, which restricts itself, then the shell
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		pr.Close()
		pw.Close()
		lifelineRead.Close()
		return Result{}, fmt.Errorf("cannot start command: %v", err)
	}
	pw.Close()
	lifelineRead.Close()

	out := &collector{opts: t.opts, emitted: -1}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32*1024)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				out.write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	// Whatever the command started dies with it, however the call ends: the shell leads a
	// process group of its own, and the group is killed on every way out (the shell's exit
	// included, once its output has been read), so no child outlives the call or the run.
	killGroup := func() { killProcessGroup(cmd.Process) }
	defer killGroup()

	var timer <-chan time.Time
	if hasTimeout {
		tm := time.NewTimer(time.Duration(timeout * float64(time.Second)))
		defer tm.Stop()
		timer = tm.C
	}
	ticker := time.NewTicker(updateInterval)
	defer ticker.Stop()
	cancelled := ctx.Done()
	var waitErr error
	timedOut, aborted := false, false
wait:
	for {
		select {
		case waitErr = <-waitDone:
			break wait
		case <-ticker.C:
			out.emit(update, false)
		case <-timer:
			timedOut = true
			timer = nil
			killGroup()
		case <-cancelled:
			aborted = true
			cancelled = nil
			killGroup()
		}
	}
	if timedOut || aborted {
		killGroup() // anything the shell started after the first kill
	}

	grace := time.NewTimer(drainGrace)
	select {
	case <-readDone:
	case <-grace.C:
		killGroup() // a background process still holds the pipe
		pr.Close()  // (or one that left the group): stop reading
		<-readDone
	}
	grace.Stop()
	pr.Close()

	out.emit(update, true)
	text, d := out.finish()
	status := ""
	switch {
	case aborted:
		status = "Command aborted"
	case timedOut:
		status = fmt.Sprintf("Command timed out after %s seconds", formatSeconds(timeout))
	case waitErr != nil:
		var exitErr *exec.ExitError
		if !errors.As(waitErr, &exitErr) {
			status = fmt.Sprintf("Command failed: %v", waitErr)
		} else if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = fmt.Sprintf("Command terminated by signal %d (%s)", int(ws.Signal()), ws.Signal())
		} else {
			status = fmt.Sprintf("Command exited with code %d", exitErr.ExitCode())
		}
	}
	res := Result{Details: d.encode(), Status: status, Output: text}
	if status != "" {
		res.IsError = true
		if note := t.opts.Sandbox.Note(res.Output, true); note != "" {
			text = appendNote(text, note) // before the status, which ends the text
		}
		text = appendNote(text, status)
	} else if text == "" {
		text = "(no output)"
	}
	res.Content = []codec.Content{&codec.TextContent{Text: text}}
	return res, nil
}

func formatSeconds(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) }

// collector gathers a command's output. It keeps everything in memory while the output fits
// MaxBytes; past that it writes the whole output to a full-output file and keeps only a tail
// in memory. With redaction, what it keeps of a spilled output is redacted as it arrives
// (the file redacts what it writes), so that the tail, the updates and the file agree.
type collector struct {
	opts Options

	mu       sync.Mutex
	buf      []byte // all output, or its tail once spilled
	midLine  bool   // buf (a trimmed tail) starts inside a line
	spilled  bool
	redact   RedactStream // of buf, once spilled
	file     *outputFile
	fileErr  error
	total    int64 // of the output (redacted, once spilled)
	newlines int64
	lastByte byte
	version  int // number of writes so far
	emitted  int // version of the last update sent, -1 for none
}

func (c *collector) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version++
	if !c.spilled && len(c.buf)+len(p) > MaxBytes {
		c.spilled = true
		c.file, c.fileErr = createOutputFile(c.opts)
		if c.fileErr == nil {
			_, c.fileErr = c.file.Write(c.buf)
		}
		if c.opts.Redact != nil {
			c.redact = c.opts.Redact()
			c.buf = append([]byte(nil), c.redact(c.buf, false)...)
			c.total, c.newlines = 0, 0
			c.add(c.buf)
		}
	}
	if c.file != nil && c.fileErr == nil {
		_, c.fileErr = c.file.Write(p)
	}
	if c.redact != nil {
		p = c.redact(p, false)
	}
	c.keep(p)
}

// add counts p as part of the output.
func (c *collector) add(p []byte) {
	if len(p) == 0 {
		return
	}
	c.total += int64(len(p))
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	c.lastByte = p[len(p)-1]
}

// keep adds p to the output and to buf.
func (c *collector) keep(p []byte) {
	c.add(p)
	c.buf = append(c.buf, p...)
	if len(c.buf) > 2*MaxBytes {
		c.trim()
	}
}

// trim drops the head of buf, keeping at most MaxBytes and starting at a line if it can.
func (c *collector) trim() {
	start := len(c.buf) - MaxBytes
	if c.buf[start-1] != '\n' {
		if i := bytes.IndexByte(c.buf[start:], '\n'); i >= 0 {
			start += i + 1
		}
	}
	c.midLine = c.buf[start-1] != '\n'
	nb := make([]byte, len(c.buf)-start, 3*MaxBytes)
	copy(nb, c.buf[start:])
	c.buf = nb
}

// snapshot is the tail of the output so far that fits the limits.
func (c *collector) snapshot() string {
	s := string(c.buf)
	if fitsLimits(s) {
		return s
	}
	return cutTail(s, MaxLines, MaxBytes).text
}

// emit sends the output so far as an update if it changed since the last one, or always
// when force is set and no update was sent since the last write.
func (c *collector) emit(update func(codec.ToolResult), force bool) {
	c.mu.Lock()
	if c.version == c.emitted || (!force && c.version == 0) {
		c.mu.Unlock()
		return
	}
	c.emitted = c.version
	text := c.snapshot()
	c.mu.Unlock()
	update(codec.ToolResult{
		Content: []codec.Content{&codec.TextContent{Text: text}},
		Details: emptyDetails,
	})
}

// finish returns the output, tail-truncated with a note if it does not fit the limits, and
// the details of the truncation (nil if none).
func (c *collector) finish() (string, *details) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.spilled {
		return truncateOutput(string(c.buf), c.opts, true)
	}
	if c.redact != nil {
		c.keep(c.redact(nil, true))
		c.redact = nil
	}
	path := ""
	if c.file != nil {
		if err := c.file.Close(); err != nil && c.fileErr == nil {
			c.fileErr = err
		}
		if c.fileErr != nil {
			os.Remove(c.file.Name())
		} else {
			path = c.file.Name()
		}
		c.file = nil
	}
	s := string(c.buf)
	ct := cutTail(s, MaxLines, MaxBytes)
	// The output exceeded MaxBytes, but buf may hold exactly what fits: then the byte limit
	// decided the cut even though cutTail ran out of text first.
	if ct.lines < MaxLines {
		ct.byBytes = true
	}
	// Once trimmed, buf starts inside a line only when that line is longer than MaxBytes.
	if c.midLine && len(ct.text) == len(s) && ct.lines == 1 {
		ct.partial = true
	}
	total := c.newlines
	if c.lastByte != '\n' {
		total++
	}
	note := truncationNote(ct, total-int64(ct.lines)+1, total, true, "", path, c.fileErr)
	return appendNote(ct.text, note), &details{
		Truncation: &truncationInfo{
			TotalLines:  total,
			TotalBytes:  c.total,
			OutputLines: int64(ct.lines),
			OutputBytes: int64(len(ct.text)),
		},
		FullOutputPath: path,
	}
}
