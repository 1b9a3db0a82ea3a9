// Package runredact is the redaction of an agent run: the engines (package redact) of its
// event stream, its session file and its tools' full outputs, and where each goes in.
package runredact

import (
	"io"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

// Set is the redaction of an agent run: an engine for each place secrets are removed from,
// each with its own counts. A nil *Set redacts nothing.
type Set struct {
	Stream  *redact.Redactor // the event stream's, and text mode's answer's
	Session *redact.Redactor // what is written to the session file; nil: written as it is
	Tools   *redact.Redactor // the full outputs the tools keep of what they truncate
	Report  bool             // the stream's counts are reported once the run is over
}

// NewSet builds a run's engines with build: the stream's first, with warn true (its rules'
// warnings are said once), then quietly the tools' and, with session, the session file's.
// Each engine counts apart, so that a report counts what the stream shows, not each secret
// twice.
func NewSet(build func(warn bool) (*redact.Redactor, error), session, report bool) (s *Set, err error) {
	s = &Set{Report: report}
	if s.Stream, err = build(true); err != nil {
		return nil, err
	}
	if s.Tools, err = build(false); err != nil {
		return nil, err
	}
	if session {
		if s.Session, err = build(false); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// New builds a run's engines of rules (NewSet): getenv reads the variables of rules.Env,
// and warnings (the stream's alone) go to warnings.
func New(rules filters.Redaction, getenv func(string) string, warnings io.Writer, session, report bool) (*Set, error) {
	return NewSet(func(warn bool) (*redact.Redactor, error) {
		if !warn {
			return rules.Redactor(getenv, io.Discard)
		}
		return rules.Redactor(getenv, warnings)
	}, session, report)
}

// Answer redacts the final answer that text mode prints, with the stream's rules.
func (s *Set) Answer(text string) string {
	if s == nil {
		return text
	}
	return s.Stream.RedactString(text)
}

// SessionLines redacts the entries a fork copies from its parent session when the session
// file is redacted; nil copies them as they are.
func (s *Set) SessionLines() func([]byte) []byte {
	if s == nil || s.Session == nil {
		return nil
	}
	return s.Session.RedactJSON
}

// Stage is the redaction stage of an output chain (before its deltas stage), nil without
// redaction.
func (s *Set) Stage() *stages.Redact {
	if s == nil {
		return nil
	}
	return stages.NewRedact(s.Stream)
}

// ToolRedaction is the tools' redaction of the outputs they truncate, nil without redaction.
func (s *Set) ToolRedaction() func() tools.RedactStream {
	if s == nil {
		return nil
	}
	return func() tools.RedactStream { return s.Tools.Stream() }
}

// Store wraps st so that what it writes is redacted, when the session file is.
func (s *Set) Store(st session.Store) session.Store {
	if s == nil || s.Session == nil {
		return st
	}
	return session.Redacting(st, s.Session)
}

// MinStderrKey is the length from which a configured API key is removed from stderr even
// without redaction: a local server's placeholder key ("ollama") is no secret, and may well
// be a word of the message.
const MinStderrKey = 8

// StderrKeys are the keys of keys that look like keys (MinStderrKey).
func StderrKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		if len(k) >= MinStderrKey {
			out = append(out, k)
		}
	}
	return out
}

// Stderr removes secrets from what a run writes to stderr, so that it carries no more than
// the stream would after redaction: the API keys configured always, since a provider may
// echo the key it was sent, and the tools' arguments may hold them (without redaction, only
// those that look like keys: StderrKeys); with redaction on (rules not nil), whatever the
// rules find too. nil: nothing to remove, or rules the stream's redactor reports as bad.
func Stderr(rules *filters.Redaction, keys []string, getenv func(string) string) func(string) string {
	r := filters.Redaction{NoDefaultRules: true}
	if rules != nil {
		r = *rules
	} else if keys = StderrKeys(keys); len(keys) == 0 {
		return nil
	}
	r.APIKeys = keys
	red, err := r.Redactor(getenv, io.Discard) // the stream's redactor warns
	if err != nil {
		return nil
	}
	return red.RedactString
}

// Error is err with its message redacted by redact (Stderr, nil: nothing to remove), as the
// run's error line on stderr and a resident run's exit record: its status and cause kept.
func Error(err error, redact func(string) string) error {
	code, msg := exitcode.Of(err)
	if msg == "" || redact == nil || redact(msg) == msg {
		return err
	}
	return &exitcode.Error{Code: code, Msg: redact(msg), Err: err}
}

// PrintReport prints the stream's per-rule counts on w with --redact-report (s.Report), once
// the run is over; nothing without it, or without redaction (s nil).
func (s *Set) PrintReport(w io.Writer) {
	if s != nil && s.Report {
		filters.WriteRedactReport(w, s.Stream)
	}
}

// RedactFlags are a run's redaction flags (kong tags; the command line embeds them): the stage of
// `filter redact` in the output chain, and optionally around the session file. The rule
// options are those of `filter redact`, named --redact-pattern, --redact-literal, ...; any
// of them implies --redact.
type RedactFlags struct {
	Redact        bool                    `help:"Remove secrets from the event stream (the rules of 'filter redact', plus the values of the API keys configured)."`
	RedactSession bool                    `help:"Also remove them from what is written to the session file (implies --redact)."`
	RedactRule    filters.RedactRuleFlags `embed:"" prefix:"redact-"`
	RedactReport  bool                    `help:"At the end of the run, print on stderr how many redactions each rule made in the stream (implies --redact)."`
}

// Enabled reports whether any redaction flag asks for redaction.
func (f *RedactFlags) Enabled() bool {
	return f.Redact || f.RedactSession || f.RedactReport || f.RedactRule.Given()
}

// Build compiles the engines, nil without redaction; keys are values always redacted (the
// API keys in use). A bad rule is a usage error.
func (f *RedactFlags) Build(keys []string, getenv func(string) string, warnings io.Writer) (*Set, error) {
	if !f.Enabled() {
		return nil, nil
	}
	s, err := New(f.RedactRule.Redaction("redact-", keys), getenv, warnings, f.RedactSession, f.RedactReport)
	return s, exitcode.Wrap(exitcode.Usage, err)
}

// StderrRedaction removes secrets from what the run writes to stderr (Stderr): the keys
// always, the flags' rules when redaction is on.
func (f *RedactFlags) StderrRedaction(keys []string, getenv func(string) string) func(string) string {
	var rules *filters.Redaction
	if f.Enabled() {
		r := f.RedactRule.Redaction("redact-", nil)
		rules = &r
	}
	return Stderr(rules, keys, getenv)
}

// StreamRedactor is the stream's redactor, nil without redaction.
func (s *Set) StreamRedactor() *redact.Redactor {
	if s == nil {
		return nil
	}
	return s.Stream
}
