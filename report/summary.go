package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/basecontext/base-context/stages"
)

// summary writes the part of the page that needs the whole stream: the verdict and totals,
// the timeline, the cumulative tokens and cost, the problems and the tools.
func (r *Report) summary(v stages.VerdictSummary) {
	r.write("</main>\n<section id=\"summary\">\n")
	title := r.opts.Title
	if title == "" {
		title = "base-context run"
	}
	r.printf("<h1>%s</h1>\n", esc(title))
	r.printf(`<p><span class="verdict %s" id="verdict">%s</span> exit status <strong id="exit-status">%d</strong>`, esc(v.Status), esc(verdictLabel(v.Status)), v.ExitCode())
	if v.Reason != "" {
		r.printf(` · %s`, esc(v.Reason))
	}
	r.write("</p>\n<dl class=\"facts\">\n")
	if v.SessionID != "" {
		r.printf("<dt>Session</dt><dd>%s</dd>\n", esc(v.SessionID))
	}
	if len(r.runs) > 1 {
		r.printf("<dt>Runs</dt><dd>%d (concatenated streams)</dd>\n", len(r.runs))
	}
	models := make([]string, 0, len(r.models))
	for m := range r.models {
		models = append(models, m)
	}
	slices.Sort(models)
	r.printf("<dt>Models</dt><dd>%s</dd>\n", esc(strings.Join(models, ", ")))
	if v.StopReason != "" {
		r.printf("<dt>Stop reason</dt><dd>%s</dd>\n", esc(v.StopReason))
	}
	r.printf("<dt>Wall time</dt><dd>%s</dd>\n", r.wallTime())
	u := v.Usage
	r.printf("<dt>Turns</dt><dd>%d</dd>\n<dt>Tokens</dt><dd id=\"tokens\">%d in · %d out · %d cache read · %d cache write</dd>\n",
		v.Turns, u.Input, u.Output, u.CacheRead, u.CacheWrite)
	r.printf("<dt>Cost</dt><dd id=\"cost\">$%.4f</dd>\n", u.Cost.Total)
	if v.Retries > 0 || v.Compactions > 0 {
		r.printf("<dt>Retries, compactions</dt><dd>%d, %d</dd>\n", v.Retries, v.Compactions)
	}
	if v.Truncated {
		r.write("<dt>Stream</dt><dd class=\"error-text\">ended in the middle of a run</dd>\n")
	}
	r.write("</dl>\n")
	r.timeline()
	r.cumulative()
	r.problemList()
	r.toolTable(v.Tools)
	r.write("</section>\n")
}

func verdictLabel(status string) string {
	if status == "" {
		return "unknown"
	}
	return strings.ToUpper(status[:1]) + status[1:]
}

func (r *Report) wallTime() string {
	var ms int64
	for _, ru := range r.runs {
		if ru.lastTS > ru.firstTS {
			ms += ru.lastTS - ru.firstTS
		}
	}
	return millis(ms) + " (first to last message)"
}

// timeline draws each run's model calls and tool results on a time axis, one row per step.
// The stream records when each message was made, not when a tool started: a model call lasts
// from its request to the next message; a tool runs from the result before it in the same
// turn, and the first result of a turn is drawn as a mark at the moment it came.
func (r *Report) timeline() {
	type step struct {
		anchor, label, class string
		from, to             int64
	}
	var steps []step
	var t0, t1 int64
	for _, ru := range r.runs {
		type moment struct {
			ts   int64
			tool bool
		}
		moments := make([]moment, 0, len(ru.calls)+len(ru.tools))
		for _, c := range ru.calls {
			moments = append(moments, moment{c.ts, false})
		}
		for _, t := range ru.tools {
			moments = append(moments, moment{t.ts, true})
		}
		// At the same millisecond a request follows the results it sends.
		slices.SortStableFunc(moments, func(a, b moment) int {
			if c := cmp.Compare(a.ts, b.ts); c != 0 || a.tool == b.tool {
				return c
			}
			if a.tool {
				return -1
			}
			return 1
		})
		after := func(ts int64) int64 { // the next moment after ts
			i, _ := slices.BinarySearchFunc(moments, ts+1, func(m moment, ts int64) int { return cmp.Compare(m.ts, ts) })
			if i < len(moments) {
				return moments[i].ts
			}
			return ts
		}
		since := func(ts int64) int64 { // the tool result before ts in its turn, else ts
			i, _ := slices.BinarySearchFunc(moments, ts, func(m moment, ts int64) int { return cmp.Compare(m.ts, ts) })
			if i > 0 && moments[i-1].tool {
				return moments[i-1].ts
			}
			return ts
		}
		for _, c := range ru.calls {
			steps = append(steps, step{c.anchor, "model " + c.model, "model", c.ts, after(c.ts)})
		}
		for _, t := range ru.tools {
			class := "tool"
			if t.isError {
				class = "tool-error"
			}
			steps = append(steps, step{t.anchor, "tool " + t.name, class, since(t.ts), t.ts})
		}
		if len(moments) > 0 {
			if t0 == 0 || moments[0].ts < t0 {
				t0 = moments[0].ts
			}
			t1 = max(t1, moments[len(moments)-1].ts)
		}
	}
	if len(steps) == 0 {
		return
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.from, b.from) })
	const maxRows = 400
	shown := steps[:min(len(steps), maxRows)]
	span := float64(max(t1-t0, 1))
	const width, row = 900.0, 14
	r.write("<h2>Timeline</h2>\n")
	r.printf(`<svg id="timeline" role="img" aria-label="timeline of model calls and tools" viewBox="0 0 %d %d" width="%d" height="%d">`,
		int(width)+200, len(shown)*row+20, int(width)+200, len(shown)*row+20)
	colors := map[string]string{"model": "#0969da", "tool": "#8c959f", "tool-error": "#cf222e"}
	for i, s := range shown {
		x := 200 + float64(s.from-t0)/span*width
		w := max(float64(s.to-s.from)/span*width, 2)
		y := i * row
		r.printf(`<a href="#%s"><text x="0" y="%d">%s</text><rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect></a>`,
			s.anchor, y+11, esc(clip(s.label, 32)), x, y+2, w, row-4, colors[s.class], esc(s.label), millis(s.to-s.from))
	}
	r.printf(`<text x="200" y="%d">0</text><text x="%d" y="%d" text-anchor="end">%s</text></svg>`+"\n",
		len(shown)*row+16, int(width)+200, len(shown)*row+16, millis(t1-t0))
	if len(steps) > maxRows {
		r.printf("<p class=\"cut\">%d more steps not drawn</p>\n", len(steps)-maxRows)
	}
}

// cumulative draws the tokens and the cost added up over the model calls.
func (r *Report) cumulative() {
	var tokens, costs []float64
	var tok, cost float64
	for _, ru := range r.runs {
		for _, c := range ru.calls {
			tok += float64(c.input + c.output + c.cacheRead + c.cacheWr)
			cost += c.cost
			tokens, costs = append(tokens, tok), append(costs, cost)
		}
	}
	if len(tokens) < 2 {
		return
	}
	const w, h = 900.0, 160.0
	line := func(vals []float64, top float64) string {
		var b strings.Builder
		for i, v := range vals {
			y := h
			if top > 0 {
				y = h - v/top*h
			}
			fmt.Fprintf(&b, "%.1f,%.1f ", float64(i)/float64(len(vals)-1)*w, y)
		}
		return b.String()
	}
	r.write("<h2>Tokens and cost over the run</h2>\n")
	r.printf(`<svg id="cumulative" role="img" aria-label="cumulative tokens and cost" viewBox="0 -10 %d %d" width="%d" height="%d">`, int(w)+10, int(h)+30, int(w)+10, int(h)+30)
	r.printf(`<polyline fill="none" stroke="#0969da" stroke-width="2" points="%s"/>`, line(tokens, tok))
	r.printf(`<polyline fill="none" stroke="#1a7f37" stroke-width="2" stroke-dasharray="4 3" points="%s"/>`, line(costs, cost))
	r.printf(`<text x="0" y="%d" fill="#0969da">tokens: %.0f</text><text x="300" y="%d" fill="#1a7f37">cost: $%.4f</text><text x="%d" y="%d" text-anchor="end">%d model calls</text></svg>`+"\n",
		int(h)+16, tok, int(h)+16, cost, int(w), int(h)+16, len(tokens))
}

func (r *Report) problemList() {
	r.printf("<h2>Problems (%d)</h2>\n", len(r.problems)+r.cutout)
	if len(r.problems) == 0 {
		r.write("<p>None.</p>\n")
		return
	}
	r.write("<ol id=\"problems\">\n")
	for _, p := range r.problems {
		r.printf(`<li><a href="#%s">%s</a>: %s</li>`+"\n", esc(p.anchor), esc(p.kind), esc(p.text))
	}
	r.write("</ol>\n")
	if r.cutout > 0 {
		r.printf("<p class=\"cut\">%d more not listed</p>\n", r.cutout)
	}
}

func (r *Report) toolTable(tools []stages.VerdictTool) {
	if len(tools) == 0 {
		return
	}
	r.write("<h2>Tools</h2>\n<table id=\"tools\"><thead><tr><th class=\"sortable\">tool</th><th class=\"sortable\">calls</th><th class=\"sortable\">errors</th><th class=\"sortable\">refused</th></tr></thead><tbody>\n")
	for _, t := range tools {
		r.printf("<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td></tr>\n", esc(t.Name), t.Calls, t.Errors, t.Refused)
	}
	r.write("</tbody></table>\n")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
