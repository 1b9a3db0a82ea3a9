package cli

import (
	"github.com/basecontext/base-context/agent/provider"

	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/internal/runredact"
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

// build compiles the engines, nil without redaction. extraSecrets are values always
// redacted (the API keys in use).
func (c *RedactFlags) build(streams *IO, extraSecrets []string) (*runredact.Set, error) {
	if !c.enabled() {
		return nil, nil
	}
	s, err := runredact.New(c.RedactRule.rules("redact-", extraSecrets), streams.Getenv, streams.Err, c.RedactSession, c.RedactReport)
	return s, Wrap(ExitUsage, err)
}

// stderrRedaction removes secrets from what the run writes to stderr (runredact.Stderr).
func (c *RunCmd) stderrRedaction(streams *IO, models *provider.Models) func(string) string {
	var rules *filters.Redaction
	if c.RedactFlags.enabled() {
		r := c.RedactRule.rules("redact-", nil)
		rules = &r
	}
	return runredact.Stderr(rules, models.Keys(c.APIKey), streams.Getenv)
}
