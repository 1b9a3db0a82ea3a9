package skills

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/basecontext/base-context/codec"
)

// List writes the skills found (`skills list`): a table of name, scope, path and
// description, or one JSON object per skill and line (Skill) with asJSON. The refused ones
// follow the table, with their problems (in JSON: {"path","problems"} lines).
func List(w io.Writer, set *Set, asJSON bool) error {
	if asJSON {
		out := codec.NewLineWriter(w)
		for _, s := range set.Skills {
			line, _ := json.Marshal(s)
			if err := out.WriteLine(line); err != nil {
				return err
			}
		}
		for _, r := range set.Refused {
			line, _ := json.Marshal(r)
			if err := out.WriteLine(line); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tPATH\tDESCRIPTION")
	for _, s := range set.Skills {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Scope, s.Path, oneLine(s.Description, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range set.Refused {
		for _, p := range r.Problems {
			if _, err := fmt.Fprintf(w, "refused %s: %s\n", r.Path, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// ProblemsError is `skills validate` finding problems: its status is 1.
type ProblemsError struct{ Count int }

func (e *ProblemsError) Error() string { return fmt.Sprintf("%d problems", e.Count) }

// ExitCode is 1: the skills are not valid.
func (e *ProblemsError) ExitCode() int { return 1 }

// Validate checks path (`skills validate`): each valid skill is a line "ok NAME PATH", each
// problem a line on problems; a *ProblemsError when there is one.
func Validate(out, problems io.Writer, path string) error {
	valid, found := ValidatePath(path)
	for _, s := range valid {
		fmt.Fprintf(out, "ok %s %s\n", s.Name, s.Path)
	}
	for _, p := range found {
		fmt.Fprintln(problems, p)
	}
	if len(found) > 0 {
		return &ProblemsError{Count: len(found)}
	}
	return nil
}

func oneLine(s string, max int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\r' {
			r[i] = ' '
		}
	}
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return string(r)
}
