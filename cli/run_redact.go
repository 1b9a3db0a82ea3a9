package cli

import (
	"io"
	"slices"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

// RedactFlags are the agent's redaction flags: the stage of `filter redact` in the output
// chain, and optionally around the session file. The rule options are those of `filter
// redact`, named --redact-pattern, --redact-literal, ...; any of them implies --redact.
type RedactFlags struct {
	Redact        bool            `help:"Remove secrets from the event stream (the rules of 'filter redact', plus the values of the API keys configured)."`
	RedactSession bool            `help:"Also remove them from what is written to the session file (implies --redact)."`
	RedactRule    RedactRuleFlags `embed:"" prefix:"redact-"`
	RedactReport  bool            `help:"At the end of the run, print on stderr how many redactions each rule made in the stream (implies --redact)."`
}

// enabled: any redaction flag asks for redaction.
func (c *RedactFlags) enabled() bool {
	f := &c.RedactRule
	return c.Redact || c.RedactSession || c.RedactReport || len(f.Pattern) > 0 || len(f.Literal) > 0 ||
		len(f.Env) > 0 || f.Rules != "" || f.NoDefaultRules
}

// redaction is what the redaction flags resolve to: the engines (package redact) of the
// stream, the session file and the tools' truncated outputs, each with its own counts. A
// nil *redaction redacts nothing.
type redaction struct {
	stream  *redact.Redactor // the stream's stage's, and text mode's answer's
	session *redact.Redactor // the session file's, with --redact-session; else nil
	tools   *redact.Redactor
	report  bool
}

// build compiles the engines, nil without redaction. extraSecrets are values always
// redacted (the API keys in use).
func (c *RedactFlags) build(streams *IO, extraSecrets []string) (*redaction, error) {
	if !c.enabled() {
		return nil, nil
	}
	r := &redaction{report: c.RedactReport}
	var err error
	if r.stream, err = c.RedactRule.redactor(streams, "redact-", extraSecrets); err != nil {
		return nil, err
	}
	// Built again, quietly (the stream's build warned), so that the report counts what
	// the stream shows, not each secret twice.
	quiet := *streams
	quiet.Err = io.Discard
	if r.tools, err = c.RedactRule.redactor(&quiet, "redact-", extraSecrets); err != nil {
		return nil, err
	}
	if c.RedactSession {
		if r.session, err = c.RedactRule.redactor(&quiet, "redact-", extraSecrets); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// stage returns a redaction stage over the stream's engine for an output chain (before its
// deltas stage), nil without redaction.
func (r *redaction) stage() *stages.Redact {
	if r == nil {
		return nil
	}
	return stages.NewRedact(r.stream)
}

// toolRedaction is the tools' redaction of the outputs they truncate, nil without
// redaction.
func (r *redaction) toolRedaction() func() tools.RedactStream {
	if r == nil {
		return nil
	}
	return func() tools.RedactStream { return r.tools.Stream() }
}

// answer redacts the final answer that text mode prints, with the stream's rules.
func (r *redaction) answer(text string) string {
	if r == nil {
		return text
	}
	return r.stream.RedactString(text)
}

// minStderrKey is the length from which a configured key is removed from stderr without
// --redact.
const minStderrKey = 8

// redactError removes secrets from the message of err, which becomes the run's error: line
// on stderr (and a resident run's exit record), as from every other text on stderr.
func (c *RunCmd) redactError(streams *IO, models *modelsFile, err error) error {
	code, msg := exitCode(err)
	if msg == "" {
		return err
	}
	if redact := c.stderrRedaction(streams, models); redact != nil {
		if red := redact(msg); red != msg {
			return &ExitError{Code: code, Msg: red, Err: err}
		}
	}
	return err
}

// stderrRedaction removes secrets from what the run writes to stderr, so that it carries no
// more than the stream would after redaction: the API keys configured always, since a
// provider may echo the key it was sent, and the tools' arguments may hold them; with
// redaction on, whatever the rules find too. nil: nothing to remove.
func (c *RunCmd) stderrRedaction(streams *IO, models *modelsFile) func(string) string {
	keys := c.ModelFlags.keys(models)
	rules := c.RedactRule
	if !c.RedactFlags.enabled() {
		// Only keys that look like keys: a local server's placeholder ("ollama") is no
		// secret, and may well be a word of the message.
		keys = slices.DeleteFunc(keys, func(k string) bool { return len(k) < minStderrKey })
		if len(keys) == 0 {
			return nil
		}
		rules = RedactRuleFlags{NoDefaultRules: true}
	}
	quiet := *streams
	quiet.Err = io.Discard // the stream's redactor warns
	r, err := rules.redactor(&quiet, "redact-", keys)
	if err != nil {
		return nil // the plan reports it
	}
	return r.RedactString
}

// sessionLines redacts the entries a fork copies from its parent session, with
// --redact-session; nil copies them as they are.
func (r *redaction) sessionLines() func([]byte) []byte {
	if r == nil || r.session == nil {
		return nil
	}
	return r.session.RedactJSON
}

// printReport prints the stream's per-rule counts with --redact-report, once the run is over.
func (r *redaction) printReport(streams *IO) {
	if r != nil && r.report {
		printRedactReport(streams.Err, r.stream)
	}
}

// store wraps s so that what it writes is redacted, with --redact-session.
func (r *redaction) store(s session.Store) session.Store {
	if r == nil || r.session == nil {
		return s
	}
	return session.Redacting(s, r.session)
}
