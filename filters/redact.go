package filters

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/basecontext/base-context/redact"
)

// Redaction is what the redaction flags give (filter redact's, and the agent's --redact-…).
type Redaction struct {
	Patterns, Literals, Env []string
	Rules                   string // comma-separated built-in rules; "": all
	NoDefaultRules          bool
	APIKeys                 []string // literal values redacted under the rule api-key
	FlagPrefix              string   // what the flags' names start with after "--", for the messages
}

// Redactor compiles the redaction; getenv reads the variables of Env, and warnings says which
// of them are not redacted (unset or too short). An error is a flag's bad value.
func (f Redaction) Redactor(getenv func(string) string, warnings io.Writer) (*redact.Redactor, error) {
	flagPrefix, extra := f.FlagPrefix, f.APIKeys
	opts := redact.Options{Patterns: f.Patterns, NoDefaultRules: f.NoDefaultRules}
	if f.Rules != "" && !f.NoDefaultRules {
		opts.Rules = []string{}
		for _, id := range strings.Split(f.Rules, ",") {
			if id = strings.TrimSpace(id); id != "" {
				opts.Rules = append(opts.Rules, id)
			}
		}
	}
	for _, v := range f.Literals {
		opts.Literals = append(opts.Literals, redact.Literal{ID: "literal", Value: v})
	}
	for _, name := range f.Env {
		v := getenv(name)
		if len(v) < redact.MinLiteral {
			// Nothing to protect, or too short to redact without mangling ordinary text.
			fmt.Fprintf(warnings, "redact: --%senv %s: not set or shorter than %d bytes, not redacted\n", flagPrefix, name, redact.MinLiteral)
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
			return nil, fmt.Errorf("--%spattern %q: %v", flagPrefix, pe.Pattern, pe.Err)
		}
		return nil, err
	}
	return r, nil
}

// WriteRules lists the built-in redaction rules, one a line: id and description.
func WriteRules(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, r := range redact.Rules() {
		fmt.Fprintf(tw, "%s\t%s\n", r.ID, r.Description)
	}
	return tw.Flush()
}

// WriteRedactReport writes one line per rule that redacted something.
func WriteRedactReport(w io.Writer, r *redact.Redactor) {
	counts := r.Counts()
	if len(counts) == 0 {
		fmt.Fprintln(w, "redacted nothing")
		return
	}
	for _, c := range counts {
		fmt.Fprintf(w, "redacted %d× %s\n", c.Count, c.ID)
	}
}
