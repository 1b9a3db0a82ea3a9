package report

import (
	"cmp"
	"fmt"
	"io"

	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/stages"
)

// Settings are a report's options as the command line gives them: `filter html`,
// `sessions export`, `--export`.
type Settings struct {
	Title    string
	MaxEmbed string             // a size (ParseSize); "": DefaultMaxEmbed
	Redact   *filters.Redaction // the rules applied before anything is embedded; nil: none
	Verdict  stages.VerdictOptions
	Getenv   func(string) string // for the redaction's env rules
	Stderr   io.Writer           // its warnings, and a session's
}

// options are the report's options and the redaction stage that goes before it (nil:
// none); a bad size or rule is a usage error.
func (s Settings) options() (Options, stages.Stage, error) {
	size, err := ParseSize(cmp.Or(s.MaxEmbed, fmt.Sprint(DefaultMaxEmbed)))
	if err != nil {
		return Options{}, nil, exitcode.New(exitcode.Usage, "--max-embed: "+err.Error())
	}
	opts := Options{Title: s.Title, MaxEmbed: size, Verdict: s.Verdict}
	if s.Redact == nil {
		return opts, nil, nil
	}
	r, err := s.Redact.Redactor(s.Getenv, s.Stderr)
	if err != nil {
		return opts, nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return opts, stages.NewRedact(r), nil
}

// Write runs the report over job's input to its output.
func (s Settings) Write(job filters.Job) error {
	opts, before, err := s.options()
	if err != nil {
		return err
	}
	return job.Sink(before, func(out io.Writer) stages.Sink { return New(out, opts) })
}

// Export writes the report of the session file at path to output ("" or -: stdout).
func (s Settings) Export(path, output string, stdout io.Writer) error {
	events := control.Events(path, func(path, w string) { fmt.Fprintf(s.Stderr, "warning: %s: %s\n", path, w) })
	defer events.Close()
	return s.Write(filters.Job{Output: output, Stdin: events, Stdout: stdout, Stderr: s.Stderr})
}

// Index writes the index page of the runs in files to output ("" or -: stdout), replaced
// atomically.
func (s Settings) Index(files []string, output string, stdout io.Writer) error {
	opts, _, err := s.options()
	if err != nil {
		return err
	}
	if output == "" || output == "-" {
		return WriteIndex(stdout, files, opts)
	}
	out, err := filters.Create(output)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	err = WriteIndex(out, files, opts)
	if cerr := out.Commit(err == nil); err == nil {
		err = cerr
	}
	return err
}

// Flags shape a report (kong tags; `filter html`, `sessions export` and `--export` embed
// them).
type Flags struct {
	Title      string                  `help:"The page's title (default: base-context run)."`
	MaxEmbed   string                  `placeholder:"SIZE" help:"Most of one tool output, file content or image embedded (default: 32KB); beyond it the text is cut with a visible mark (after 2 MB in all, 1 KB each)."`
	Redact     bool                    `help:"Remove secrets first, by the rules of 'filter redact' (the --redact-* options choose them)."`
	RedactRule filters.RedactRuleFlags `embed:"" prefix:"redact-"`
}

// Settings are the flags' settings; getenv and stderr serve the redaction.
func (f *Flags) Settings(getenv func(string) string, stderr io.Writer, verdict stages.VerdictOptions) Settings {
	s := Settings{Title: f.Title, MaxEmbed: f.MaxEmbed, Verdict: verdict, Getenv: getenv, Stderr: stderr}
	if f.Redact {
		r := f.RedactRule.Redaction("redact-", nil)
		s.Redact = &r
	}
	return s
}
