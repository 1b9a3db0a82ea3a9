// Package report turns a stream (full or delta form, one run or several concatenated) into
// one self-contained HTML page: the verdict, the cost and where the time went at the top,
// then the transcript. It is a sink at the end of a chain, as `filter text` and `filter
// verdict` are: `filter html`, `sessions export` and `--export` end in it.
//
// The page is written as the stream is read, so memory stays bounded: the transcript goes
// out message by message, and the summary, which needs the whole stream, is written after it
// and shown first by the style sheet (it works with JavaScript off). Every string from the
// stream is escaped; Markdown is rendered without raw HTML and without dangerous links; the
// page loads nothing (a Content-Security-Policy allows only its own inline style and script,
// by hash, and data: images).
package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
	"github.com/tidwall/gjson"
)

// Options shape a report.
type Options struct {
	Title string // default: "base-context run <session id>"
	// MaxEmbed is the most bytes of one tool output, file content or image embedded; beyond
	// it the text is cut with a visible mark. 0: DefaultMaxEmbed.
	MaxEmbed int
	// Verdict tells the verdict what the stream cannot (gates configured, the run's stderr).
	Verdict stages.VerdictOptions
}

// DefaultMaxEmbed keeps a report of a long run within a few MB.
const DefaultMaxEmbed = 32 << 10

// embedBudget is the most bytes embedded in all: past it, each output is cut to a small
// head, so that a report of a 100 MB stream stays readable in a browser.
const embedBudget = 2 << 20

// smallEmbed is what an output keeps once the budget is spent.
const smallEmbed = 1 << 10

// Report is the sink that writes the page.
type Report struct {
	opts    Options
	w       *bufio.Writer
	verdict *stages.Verdict
	started bool
	err     error
	updated bool // the last line was an update, which the report skips

	runs     []*run // one per session header (concatenated runs), or one without any
	cur      *run
	messages int // anchors: m1, m2, … in stream order
	embedded int // bytes of outputs embedded so far
	models   map[string]bool
	problems []problem
	cutout   int // problems not listed past maxProblems
}

// run is one session of the stream: its header and totals.
type run struct {
	id, cwd, started string
	firstTS, lastTS  int64 // message timestamps, Unix ms
	calls            []call
	tools            []toolStep
	turns            int
}

// call is one model response, for the timeline and the cumulative chart.
type call struct {
	anchor             string
	model              string
	ts                 int64
	input, output      int64
	cacheRead, cacheWr int64
	cost               float64
	stop               string
}

// toolStep is one tool result, for the timeline.
type toolStep struct {
	anchor, name string
	ts           int64
	isError      bool
}

// problem is an entry of the problems list, linking to its place in the transcript.
type problem struct{ anchor, kind, text string }

const maxProblems = 500

// New returns the report sink writing the page to w.
func New(w io.Writer, opts Options) *Report {
	if opts.MaxEmbed <= 0 {
		opts.MaxEmbed = DefaultMaxEmbed
	}
	return &Report{opts: opts, w: bufio.NewWriterSize(w, 64<<10), verdict: stages.NewVerdict(io.Discard, opts.Verdict), models: map[string]bool{}}
}

// NextDeltas: updates are nothing to the page (the messages' ends and the tool results
// hold what it shows), and only lines to the verdict.
func (r *Report) NextDeltas() stages.NextDeltas {
	if r.updated {
		return stages.DropDeltas
	}
	return stages.PushDeltas
}

func (r *Report) SkippedDeltas(run stages.DeltaRun) error { return r.verdict.SkippedDeltas(run) }

// Consume reads one line of the stream.
func (r *Report) Consume(f *stages.Frame) error {
	if err := r.verdict.Consume(f); err != nil {
		return err
	}
	t := f.Type()
	r.updated = t == codec.TypeMessageUpdate || t == codec.TypeToolExecutionUpdate
	if r.updated {
		return nil
	}
	r.start()
	line := f.Line()
	switch t {
	case codec.TypeSession:
		r.header(gjson.ParseBytes(line))
	case codec.TypeMessageEnd:
		r.message(gjson.GetBytes(line, "message"))
	case codec.TypeToolExecutionEnd:
		r.toolEnd(gjson.ParseBytes(line))
	case codec.TypeCompactionStart:
		r.mark("compaction", "Compaction started ("+gjson.GetBytes(line, "reason").String()+")")
	case codec.TypeCompactionEnd:
		r.compactionEnd(gjson.ParseBytes(line))
	case codec.TypeAutoRetryStart:
		v := gjson.ParseBytes(line)
		text := fmt.Sprintf("Retry %d of %d after %s: %s", v.Get("attempt").Int(), v.Get("maxAttempts").Int(),
			millis(v.Get("delayMs").Int()), v.Get("errorMessage").String())
		r.addProblem(r.mark("retry", text), "retry", text)
	case codec.TypeAutoRetryEnd:
		v := gjson.ParseBytes(line)
		if !v.Get("success").Bool() {
			text := "Retries gave up: " + v.Get("finalError").String()
			r.addProblem(r.mark("retry", text), "retry", text)
		}
	case codec.TypeTurnStart:
		r.run().turns++
	}
	return r.err
}

// Close writes the summary and the end of the page.
func (r *Report) Close() error {
	if err := r.verdict.Close(); err != nil {
		return err
	}
	r.start()
	r.summary(r.verdict.Summary())
	r.printf("%s</body>\n</html>\n", scriptTag)
	if r.err != nil {
		return r.err
	}
	return r.w.Flush()
}

func (r *Report) printf(format string, args ...any) {
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, format, args...)
	}
}

func (r *Report) write(s string) {
	if r.err == nil {
		_, r.err = r.w.WriteString(s)
	}
}

// start writes the head of the page, once.
func (r *Report) start() {
	if r.started {
		return
	}
	r.started = true
	title := r.opts.Title
	if title == "" {
		title = "base-context run"
	}
	r.write(strings.Replace(pageHead, titleMark, esc(title), 1))
}

// run is the current run: the last header's, or one without a header.
func (r *Report) run() *run {
	if r.cur == nil {
		r.cur = &run{}
		r.runs = append(r.runs, r.cur)
	}
	return r.cur
}

func (r *Report) header(v gjson.Result) {
	r.cur = &run{id: strings.Clone(v.Get("id").String()), cwd: strings.Clone(v.Get("cwd").String()), started: strings.Clone(v.Get("timestamp").String())}
	resumed := ""
	for _, earlier := range r.runs {
		if earlier.id == r.cur.id {
			resumed = " (resumed)" // a later run of the same session: --resume, --continue
			break
		}
	}
	r.runs = append(r.runs, r.cur)
	r.printf(`<section class="run-start" id="run%d"><h2>Session %s%s</h2><p class="meta">%s · started %s</p></section>`+"\n",
		len(r.runs), esc(r.cur.id), resumed, esc(r.cur.cwd), esc(r.cur.started))
}

// anchor names the next item of the transcript.
func (r *Report) anchor() string {
	r.messages++
	return fmt.Sprintf("m%d", r.messages)
}

// mark writes a one-line marker (a compaction, a retry) and returns its anchor.
func (r *Report) mark(kind, text string) string {
	a := r.anchor()
	r.printf(`<div class="mark %s" id="%s">%s</div>`+"\n", kind, a, esc(text))
	return a
}

func (r *Report) addProblem(anchor, kind, text string) {
	if len(r.problems) >= maxProblems {
		r.cutout++
		return
	}
	r.problems = append(r.problems, problem{strings.Clone(anchor), strings.Clone(kind), strings.Clone(text)}) // not the lines they came from
}

func (r *Report) compactionEnd(v gjson.Result) {
	switch {
	case v.Get("aborted").Bool():
		text := "Compaction interrupted"
		r.addProblem(r.mark("compaction", text), "compaction", text)
	case !v.Get("result").Exists():
		text := "Compaction failed: " + v.Get("errorMessage").String()
		r.addProblem(r.mark("compaction", text), "compaction", text)
	default:
		a := r.anchor()
		res := v.Get("result")
		r.printf(`<details class="mark compaction" id="%s"><summary>Compacted (%s tokens before)</summary>%s</details>`+"\n",
			a, esc(res.Get("tokensBefore").String()), markdown(res.Get("summary").String()))
		r.addProblem(a, "compaction", "Compaction ("+v.Get("reason").String()+")")
	}
}

// toolEnd records a refused or failed tool for the problems list; the transcript shows the
// result from its toolResult message.
func (r *Report) toolEnd(v gjson.Result) {
	if !v.Get("isError").Bool() {
		return
	}
	text := firstText(v.Get("result.content"))
	kind := "tool error"
	switch {
	case strings.HasPrefix(text, "Permission denied (sandbox"):
		kind = "sandbox refusal"
	case strings.HasPrefix(text, codec.PermissionDeniedPrefix):
		kind = "permission refusal"
	}
	r.addProblem("t-"+v.Get("toolCallId").String(), kind, v.Get("toolName").String()+": "+firstLine(text))
}

// cut returns s within the embed limits, and how many bytes were cut.
func (r *Report) cut(s string) (string, int) {
	limit := r.opts.MaxEmbed
	if r.embedded >= embedBudget {
		limit = min(limit, smallEmbed)
	}
	if len(s) <= limit {
		r.embedded += len(s)
		return s, 0
	}
	keep := limit
	for keep > 0 && keep < len(s) && !utf8Start(s[keep]) {
		keep--
	}
	r.embedded += keep
	return s[:keep], len(s) - keep
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func firstText(content gjson.Result) string {
	for _, b := range content.Array() {
		if b.Get("type").String() == "text" {
			return b.Get("text").String()
		}
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func millis(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	default:
		return fmt.Sprintf("%dm%02ds", ms/60_000, ms/1000%60)
	}
}
