package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
		tw := tabwriter.NewWriter(streams.Out, 2, 8, 2, ' ', 0)
		for _, r := range redact.Rules() {
			fmt.Fprintf(tw, "%s\t%s\n", r.ID, r.Description)
		}
		return tw.Flush()
	}
	r, err := c.RedactRuleFlags.redactor(streams, "", nil)
	if err != nil {
		return err
	}
	err = c.run(streams, stages.NewRedact(r))
	if c.Report {
		printRedactReport(streams.Err, r)
	}
	return err
}

// redactor compiles the flags, with extra literal values (API keys) under the rule api-key.
// flagPrefix is what the flags' names start with after "--" ("redact-" in the agent), for
// the messages.
func (f *RedactRuleFlags) redactor(streams *IO, flagPrefix string, extra []string) (*redact.Redactor, error) {
	opts := redact.Options{Patterns: f.Pattern, NoDefaultRules: f.NoDefaultRules}
	if f.Rules != "" && !f.NoDefaultRules {
		opts.Rules = []string{}
		for _, id := range strings.Split(f.Rules, ",") {
			if id = strings.TrimSpace(id); id != "" {
				opts.Rules = append(opts.Rules, id)
			}
		}
	}
	for _, v := range f.Literal {
		opts.Literals = append(opts.Literals, redact.Literal{ID: "literal", Value: v})
	}
	for _, name := range f.Env {
		v := streams.Getenv(name)
		if len(v) < redact.MinLiteral {
			// Nothing to protect, or too short to redact without mangling ordinary text.
			fmt.Fprintf(streams.Err, "redact: --%senv %s: not set or shorter than %d bytes, not redacted\n", flagPrefix, name, redact.MinLiteral)
			continue
		}
		opts.Literals = append(opts.Literals, redact.Literal{ID: "env:" + name, Value: v})
	}
	for _, v := range extra {
		if len(v) >= redact.MinLiteral {
			opts.Literals = append(opts.Literals, redact.Literal{ID: "api-key", Value: v})
		}
	}
	r, err := redact.New(opts)
	if err != nil {
		var pe *redact.PatternError
		if errors.As(err, &pe) {
			return nil, Fail(ExitUsage, fmt.Sprintf("--%spattern %q: %v", flagPrefix, pe.Pattern, pe.Err))
		}
		return nil, Fail(ExitUsage, err.Error())
	}
	return r, nil
}

// printRedactReport writes one line per rule that redacted something.
func printRedactReport(w io.Writer, r *redact.Redactor) {
	counts := r.Counts()
	if len(counts) == 0 {
		fmt.Fprintln(w, "redacted nothing")
		return
	}
	for _, c := range counts {
		fmt.Fprintf(w, "redacted %d× %s\n", c.Count, c.ID)
	}
}
