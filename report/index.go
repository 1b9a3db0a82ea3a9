package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// Facts are a report's totals, for an index of several runs.
type Facts struct {
	Verdict stages.VerdictSummary
	WallMS  int64
	Models  []string
}

// Facts returns the totals of the stream read so far (all of it once closed).
func (r *Report) Facts() Facts {
	f := Facts{Verdict: r.verdict.Summary()}
	for _, ru := range r.runs {
		if ru.lastTS > ru.firstTS {
			f.WallMS += ru.lastTS - ru.firstTS
		}
	}
	for m := range r.models {
		f.Models = append(f.Models, m)
	}
	return f
}

// WriteIndex writes the index page of the streams in files: one row per run with its
// status, exit status, cost, duration, turns and model, sortable, each linking to its
// report when one sits beside it (NAME.html for NAME.jsonl). A file that cannot be read is
// a row that says so.
func WriteIndex(w io.Writer, files []string, opts Options) error {
	title := opts.Title
	if title == "" {
		title = "base-context runs"
	}
	page := New(w, Options{Title: title})
	page.start()
	page.write("</main>\n<section id=\"summary\">\n")
	page.printf("<h1>%s</h1>\n<table id=\"runs\"><thead><tr><th class=\"sortable\">run</th><th class=\"sortable\">status</th><th class=\"sortable\">exit</th><th class=\"sortable\">cost</th><th class=\"sortable\">duration</th><th class=\"sortable\">turns</th><th class=\"sortable\">model</th></tr></thead><tbody>\n", esc(title))
	bases := map[string]int{}
	for _, name := range files {
		bases[filepath.Base(name)]++
	}
	for _, name := range files {
		facts, err := factsOf(name, opts)
		label := filepath.Base(name)
		if bases[label] > 1 { // runs kept as <run>/events.jsonl (a batch's folder): the folder tells them apart
			label = filepath.Join(filepath.Base(filepath.Dir(name)), label)
		}
		link := esc(label)
		if html := strings.TrimSuffix(name, filepath.Ext(name)) + ".html"; fileExists(html) {
			link = fmt.Sprintf(`<a href="%s">%s</a>`, esc(filepath.Base(html)), link)
		}
		if err != nil {
			page.printf("<tr><td>%s</td><td colspan=\"6\" class=\"error-text\">%s</td></tr>\n", link, esc(err.Error()))
			continue
		}
		v := facts.Verdict
		page.printf(`<tr><td>%s</td><td><span class="verdict %s">%s</span></td><td>%d</td><td data-v="%f">$%.4f</td><td data-v="%d">%s</td><td>%d</td><td>%s</td></tr>`+"\n",
			link, esc(v.Status), esc(v.Status), v.ExitCode(), v.Usage.Cost.Total, v.Usage.Cost.Total, facts.WallMS, millis(facts.WallMS), v.Turns, esc(strings.Join(facts.Models, ", ")))
	}
	page.write("</tbody></table>\n</section>\n" + scriptTag + "</body>\n</html>\n")
	if page.err != nil {
		return page.err
	}
	return page.w.Flush()
}

func factsOf(name string, opts Options) (Facts, error) {
	f, err := os.Open(name)
	if err != nil {
		return Facts{}, err
	}
	defer f.Close()
	r := New(io.Discard, Options{Verdict: opts.Verdict})
	if _, err := stages.RunSink([]stages.Input{{Name: name, Reader: f}}, codec.NewLineWriter(io.Discard), r, stages.RunOptions{SkipInvalid: true}); err != nil {
		return Facts{}, err
	}
	return r.Facts(), nil
}

func fileExists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// ParseSize reads a size: a number of bytes, or one with a unit (KB, MB; KiB, MiB are the
// same here).
func ParseSize(s string) (int, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	var n int
	if _, err := fmt.Sscanf(t, "%d", &n); err != nil || n <= 0 || fmt.Sprint(n) != t {
		return 0, fmt.Errorf("size %q: expected a positive number of bytes, or one with KB or MB", s)
	}
	return n * mult, nil
}
