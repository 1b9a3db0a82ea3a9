package filters

import (
	"io"

	"github.com/basecontext/base-context/redact"
)

// RedactRuleFlags choose what `filter redact` removes besides (or instead of) the built-in
// rules (kong tags; the command line embeds them, under the prefix redact- in a run).
type RedactRuleFlags struct {
	Pattern        []string `placeholder:"REGEX" sep:"none" help:"Also redact matches of REGEX (Go syntax, repeatable; rules pattern-1, pattern-2, … in order)."`
	Literal        []string `placeholder:"VALUE" sep:"none" help:"Also redact VALUE wherever it occurs (repeatable; rule literal)."`
	Env            []string `placeholder:"NAME" help:"Also redact the current value of environment variable NAME (repeatable; rule env:NAME)."`
	Rules          string   `placeholder:"LIST" help:"Comma-separated built-in rules to use (default: all of them; 'filter redact --list-rules' lists them)."`
	NoDefaultRules bool     `help:"Use no built-in rule: only the patterns, literals and environment values given."`
}

// Given reports whether any rule flag was given.
func (f *RedactRuleFlags) Given() bool {
	return len(f.Pattern) > 0 || len(f.Literal) > 0 || len(f.Env) > 0 || f.Rules != "" || f.NoDefaultRules
}

// Redaction is the flags' redaction, with extra literal values (API keys) under the rule
// api-key. flagPrefix is what the flags' names start with after "--" ("redact-" in a run),
// for the messages.
func (f *RedactRuleFlags) Redaction(flagPrefix string, extra []string) Redaction {
	return Redaction{Patterns: f.Pattern, Literals: f.Literal, Env: f.Env, Rules: f.Rules,
		NoDefaultRules: f.NoDefaultRules, APIKeys: extra, FlagPrefix: flagPrefix}
}

// Redactor compiles the flags (Redaction.Redactor).
func (f *RedactRuleFlags) Redactor(flagPrefix string, getenv func(string) string, warnings io.Writer) (*redact.Redactor, error) {
	return f.Redaction(flagPrefix, nil).Redactor(getenv, warnings)
}
