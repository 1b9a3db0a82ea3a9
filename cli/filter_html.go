package cli

import (
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/report"
	"github.com/basecontext/base-context/stages"
)

// ReportFlags shape an HTML report: `filter html`, `sessions export`, `--export`.
type ReportFlags struct {
	Title      string          `help:"The page's title (default: base-context run)."`
	MaxEmbed   string          `placeholder:"SIZE" help:"Most of one tool output, file content or image embedded (default: 32KB); beyond it the text is cut with a visible mark (after 2 MB in all, 1 KB each)."`
	Redact     bool            `help:"Remove secrets first, by the rules of 'filter redact' (the --redact-* options choose them)."`
	RedactRule RedactRuleFlags `embed:"" prefix:"redact-"`
}

func (f *ReportFlags) settings(streams *IO, verdict stages.VerdictOptions) report.Settings {
	s := report.Settings{Title: f.Title, MaxEmbed: f.MaxEmbed, Verdict: verdict, Getenv: streams.Getenv, Stderr: streams.Err}
	if f.Redact {
		r := f.RedactRule.rules("redact-", nil)
		s.Redact = &r
	}
	return s
}

// HTMLCmd is `filter html`.
type HTMLCmd struct {
	FilterIO
	RunFacts
	ReportFlags
	Index bool `help:"Write an index of the runs in the files instead (status, exit, cost, duration, turns, model; sortable), linking to NAME.html beside each NAME.jsonl."`
}

func (c *HTMLCmd) Run(streams *IO) error {
	if err := c.check(); err != nil {
		return err
	}
	read := filters.RunStderr{Path: c.Stderr}
	s := c.settings(streams, c.RunFacts.options(&read))
	if c.Index {
		return s.Index(c.Files, c.Output, streams.Out)
	}
	return s.Write(c.job(streams, false))
}
