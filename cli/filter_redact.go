package cli

import (
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

// RedactRuleFlags choose what `filter redact` removes besides (or instead of) the built-in
// rules.
type RedactRuleFlags struct {
	Pattern        []string `placeholder:"REGEX" sep:"none" help:"Also redact matches of REGEX (Go syntax, repeatable; rules pattern-1, pattern-2, … in order)."`
	Literal        []string `placeholder:"VALUE" sep:"none" help:"Also redact VALUE wherever it occurs (repeatable; rule literal)."`
	Env            []string `placeholder:"NAME" help:"Also redact the current value of environment variable NAME (repeatable; rule env:NAME)."`
	Rules          string   `placeholder:"LIST" help:"Comma-separated built-in rules to use (default: all of them; 'filter redact --list-rules' lists them)."`
	NoDefaultRules bool     `help:"Use no built-in rule: only the patterns, literals and environment values given."`
}

// RedactCmd is `filter redact`.
type RedactCmd struct {
	FilterIO
	RedactRuleFlags
	Report    bool `help:"At the end, print on stderr how many redactions each rule made."`
	ListRules bool `help:"List the built-in rules and exit."`
}

// Run runs the filter.
func (c *RedactCmd) Run(streams *IO) error {
	if c.ListRules {
		return filters.WriteRules(streams.Out)
	}
	r, err := c.RedactRuleFlags.redactor(streams, "", nil)
	if err != nil {
		return err
	}
	err = c.run(streams, stages.NewRedact(r))
	if c.Report {
		filters.WriteRedactReport(streams.Err, r)
	}
	return err
}

// redactor compiles the flags, with extra literal values (API keys) under the rule api-key.
// flagPrefix is what the flags' names start with after "--" ("redact-" in the agent), for
// the messages.
func (f *RedactRuleFlags) redactor(streams *IO, flagPrefix string, extra []string) (*redact.Redactor, error) {
	r, err := f.rules(flagPrefix, extra).Redactor(streams.Getenv, streams.Err)
	return r, Wrap(ExitUsage, err)
}

// rules are the flags' redaction (filters.Redaction).
func (f *RedactRuleFlags) rules(flagPrefix string, extra []string) filters.Redaction {
	return filters.Redaction{Patterns: f.Pattern, Literals: f.Literal, Env: f.Env, Rules: f.Rules,
		NoDefaultRules: f.NoDefaultRules, APIKeys: extra, FlagPrefix: flagPrefix}
}
