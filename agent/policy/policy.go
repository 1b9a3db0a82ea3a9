// Package policy decides which tool calls may run: rules that allow or deny a tool, a
// command of bash or a path of the file tools, and what happens to a call no rule allows.
package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	"mvdan.cc/sh/v3/syntax"
)

// Mode says what happens to a call that no allow rule matches (a denied one never runs).
type Mode string

const (
	ModeAllow Mode = "allow" // it runs
	ModeAsk   Mode = "ask"   // the client is asked; without one, as ModeDeny
	ModeDeny  Mode = "deny"  // it is refused
)

// AskTimeout is how long a question waits for its answer: no answer is no.
const AskTimeout = 60 * time.Second

// Rule is TOOL or TOOL(PATTERN): TOOL is a name, or a glob of names in which * is any
// text (mcp__github__*); PATTERN is, for bash a command pattern (* is any text, "go test *"
// also matches "go test" alone), for the file tools a path glob relative to the working
// directory (tools.MatchPath).
type Rule struct {
	Tool    string
	Pattern string // "" matches every call of Tool
	// Source names the rule where it was given, for messages: --deny 'bash(rm *)'.
	Source string
}

// fileTools take a path argument; the ones that search default to the working directory.
var fileTools = map[string]string{"read": "", "write": "", "edit": "", "grep": ".", "find": ".", "ls": "."}

// readOnlyDenied are the tools --read-only refuses.
var readOnlyDenied = []string{"write", "edit", "bash"}

// ParseRule reads TOOL or TOOL(PATTERN).
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	tool, pattern, hasPattern := strings.Cut(s, "(")
	tool = strings.TrimSpace(tool)
	if hasPattern {
		if !strings.HasSuffix(pattern, ")") {
			return Rule{}, fmt.Errorf("rule %q: missing ) at the end", s)
		}
		pattern = strings.TrimSpace(strings.TrimSuffix(pattern, ")"))
		if pattern == "" {
			return Rule{}, fmt.Errorf("rule %q: empty pattern (write %s alone for every call)", s, tool)
		}
	}
	if tool == "" || strings.ContainsAny(tool, " )") {
		return Rule{}, fmt.Errorf("rule %q: expected TOOL or TOOL(PATTERN)", s)
	}
	if strings.Contains(tool, "*") && hasPattern {
		return Rule{}, fmt.Errorf("rule %q: a TOOL with * (every tool it matches) takes no (PATTERN)", s)
	}
	if _, ok := fileTools[tool]; ok && pattern != "" {
		if _, err := tools.MatchPath(pattern, ""); err != nil {
			return Rule{}, fmt.Errorf("rule %q: %v", s, err)
		}
	}
	if tool == "bash" {
		pattern = strings.Join(strings.Fields(pattern), " ")
	}
	return Rule{Tool: tool, Pattern: pattern}, nil
}

// String is the rule as written.
func (r Rule) String() string {
	if r.Pattern == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// Policy checks tool calls against rules. Deny rules win over allow rules.
type Policy struct {
	Allow, Deny []Rule
	Mode        Mode
	ReadOnly    bool // write, edit and bash are refused
	// Writes names the other tools ReadOnly refuses (MCP tools not annotated read-only);
	// nil: none.
	Writes func(tool string) bool
	Cwd    string // file rules are relative to it
	// Ask asks the client whether a call may run (--permission-mode ask); nil when there is
	// no client to ask, which refuses the call.
	Ask func(ctx context.Context, question string) (bool, error)
}

// Denied is a call the policy refused; its message goes back to the model.
type Denied struct {
	Tool, Call string // Call shows what was refused: bash(rm -rf build)
	By         string // what refused it: rule --deny 'bash(rm *)', --read-only, …
}

func (d *Denied) Error() string { return codec.PermissionDeniedPrefix + d.Call + " by " + d.By }

// Check returns nil when the call of tool with args may run, else a *Denied.
func (p *Policy) Check(ctx context.Context, tool string, args json.RawMessage) error {
	if p.ReadOnly && (slices.Contains(readOnlyDenied, tool) || p.Writes != nil && p.Writes(tool)) {
		return &Denied{Tool: tool, Call: p.display(tool, args), By: "--read-only"}
	}
	subjects, err := p.subjects(tool, args)
	if err != nil {
		return &Denied{Tool: tool, Call: p.display(tool, args), By: "the policy: " + err.Error()}
	}
	var unallowed []string
	for _, s := range subjects {
		if r, ok := p.match(p.Deny, tool, s); ok {
			return &Denied{Tool: tool, Call: call(tool, s), By: "rule " + r.Source}
		}
		if _, ok := p.match(p.Allow, tool, s); !ok {
			unallowed = append(unallowed, s)
		}
	}
	if len(unallowed) == 0 || p.Mode == ModeAllow || p.Mode == "" {
		return nil
	}
	first := call(tool, unallowed[0])
	if p.Mode == ModeAsk {
		if p.Ask == nil {
			return &Denied{Tool: tool, Call: first, By: "--permission-mode ask: no client to ask, and no --allow rule matches it"}
		}
		actx, cancel := context.WithTimeout(ctx, AskTimeout)
		defer cancel()
		ok, err := p.Ask(actx, "Allow "+p.display(tool, args)+"?")
		switch {
		case ok && err == nil:
			return nil
		case errors.Is(actx.Err(), context.DeadlineExceeded):
			return &Denied{Tool: tool, Call: p.display(tool, args), By: "--permission-mode ask: no answer in 60s"}
		case err != nil:
			return &Denied{Tool: tool, Call: p.display(tool, args), By: "--permission-mode ask: " + err.Error()}
		}
		return &Denied{Tool: tool, Call: p.display(tool, args), By: "the user (--permission-mode ask)"}
	}
	return &Denied{Tool: tool, Call: first, By: "--permission-mode deny: no --allow rule matches it"}
}

// call is a call as a rule would name it: TOOL(SUBJECT), or TOOL for a tool without subjects.
func call(tool, subject string) string {
	if subject == "" {
		return tool
	}
	return tool + "(" + subject + ")"
}

// display is the whole call as a rule would name it: the command line, or the path.
func (p *Policy) display(tool string, args json.RawMessage) string {
	if tool == "bash" {
		return call(tool, stringArg(args, "command"))
	}
	if def, ok := fileTools[tool]; ok {
		return call(tool, p.relPath(stringArg(args, "path"), def))
	}
	return tool
}

func (p *Policy) match(rules []Rule, tool, subject string) (Rule, bool) {
	for _, r := range rules {
		if r.Tool != tool && !(strings.Contains(r.Tool, "*") && wildcard(r.Tool, tool)) {
			continue
		}
		if r.Pattern == "" {
			return r, true
		}
		if tool == "bash" && matchCommand(r.Pattern, subject) {
			return r, true
		}
		if _, ok := fileTools[tool]; ok {
			if m, _ := tools.MatchPath(r.Pattern, subject); m {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// subjects are what rules are matched against: each simple command of a bash command line,
// the path of a file tool (relative to the working directory), nothing for other tools.
func (p *Policy) subjects(tool string, args json.RawMessage) ([]string, error) {
	if tool == "bash" {
		return Commands(stringArg(args, "command"))
	}
	if def, ok := fileTools[tool]; ok {
		return []string{p.relPath(stringArg(args, "path"), def)}, nil
	}
	return []string{""}, nil
}

// relPath is where a path argument points, relative to the working directory when it is
// inside it (slash-separated), else absolute.
func (p *Policy) relPath(arg, def string) string {
	if arg == "" {
		arg = def
	}
	abs := tools.ResolvePath(p.Cwd, arg)
	rel, err := filepath.Rel(tools.ResolvePath("", p.Cwd), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

func stringArg(args json.RawMessage, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[name], &s) != nil {
		return ""
	}
	return s
}

// Commands splits a bash command line into its simple commands, each as its words joined by
// spaces (quotes removed where the word is literal): those of lists, pipelines, subshells,
// functions and command substitutions included.
func Commands(line string) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, fmt.Errorf("cannot parse the command: %v", err)
	}
	var cmds []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			words := make([]string, len(ce.Args))
			for i, w := range ce.Args {
				words[i] = wordText(w)
			}
			cmds = append(cmds, strings.Join(words, " "))
		}
		return true
	})
	return cmds, nil
}

// wordText is a word's value when its parts are literal, its source text otherwise.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	if literal(w.Parts, &b) {
		return b.String()
	}
	b.Reset()
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

func literal(parts []syntax.WordPart, b *strings.Builder) bool {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if !literal(x.Parts, b) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// matchCommand matches a command against a pattern in which * is any text (spaces and
// slashes included) and ? one character; "cmd *" also matches "cmd" alone.
func matchCommand(pattern, cmd string) bool {
	if base, ok := strings.CutSuffix(pattern, " *"); ok && cmd == base {
		return true
	}
	return wildcard(pattern, cmd)
}

func wildcard(p, s string) bool {
	star, from := -1, 0
	i, j := 0, 0
	for j < len(s) {
		switch {
		case i < len(p) && (p[i] == '?' || p[i] == s[j]):
			i++
			j++
		case i < len(p) && p[i] == '*':
			star, from = i, j
			i++
		case star >= 0:
			i = star + 1
			from++
			j = from
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}
