package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// md renders Markdown as CommonMark with GitHub's tables and strikethrough; raw HTML is
// left out and dangerous link targets (javascript:, …) emptied, goldmark's defaults.
var md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

func markdown(s string) string {
	var b bytes.Buffer
	if err := md.Convert([]byte(s), &b); err != nil {
		return "<pre>" + esc(s) + "</pre>"
	}
	return b.String()
}

// message writes one ended message of the transcript.
func (r *Report) message(m gjson.Result) {
	if !m.IsObject() {
		return
	}
	ts := m.Get("timestamp").Int()
	ru := r.run()
	if ts > 0 {
		if ru.firstTS == 0 {
			ru.firstTS = ts
		}
		ru.lastTS = max(ru.lastTS, ts)
	}
	a := r.anchor()
	switch role := m.Get("role").String(); role {
	case "user":
		r.printf(`<article class="msg user" id="%s"><h3>User</h3>`, a)
		r.blocks(m.Get("content"))
		r.write("</article>\n")
	case "assistant":
		r.assistant(a, m, ts)
	case "toolResult":
		r.toolResult(a, m, ts)
	case "compactionSummary":
		r.printf(`<details class="mark compaction" id="%s"><summary>Compaction summary (%s tokens before)</summary>%s</details>`+"\n",
			a, esc(m.Get("tokensBefore").String()), markdown(m.Get("summary").String()))
	case "branchSummary":
		r.printf(`<details class="mark" id="%s"><summary>Branch summary</summary>%s</details>`+"\n", a, markdown(m.Get("summary").String()))
	case "bashExecution":
		out, cut := r.cut(m.Get("output").String())
		r.printf(`<article class="msg bash" id="%s"><h3>Command run by the user</h3><pre>$ %s</pre><pre>%s</pre>%s</article>`+"\n",
			a, esc(m.Get("command").String()), esc(out), cutMark(cut))
	default:
		r.printf(`<article class="msg other" id="%s"><h3>%s</h3>`, a, esc(cmpOr(m.Get("customType").String(), role)))
		r.blocks(m.Get("content"))
		r.write("</article>\n")
	}
}

func (r *Report) assistant(a string, m gjson.Result, ts int64) {
	u := m.Get("usage")
	c := call{anchor: a, model: m.Get("provider").String() + "/" + m.Get("model").String(), ts: ts,
		input: u.Get("input").Int(), output: u.Get("output").Int(), cacheRead: u.Get("cacheRead").Int(),
		cacheWr: u.Get("cacheWrite").Int(), cost: u.Get("cost.total").Float(), stop: strings.Clone(m.Get("stopReason").String())}
	ru := r.run()
	ru.calls = append(ru.calls, c)
	r.models[c.model] = true
	r.printf(`<article class="msg assistant" id="%s"><h3>Assistant</h3><p class="meta">%s · %d in / %d out tokens · $%.4f · %s</p>`,
		a, esc(c.model), c.input, c.output, c.cost, esc(c.stop))
	for _, b := range m.Get("content").Array() {
		switch b.Get("type").String() {
		case "text":
			r.write(markdown(b.Get("text").String()))
		case "thinking":
			r.printf(`<details class="thinking"><summary>Thinking</summary><pre>%s</pre></details>`, esc(b.Get("thinking").String()))
		case "toolCall":
			r.toolCall(b)
		}
	}
	if e := m.Get("errorMessage").String(); e != "" {
		r.printf(`<p class="error-text">%s</p>`, esc(e))
		r.addProblem(a, "model "+c.stop, e)
	}
	r.write("</article>\n")
}

// toolCall shows a call with its arguments: an edit as a diff, a write as the file, bash
// as its command, others as their JSON.
func (r *Report) toolCall(b gjson.Result) {
	name, args := b.Get("name").String(), b.Get("arguments")
	r.printf(`<div class="toolcall" id="t-%s"><strong>%s</strong> `, esc(b.Get("id").String()), esc(name))
	switch {
	case name == "bash" && args.Get("command").Exists():
		r.printf(`<pre>$ %s</pre>`, esc(args.Get("command").String()))
	case name == "edit" && args.Get("path").Exists():
		r.printf(`<code>%s</code>`, esc(args.Get("path").String()))
		edits := args.Get("edits").Array()
		if len(edits) == 0 {
			edits = []gjson.Result{args}
		}
		for _, e := range edits {
			r.write(`<pre class="diff">`)
			r.diff(e.Get("oldText").String(), e.Get("newText").String())
			r.write(`</pre>`)
		}
	case name == "write" && args.Get("path").Exists():
		content, cut := r.cut(args.Get("content").String())
		r.printf(`<code>%s</code><pre>%s</pre>%s`, esc(args.Get("path").String()), esc(content), cutMark(cut))
	default:
		text, cut := r.cut(pretty(args.Raw))
		r.printf(`<pre>%s</pre>%s`, esc(text), cutMark(cut))
	}
	r.write("</div>")
}

func (r *Report) diff(old, new string) {
	for _, l := range lineDiff(splitLines(old), splitLines(new)) {
		switch l.op {
		case '-':
			r.printf(`<del>- %s</del>`, esc(l.text))
		case '+':
			r.printf(`<ins>+ %s</ins>`, esc(l.text))
		default:
			r.printf("  %s\n", esc(l.text))
		}
	}
}

func (r *Report) toolResult(a string, m gjson.Result, ts int64) {
	id, name, isErr := m.Get("toolCallId").String(), m.Get("toolName").String(), m.Get("isError").Bool()
	// Kept values are cloned: a gjson string is a slice of the whole message it came from.
	r.run().tools = append(r.run().tools, toolStep{anchor: a, name: strings.Clone(name), ts: ts, isError: isErr})
	class, status := "result", "ok"
	if isErr {
		class, status = "result error", "error"
	}
	r.printf(`<details class="%s" id="%s"><summary>Result of <a href="#t-%s">%s</a> (%s)</summary>`, class, a, esc(id), esc(name), status)
	r.blocks(m.Get("content"))
	r.write("</details>\n")
}

// blocks writes text and image blocks (a string content is one text).
func (r *Report) blocks(content gjson.Result) {
	if content.Type == gjson.String {
		text, cut := r.cut(content.String())
		r.printf(`<pre>%s</pre>%s`, esc(text), cutMark(cut))
		return
	}
	for _, b := range content.Array() {
		switch b.Get("type").String() {
		case "text":
			text, cut := r.cut(b.Get("text").String())
			r.printf(`<pre>%s</pre>%s`, esc(text), cutMark(cut))
		case "image":
			r.image(b.Get("mimeType").String(), b.Get("data").String())
		}
	}
}

var (
	imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}
	base64Text = regexp.MustCompile(`^[A-Za-z0-9+/]*={0,2}$`)
)

// image embeds an image as a data: URL when it is one of the types the models take, its
// data is base64 and it fits; otherwise it says so.
func (r *Report) image(mime, data string) {
	switch {
	case !imageTypes[mime] || !base64Text.MatchString(data):
		r.printf(`<p class="cut">an image (%s) not embedded</p>`, esc(mime))
	case len(data) > r.opts.MaxEmbed || r.embedded >= embedBudget:
		r.printf(`<p class="cut">an image (%s, %s) not embedded: larger than the limit</p>`, esc(mime), size(len(data)*3/4))
	default:
		r.embedded += len(data)
		r.printf(`<img class="embedded" alt="image" src="data:%s;base64,%s">`, mime, data)
	}
}

func cutMark(n int) string {
	if n == 0 {
		return ""
	}
	return `<p class="cut">cut ` + size(n) + `</p>`
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func pretty(raw string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(raw), "", "  ") != nil {
		return raw
	}
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
