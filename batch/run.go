package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basecontext/base-context/agent/outputschema"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/stages"
	"github.com/basecontext/base-context/terminal"
	"github.com/tidwall/gjson"
)

// Flags are the batch's own flags; the run flags that follow them are every task's defaults.
type Flags struct {
	Out         string        `placeholder:"DIR" help:"The output folder: DIR/<id>/events.jsonl and result.json per task, DIR/summary.jsonl. Run again to finish what is left."`
	Workers     int           `placeholder:"N" help:"Tasks run at the same time (default, or 0: one per CPU when every task plays the offline scripted provider, else 2)."`
	MaxCost     float64       `placeholder:"USD" help:"Cost of the whole batch past which no new task starts (running ones finish); exit 3 if tasks were left."`
	TaskTimeout time.Duration `placeholder:"DURATION" help:"Longest time one task may run; then it is stopped (SIGTERM) and recorded as timed out."`
	Shard       string        `placeholder:"I/N" help:"Run only the tasks whose id hashes (FNV-1a) to shard I of N: N machines split the tasks with no coordinator."`
	RetryFailed bool          `help:"Run the failed tasks again (their earlier output is kept in DIR/<id>/attempt-N/)."`
	Mode        string        `placeholder:"text|json" help:"The progress on stdout, one line per finished task: text (the default), or json, one JSON object a line. Every task runs with --mode json whatever this is."`
}

// Process is what the batch gets from the process around it.
type Process struct {
	Validate func([]string) error // parses run flags as the run command does
	Ctx      context.Context      // cancelled by a stop signal: running tasks are cut, to run again next time
	Signal   func() os.Signal     // the signal that cancelled Ctx
	Stdout   io.Writer
	Stderr   io.Writer
	Live     bool // stderr is a terminal: a progress line
	Width    func() int
}

// Config is one batch: the flags, the tasks and the process around it.
type Config struct {
	Flags
	Process
	Tasks    string   // the tasks file
	Defaults []string // run flags for every task
	Exe      string   // the base-context binary the tasks run
}

// stopGrace is how long a task stopped by --task-timeout or a signal has to end before it is
// killed.
const stopGrace = 10 * time.Second

type batch struct {
	Config
	out                 *json.Encoder
	status              *terminal.Status
	mu                  sync.Mutex
	cost                float64
	done, failed, total int
	running             int
	started             time.Time
	finishedRun         int // tasks finished in this invocation, for the ETA
	pauses              map[string]time.Time
}

// Run runs the batch; its error carries the exit status (exitcode).
func Run(c Config) error {
	if c.Ctx == nil {
		c.Ctx = context.Background()
	}
	if c.Out == "" {
		return exitcode.New(exitcode.Usage, "--out DIR is required: the folder of the results")
	}
	if c.Workers < 0 {
		return exitcode.New(exitcode.Usage, "--workers must be at least 1 (0: the default)")
	}
	if c.Mode != "" && c.Mode != "text" && c.Mode != "json" {
		return exitcode.New(exitcode.Usage, fmt.Sprintf("--mode %q: the batch's progress is text or json", c.Mode))
	}
	if c.MaxCost < 0 {
		return exitcode.New(exitcode.Usage, "--max-cost must not be negative")
	}
	shard, err := ParseShard(c.Shard)
	if err != nil {
		return err
	}
	for _, a := range c.Defaults {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if why, ok := reservedFlags[name]; ok && strings.HasPrefix(a, "-") {
			return exitcode.New(exitcode.Usage, fmt.Sprintf("%s: %s", a, why))
		}
	}
	if c.Validate != nil {
		if err := c.Validate(c.Defaults); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	all, err := ReadTasks(c.Tasks, c.Defaults, c.Validate)
	if err != nil {
		return err
	}
	var tasks []Task
	for _, t := range all {
		if shard.Has(t.ID) {
			tasks = append(tasks, t)
		}
	}
	if c.Workers == 0 {
		c.Workers = defaultWorkers(tasks, runtime.NumCPU())
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	unlock, err := lockDir(c.Out)
	if err != nil {
		return err
	}
	defer unlock()
	results, err := reconcile(c.Out)
	if err != nil {
		return err
	}
	b := &batch{Config: c, out: json.NewEncoder(c.Stdout), total: len(tasks), started: time.Now(), pauses: map[string]time.Time{}}
	if c.Live {
		b.status = terminal.New(c.Stderr, terminal.Options{Show: true, Live: true, Width: c.Width})
		defer b.status.Close()
	}
	var pending []Task
	for _, t := range tasks {
		r, ok := results[t.ID]
		if ok && c.RetryFailed && r.Status != stages.VerdictCompleted {
			if err := keepAside(filepath.Join(c.Out, t.ID), resultFile, eventsFile, stderrFile); err != nil {
				return err
			}
			ok = false
		}
		if !ok {
			pending = append(pending, t)
			continue
		}
		b.cost += r.Cost
		b.done++
		if r.Status != stages.VerdictCompleted {
			b.failed++
		}
	}
	if c.RetryFailed {
		if _, err := reconcile(c.Out); err != nil {
			return err
		}
	}
	left, err := b.dispatch(pending)
	if err != nil {
		return err
	}
	b.emit(map[string]any{"type": "batch_end", "total": b.total, "done": b.done, "failed": b.failed, "notStarted": left, "cost": round(b.cost)})
	switch {
	case c.Ctx.Err() != nil:
		return exitcode.SignalError(c.Signal())
	case left > 0:
		return exitcode.New(exitcode.Limit, fmt.Sprintf("max-cost reached ($%.4f/$%g): %d tasks not started", b.cost, c.MaxCost, left))
	case b.failed > 0:
		return exitcode.New(exitcode.Failure, fmt.Sprintf("%d of %d tasks failed", b.failed, b.total))
	}
	return nil
}

// defaultWorkers is --workers when it is not given: one per CPU when every task plays the
// offline scripted provider (its runs cost CPU time, and no provider's rate limit), else 2.
func defaultWorkers(tasks []Task, cpus int) int {
	for _, t := range tasks {
		if !offline(t.Args) {
			return 2
		}
	}
	return max(cpus, 1)
}

// offline reports whether run flags leave the run on the scripted provider: its last --model
// is script/<name>, or --provider script, or neither --model nor --provider is given (the
// default model is script/default; a model from the settings file is not looked at).
func offline(args []string) bool {
	var model, prov string
	for i := 0; i < len(args); i++ {
		name, value, inline := strings.Cut(args[i], "=")
		if name != "--model" && name != "--provider" {
			continue
		}
		if !inline && i+1 < len(args) {
			i++
			value = args[i]
		}
		if name == "--model" {
			model = value
		} else {
			prov = value
		}
	}
	if prov != "" {
		return prov == "script"
	}
	return model == "" || strings.HasPrefix(model, "script/")
}

// dispatch runs the tasks on the workers and returns how many the cost cap left unstarted.
// A worker takes its next task only once its last has been counted, so that the cap sees
// every cost finished before it.
func (b *batch) dispatch(pending []Task) (left int, err error) {
	next := 0
	take := func() (Task, bool) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if next == len(pending) || b.Ctx.Err() != nil || (b.MaxCost > 0 && b.cost >= b.MaxCost) {
			return Task{}, false
		}
		next++
		return pending[next-1], true
	}
	var wg sync.WaitGroup
	var errOnce sync.Once
	for range b.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t, ok := take(); ok; t, ok = take() {
				if terr := b.runTask(t); terr != nil {
					errOnce.Do(func() { err = terr })
				}
			}
		}()
	}
	wg.Wait()
	if b.Ctx.Err() != nil {
		return 0, err
	}
	return len(pending) - next, err
}

// provider is the key of the shared back-off: the provider of the task's model.
func provider(t Task) string {
	p, _, _ := strings.Cut(flagValue(t.Args, "model"), "/") // "": the settings' default model
	return p
}

// flagValue is the last value of the long flag name in args, written --name=V or --name V.
func flagValue(args []string, name string) string {
	v := ""
	for i, a := range args {
		if rest, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			v = rest
		} else if a == "--"+name && i+1 < len(args) {
			v = args[i+1]
		}
	}
	return v
}

// waitBackoff waits until the provider's pause, if any, is over.
func (b *batch) waitBackoff(key string) time.Duration {
	var waited time.Duration
	for {
		b.mu.Lock()
		until := b.pauses[key]
		b.mu.Unlock()
		d := time.Until(until)
		if d <= 0 || b.Ctx.Err() != nil {
			return waited
		}
		select {
		case <-time.After(d):
			waited += d
		case <-b.Ctx.Done():
		}
	}
}

// rateLimited notes a rate limit a run met: no worker starts a task on that provider until
// the pause the run waits is over.
func (b *batch) rateLimited(t Task, delay time.Duration) {
	key := provider(t)
	b.mu.Lock()
	until := time.Now().Add(delay)
	if until.After(b.pauses[key]) {
		b.pauses[key] = until
	}
	b.mu.Unlock()
	b.emit(map[string]any{"type": "backoff", "id": t.ID, "provider": key, "delayMs": delay.Milliseconds()})
}

func (b *batch) runTask(t Task) error {
	waited := b.waitBackoff(provider(t))
	if b.Ctx.Err() != nil {
		return nil
	}
	dir := filepath.Join(b.Out, t.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	removeTemps(dir)
	if err := keepAside(dir, eventsFile, stderrFile); err != nil { // a cut attempt's output
		return err
	}
	b.change(func() { b.running++ })
	r, cut, err := b.execute(t, dir)
	b.change(func() { b.running-- })
	if err != nil || cut {
		return err
	}
	r.Attempt = attempts(dir) + 1
	if waited > 0 {
		b.emit(map[string]any{"type": "waited", "id": t.ID, "waitedMs": waited.Milliseconds()})
	}
	data, _ := json.Marshal(r)
	if err := writeFileAtomic(filepath.Join(dir, resultFile), append(data, '\n')); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := appendLine(filepath.Join(b.Out, summaryFile), r.summaryLine()); err != nil {
		return err
	}
	b.cost += r.Cost
	b.done++
	b.finishedRun++
	if r.Status != stages.VerdictCompleted {
		b.failed++
	}
	b.emitLocked(map[string]any{"type": "task_end", "id": t.ID, "status": r.Status, "exit": r.Exit,
		"cost": r.Cost, "durationMs": r.DurationMs, "done": b.done, "total": b.total, "batchCost": round(b.cost)})
	b.showLocked()
	return nil
}

// execute runs the task's child process and decides its result; cut is true when the batch
// was stopped before the task ended (its output is kept aside next time, and it runs again).
func (b *batch) execute(t Task, dir string) (r Result, cut bool, err error) {
	events, err := os.Create(filepath.Join(dir, eventsFile))
	if err != nil {
		return r, false, err
	}
	defer events.Close()
	stderr, err := os.Create(filepath.Join(dir, stderrFile))
	if err != nil {
		return r, false, err
	}
	defer stderr.Close()
	args := append(append([]string(nil), t.Args...), "--mode=json", "--")
	cmd := exec.Command(b.Exe, append(args, t.Prompts...)...)
	cmd.Dir = t.Cwd
	cmd.Stderr = stderr
	setProcAttr(cmd)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return r, false, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, false, err
	}
	var timedOut atomic.Bool
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			if cmd.Process.Signal(syscall.SIGTERM) != nil { // Windows has no SIGTERM to send
				cmd.Process.Kill()
			}
			time.AfterFunc(stopGrace, func() { cmd.Process.Kill() })
		})
	}
	var timer *time.Timer
	if b.TaskTimeout > 0 {
		timer = time.AfterFunc(b.TaskTimeout, func() { timedOut.Store(true); stop() })
	}
	watchDone := make(chan struct{})
	go func() {
		select {
		case <-b.Ctx.Done():
			stop()
		case <-watchDone:
		}
	}()
	answer, copyErr := b.copyStream(t, pipe, events)
	waitErr := cmd.Wait()
	close(watchDone)
	if timer != nil {
		timer.Stop()
	}
	if copyErr != nil {
		return r, false, copyErr
	}
	if err := events.Sync(); err != nil {
		return r, false, err
	}
	r = Result{ID: t.ID, DurationMs: time.Since(start).Milliseconds(), TimedOut: timedOut.Load()}
	r.Exit, r.Signal = exitOf(cmd.ProcessState, waitErr)
	v, err := verdictOf(filepath.Join(dir, eventsFile), filepath.Join(dir, stderrFile))
	if err != nil {
		return r, false, err
	}
	r.Status, r.Cost, r.SessionID = v.Status, v.Usage.Cost.Total, v.SessionID
	if b.Ctx.Err() != nil && r.Status != stages.VerdictCompleted {
		return r, true, nil
	}
	r.Verdict = v.line
	if r.Status == stages.VerdictCompleted {
		r.Output = outputValue(t, answer)
	}
	return r, false, nil
}

// copyStream copies the run's stream to the file, line by line, watching for rate limits, and returns the
// text of the last assistant message.
func (b *batch) copyStream(t Task, from io.Reader, to io.Writer) (answer string, err error) {
	r := bufio.NewReaderSize(from, 64<<10)
	w := to // unbuffered: the file shows each line as it comes, for whoever follows it
	for {
		line, rerr := r.ReadSlice('\n')
		if len(line) > 0 {
			if _, err := w.Write(line); err != nil {
				io.Copy(io.Discard, r)
				return "", err
			}
			if !errors.Is(rerr, bufio.ErrBufferFull) {
				answer = b.watch(t, line, answer)
			}
		}
		if rerr == bufio.ErrBufferFull {
			continue
		}
		if rerr != nil {
			return answer, nil
		}
	}
}

func (b *batch) watch(t Task, line []byte, answer string) string {
	typ := gjson.GetBytes(line, "type").Str
	switch typ {
	case codec.TypeAutoRetryStart:
		msg := gjson.GetBytes(line, "errorMessage").Str
		if strings.HasPrefix(msg, "429") || strings.Contains(strings.ToLower(msg), "rate limit") {
			b.rateLimited(t, time.Duration(gjson.GetBytes(line, "delayMs").Int())*time.Millisecond)
		}
	case codec.TypeMessageEnd:
		if gjson.GetBytes(line, "message.role").Str == "assistant" {
			var text strings.Builder
			for _, c := range gjson.GetBytes(line, "message.content").Array() {
				if c.Get("type").Str == "text" {
					text.WriteString(c.Get("text").Str)
				}
			}
			return text.String()
		}
	}
	return answer
}

// outputValue is the JSON value of the answer of a task run with --output-schema, as the run
// printed it in text mode; nil without the flag.
func outputValue(t Task, answer string) json.RawMessage {
	path := flagValue(t.Args, "output-schema")
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) && t.Cwd != "" {
		path = filepath.Join(t.Cwd, path)
	}
	schema, err := outputschema.Load(path)
	if err != nil {
		return nil
	}
	value, problem := schema.Check(answer)
	if problem != "" {
		return nil
	}
	return json.RawMessage(value)
}

// exitOf is the child's exit status, 128+N for a signal N.
func exitOf(ps *os.ProcessState, err error) (int, string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal().String()
	}
	return ps.ExitCode(), ""
}

type verdict struct {
	stages.VerdictSummary
	line json.RawMessage // as `filter verdict` writes it
}

// verdictOf is what `filter verdict --stderr` says of the task's files.
func verdictOf(events, stderr string) (verdict, error) {
	f, err := os.Open(events)
	if err != nil {
		return verdict{}, err
	}
	defer f.Close()
	read := filters.RunStderr{Path: stderr}
	var line bytes.Buffer
	v := stages.NewVerdict(&line, stages.VerdictOptions{RunError: read.LastError})
	if _, err := stages.RunSink([]stages.Input{{Name: events, Reader: f}}, codec.NewLineWriter(io.Discard), v, stages.RunOptions{SkipInvalid: true}); err != nil {
		return verdict{}, err
	}
	return verdict{v.Summary(), json.RawMessage(bytes.TrimSpace(line.Bytes()))}, nil
}

func (b *batch) change(fn func()) {
	b.mu.Lock()
	fn()
	b.showLocked()
	b.mu.Unlock()
}

func (b *batch) emit(v map[string]any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.emitLocked(v)
}

// emitLocked writes a progress line on stdout; a closed stdout does not stop the batch: the
// files are the record.
func (b *batch) emitLocked(v map[string]any) {
	if b.Mode == "json" {
		b.out.Encode(v)
		return
	}
	fmt.Fprintln(b.Stdout, progressText(v))
}

// progressText is a progress line in the text form.
func progressText(v map[string]any) string {
	ms := func(k string) time.Duration {
		n, _ := v[k].(int64)
		return (time.Duration(n) * time.Millisecond).Round(100 * time.Millisecond)
	}
	switch v["type"] {
	case "task_end":
		return fmt.Sprintf("[%d/%d] %s: %s (exit %d, %s, $%.4f; batch $%.4f)", v["done"], v["total"], v["id"], v["status"],
			v["exit"], ms("durationMs"), v["cost"], v["batchCost"])
	case "backoff":
		return fmt.Sprintf("%s: %s asks to wait %s: its tasks wait together", v["id"], v["provider"], ms("delayMs"))
	case "waited":
		return fmt.Sprintf("%s: started after waiting %s for its provider", v["id"], ms("waitedMs"))
	case "batch_end":
		return fmt.Sprintf("batch: %d of %d tasks done, %d failed, %d not started, $%.4f", v["done"], v["total"], v["failed"], v["notStarted"], v["cost"])
	}
	return fmt.Sprint(v)
}

// showLocked draws the progress line on a terminal: done, running, failed, cost, ETA.
func (b *batch) showLocked() {
	if b.status == nil {
		return
	}
	eta := ""
	if b.finishedRun > 0 {
		per := time.Since(b.started) / time.Duration(b.finishedRun) // wall time per task, workers and all
		rest := time.Duration(b.total-b.done) * per
		eta = ", ETA " + rest.Round(time.Second).String()
	}
	b.status.Show(fmt.Sprintf("batch: %d/%d done, %d running, %d failed, $%.4f%s", b.done, b.total, b.running, b.failed, b.cost, eta))
}

func round(x float64) float64 { return float64(int64(x*1e9+0.5)) / 1e9 }
