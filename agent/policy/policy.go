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
	"sync"
	"time"

	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
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

	cwdOnce      sync.Once
	cwd, realCwd string // the working directory cleaned, and resolved: found once
	hidingRules  []Rule // the deny rules that hide files from grep, find and ls
}

// Denied is a call the policy refused; its message goes back to the model.
type Denied struct {
	Tool, Call string // Call shows what was refused: bash(rm -rf build)
	By         string // what refused it: rule --deny 'bash(rm *)', --read-only, …
	// Why, when set, says why the call cannot be checked; it replaces By in the message.
	Why string
}

func (d *Denied) Error() string {
	if d.Why != "" {
		return codec.PermissionDeniedPrefix + d.Call + ": " + d.Why
	}
	return codec.PermissionDeniedPrefix + d.Call + " by " + d.By
}

// Check returns nil when the call of tool with args may run, else a *Denied.
func (p *Policy) Check(ctx context.Context, tool string, args json.RawMessage) error {
	if p.ReadOnly && (slices.Contains(readOnlyDenied, tool) || p.Writes != nil && p.Writes(tool)) {
		return &Denied{Tool: tool, Call: p.display(tool, args), By: "--read-only"}
	}
	var unallowed []string
	var err error
	switch _, isFile := fileTools[tool]; {
	case tool == "bash":
		unallowed, err = p.checkBash(stringArg(args, "command"))
	case isFile:
		unallowed, err = p.checkFile(tool, stringArg(args, "path"))
	default:
		if r, ok := p.match(p.Deny, tool, ""); ok {
			return &Denied{Tool: tool, Call: tool, By: "rule " + r.Source}
		}
		if _, ok := p.match(p.Allow, tool, ""); !ok {
			unallowed = []string{tool}
		}
	}
	if err != nil {
		return err
	}
	if len(unallowed) == 0 || p.Mode == ModeAllow || p.Mode == "" {
		return nil
	}
	first := unallowed[0]
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

// checkBash checks each command a line runs and each file it redirects to: a *Denied when
// a deny rule matches one or one cannot be checked, else the calls no allow rule matches.
func (p *Policy) checkBash(line string) ([]string, error) {
	a, err := analyze(line)
	if err != nil {
		return nil, &Denied{Tool: "bash", Call: call("bash", line), By: "the policy: " + err.Error()}
	}
	if len(a.opaque) > 0 {
		if unchecked := p.unchecked("bash"); unchecked != "" {
			o := a.opaque[0]
			return nil, &Denied{Tool: "bash", Call: call("bash", o.text), Why: o.why + ", so " + unchecked}
		}
	}
	var unallowed []string
	for _, c := range a.commands {
		subject := strings.Join(c.words, " ")
		for _, r := range p.Deny {
			if r.Tool == "bash" && c.denied(r.Pattern) {
				return nil, &Denied{Tool: "bash", Call: call("bash", subject), By: "rule " + r.Source}
			}
		}
		if !p.allowedCommand(c) {
			unallowed = append(unallowed, call("bash", subject))
		}
	}
	for _, r := range a.redirectsFrom() {
		tool := "read"
		if r.write {
			tool = "write"
		}
		if r.path == "" {
			if unchecked := p.unchecked(tool); unchecked != "" {
				why := "the file it " + map[bool]string{true: "writes", false: "reads"}[r.write] + " is named at run time"
				if r.moved {
					why = "the line changes directory first, so where the file is is known at run time only"
				}
				return nil, &Denied{Tool: "bash", Call: call("bash", r.text), Why: why + ", so " + unchecked}
			}
			continue
		}
		more, err := p.checkFile(tool, r.path)
		if d, ok := err.(*Denied); ok {
			d.Tool, d.By = "bash", d.By+" (the redirection "+r.text+")"
			return nil, d
		}
		if tool == "write" { // what a command reads is the command's own business, as with cat FILE
			unallowed = append(unallowed, more...)
		}
	}
	return unallowed, nil
}

// unchecked says which rule a call of tool that cannot be matched would escape, "" when
// nothing restricts the tool: a deny rule of it, or an allow list it is not wholly on.
func (p *Policy) unchecked(tool string) string {
	for _, r := range p.Deny {
		if r.Tool == tool {
			return r.Source + " cannot be checked"
		}
	}
	if p.Mode == ModeDeny || p.Mode == ModeAsk {
		for _, r := range p.Allow {
			if r.Tool == tool && (r.Pattern == "" || r.Pattern == "*") {
				return "" // everything is allowed: nothing to check against
			}
		}
		return "no --allow rule can be checked against it (--permission-mode " + string(p.Mode) + ")"
	}
	return ""
}

// denied reports whether a deny pattern matches the command in any of its forms, or could
// match it whatever its words computed at run time turn out to be.
func (c command) denied(pattern string) bool {
	if pattern == "" {
		return true
	}
	for _, form := range append([]string{strings.Join(c.words, " ")}, c.forms...) {
		if matchCommand(pattern, form) {
			return true
		}
	}
	if c.literal < len(c.words) {
		return mayMatch(pattern, strings.Join(c.words[:c.literal], " ")+" ")
	}
	return false
}

// allowedCommand reports whether an allow rule matches the command whatever its computed
// words turn out to be, and, when it sets variables or changes user, its whole text.
func (p *Policy) allowedCommand(c command) bool {
	ok := false
	for _, r := range p.Allow {
		if r.Tool != "bash" {
			continue
		}
		if r.Pattern == "" {
			return true
		}
		if c.literal == len(c.words) && matchCommand(r.Pattern, strings.Join(c.words, " ")) ||
			c.literal < len(c.words) && covers(r.Pattern, strings.Join(c.words[:c.literal], " ")+" ") {
			ok = true
		}
	}
	if !ok || c.whole == "" {
		return ok
	}
	for _, r := range p.Allow {
		if r.Tool == "bash" && matchCommand(r.Pattern, c.whole) {
			return true
		}
	}
	return false
}

// mayMatch reports whether pattern matches some text that begins with prefix.
func mayMatch(pattern, prefix string) bool {
	for i := 0; i <= len(pattern); i++ {
		if wildcard(pattern[:i], prefix) {
			return true
		}
	}
	return false
}

// covers reports whether pattern matches every text that begins with prefix.
func covers(pattern, prefix string) bool {
	head, ok := strings.CutSuffix(pattern, "*")
	if !ok {
		return false
	}
	for j := 0; j <= len(prefix); j++ {
		if wildcard(head, prefix[:j]) {
			return true
		}
	}
	return false
}

// checkFile checks the path of a file tool in each of its forms: a deny rule matching any
// form refuses it; an allow rule must match every form. grep, find and ls also honour the
// deny rules of read: what they show of a file is reading it.
func (p *Policy) checkFile(tool, arg string) ([]string, error) {
	def := fileTools[tool]
	if arg == "" {
		arg = def
	}
	display := call(tool, p.relPath(arg, def))
	forms := p.pathForms(arg)
	for _, r := range p.Deny {
		if r.Tool != tool && !(r.Tool == "read" && r.Pattern != "" && lists[tool]) {
			continue
		}
		for _, f := range forms {
			if r.Pattern == "" || p.matchPath(r.Pattern, f) {
				by := "rule " + r.Source
				if shown := f.shown(); shown != p.relPath(arg, def) {
					by += " (it is " + shown + ")"
				}
				return nil, &Denied{Tool: tool, Call: display, By: by}
			}
		}
	}
	for _, f := range forms {
		allowed := false
		for _, r := range p.Allow {
			if r.Tool == tool && (r.Pattern == "" || p.matchPath(r.Pattern, f)) {
				allowed = true
				break
			}
		}
		if !allowed {
			return []string{display}, nil
		}
	}
	return nil, nil
}

// lists are the tools that show files they were not named: what they show is filtered.
var lists = map[string]bool{"grep": true, "find": true, "ls": true}

// Hidden reports whether grep, find and ls must leave out the file at abs: a deny rule of
// read or of a listing tool matches it in one of its forms.
func (p *Policy) Hidden(abs string) bool {
	p.setup()
	if len(p.hidingRules) == 0 {
		return false
	}
	forms := p.pathForms(abs)
	for _, r := range p.hidingRules {
		for _, f := range forms {
			if p.matchPath(r.Pattern, f) {
				return true
			}
		}
	}
	return false
}

// setup finds, once, what every check needs: the working directory's forms and the deny
// rules that hide files from listings.
func (p *Policy) setup() {
	p.cwdOnce.Do(func() {
		p.cwd = tools.ResolvePath("", p.Cwd)
		p.realCwd = resolveLinks(p.cwd)
		for _, r := range p.Deny {
			if r.Pattern != "" && (r.Tool == "read" || lists[r.Tool]) {
				p.hidingRules = append(p.hidingRules, r)
			}
		}
	})
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

// match finds the first rule of tool matching subject; the file tools' rules only match
// "" through a rule without a pattern.
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
	}
	return Rule{}, false
}

// relPath is where a path argument points, relative to the working directory when it is
// inside it (slash-separated), else absolute.
func (p *Policy) relPath(arg, def string) string {
	if arg == "" {
		arg = def
	}
	abs := tools.ResolvePath(p.Cwd, arg)
	if rel := relTo(tools.ResolvePath("", p.Cwd), abs); rel != "" {
		return rel
	}
	return filepath.ToSlash(abs)
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

// Commands lists the simple commands of a bash command line as rules match them: each as
// its words from the command word on (wrappers looked through, quotes removed; a word
// computed at run time as its source text), those of lists, pipelines, subshells, functions,
// substitutions and `sh -c` strings included. A command that cannot be matched is
// reported as an error naming it and why.
func Commands(line string) ([]string, error) {
	a, err := analyze(line)
	if err != nil {
		return nil, err
	}
	if len(a.opaque) > 0 {
		return nil, fmt.Errorf("%s: %s", a.opaque[0].text, a.opaque[0].why)
	}
	var cmds []string
	for _, c := range a.commands {
		cmds = append(cmds, strings.Join(c.words, " "))
	}
	return cmds, nil
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
