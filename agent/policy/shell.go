package policy

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxShellDepth bounds how deep `sh -c '…'` strings are parsed again: a line that nests
// deeper cannot be checked.
const maxShellDepth = 4

// command is one simple command of a line as the rules see it: its command word resolved
// the way the shell would (quotes removed, wrappers looked through).
type command struct {
	text string // the command's source text, for messages
	// words are its words from the command word on, quotes removed; a word that is not
	// literal is kept as its source text, and words from index literal on may be anything.
	words   []string
	literal int
	// forms are further texts a deny rule is matched against: each wrapper with what it
	// runs ("nohup rm -rf build"), and the command word reduced to its base name.
	forms []string
	// whole is set when an allow rule must match the whole text too: variables are set
	// for the command (FOO=1 cmd, env FOO=1 cmd) or it runs as another user (sudo, doas).
	whole string
}

// opaque is a command (or an expansion) whose effect the rules cannot see.
type opaque struct {
	text, why string
}

// redirect is a file a line reads or writes through a redirection.
type redirect struct {
	path  string // "" when the name is computed at run time
	write bool
	text  string // its source text: > key.txt
	moved bool   // relative, on a line that changes directory: where it is is known at run time
}

// analysis is what a bash command line runs, as far as rules can tell.
type analysis struct {
	commands  []command
	opaque    []opaque
	redirects []redirect
}

// redirectsFrom are the redirections of the line as rules check them from the working
// directory: where the line changes directory first, a relative name is computed at run time.
func (a *analysis) redirectsFrom() []redirect {
	moves := slices.ContainsFunc(a.commands, func(c command) bool {
		return c.words[0] == "cd" || c.words[0] == "pushd" || c.words[0] == "popd"
	})
	if !moves {
		return a.redirects
	}
	out := slices.Clone(a.redirects)
	for i, r := range out {
		if r.path != "" && !strings.HasPrefix(r.path, "/") && !strings.HasPrefix(r.path, "~") {
			out[i].path, out[i].moved = "", true
		}
	}
	return out
}

// analyze parses a bash command line into what it runs.
func analyze(line string) (*analysis, error) {
	a := &analysis{}
	if err := a.parse(line, 0); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *analysis) parse(line string, depth int) error {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return fmt.Errorf("cannot parse the command: %v", err)
	}
	s := &scope{a: a, depth: depth, vars: map[string]bool{}, mentioned: map[string]bool{},
		integer: map[string]bool{}, assoc: map[string]bool{}, functions: map[string]bool{}}
	syntax.Walk(f, s.collect)
	syntax.Walk(f, s.visit)
	return nil
}

// scope is one parsed text (the line, or the string of a `bash -c`): what it assigns and
// defines, which the arithmetic and shadowing checks need.
type scope struct {
	a     *analysis
	depth int
	// vars maps each variable the text assigns to whether every assignment stores a plain
	// number (bash evaluates a variable's value again in arithmetic: `x[$(cmd)]` runs cmd).
	vars map[string]bool
	// mentioned are the names that appear in the words of a command (read y, printf -v y,
	// declare -n r=y), which may assign them anything.
	mentioned map[string]bool
	integer   map[string]bool // declared -i: every assignment is evaluated as arithmetic
	assoc     map[string]bool // declared -A: subscripts are strings, not arithmetic
	functions map[string]bool // functions and aliases the text defines
	// namesComputed is set when a builtin that assigns variables is given a name computed
	// at run time (declare "$v=…"): then any variable may hold anything.
	namesComputed bool
}

func printNode(n syntax.Node) string {
	var b bytes.Buffer
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n); err != nil {
		return fmt.Sprint(n)
	}
	return strings.TrimSpace(b.String())
}

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// plainNumber is arithmetic text that names nothing: digits and operators only.
var plainNumber = regexp.MustCompile(`^[0-9+\-*/%()<>=!&|^~?:, \t]*$`)

func (s *scope) assign(name string, safe bool) {
	if prev, ok := s.vars[name]; ok {
		safe = safe && prev
	}
	s.vars[name] = safe
}

// collect is the first pass: assignments, integer declarations, functions and aliases.
func (s *scope) collect(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.Assign:
		if x.Name != nil {
			s.assign(x.Name.Value, x.Array == nil && !x.Append && x.Index == nil && (x.Value == nil || numeric(x.Value.Parts)))
		}
		if v, lit := staticText(x.Value); lit && x.Name != nil {
			s.mention(v) // declare -n r=y
		}
	case *syntax.DeclClause:
		for _, as := range x.Args {
			if as.Name != nil && declFlags(x, "i") {
				s.integer[as.Name.Value] = true
			}
			if as.Name != nil && declFlags(x, "A") {
				s.assoc[as.Name.Value] = true
			}
			if _, lit := staticText(as.Value); as.Name == nil && !lit {
				s.namesComputed = true // declare "$v=…"
			}
		}
	case *syntax.BinaryArithm:
		if isAssignOp(x.Op) {
			if name := arithName(x.X); name != "" {
				s.assign(name, true) // arithmetic stores a number
			}
		}
	case *syntax.UnaryArithm:
		if name := arithName(x.X); name != "" {
			s.assign(name, true)
		}
	case *syntax.ForClause:
		if wi, ok := x.Loop.(*syntax.WordIter); ok {
			safe := true
			for _, w := range wi.Items {
				v, lit := staticText(w)
				safe = safe && lit && isDigits(v)
			}
			s.assign(wi.Name.Value, safe)
		}
	case *syntax.ParamExp:
		if x.Param != nil && x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
			s.assign(x.Param.Value, false) // ${y:=…}
		}
	case *syntax.FuncDecl:
		s.functions[x.Name.Value] = true
	case *syntax.CallExpr:
		for i, w := range x.Args {
			v, lit := staticText(w)
			if !lit {
				if i > 0 && nameBuiltins[x.Args[0].Lit()] {
					s.namesComputed = true
				}
				continue
			}
			if i > 0 {
				s.mention(v)
			}
			if i > 0 && x.Args[0].Lit() == "alias" {
				if name, _, ok := strings.Cut(v, "="); ok {
					s.functions[name] = true
				}
			}
		}
	}
	return true
}

func (s *scope) mention(text string) {
	for _, id := range identifier.FindAllString(text, -1) {
		s.mentioned[id] = true
	}
}

func isAssignOp(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// arithName is the variable an arithmetic operand names directly, "" for anything else.
func arithName(e syntax.ArithmExpr) string {
	w, ok := e.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return ""
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok && identifier.FindString(l.Value) == l.Value {
		return l.Value
	}
	return ""
}

// numeric reports whether word parts always make a number: digits, $((…)), $? and the like.
func numeric(parts []syntax.WordPart) bool {
	if len(parts) == 0 {
		return false
	}
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if strings.Trim(x.Value, "0123456789") != "" {
				return false
			}
		case *syntax.ArithmExp:
		case *syntax.ParamExp:
			if x.Param == nil || !x.Length && (!shellNumbers[x.Param.Value] || !x.Short && (x.Exp != nil || x.Repl != nil || x.Slice != nil || x.Index != nil || x.Excl)) {
				return false
			}
		case *syntax.DblQuoted:
			if !numeric(x.Parts) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// shellNumbers are variables bash itself sets to numbers.
var shellNumbers = map[string]bool{"RANDOM": true, "SRANDOM": true, "SECONDS": true, "LINENO": true,
	"BASHPID": true, "PPID": true, "UID": true, "EUID": true, "EPOCHSECONDS": true, "#": true, "?": true, "$": true, "!": true}

// safeNumber reports whether variable name holds a number bash put there or that the text
// assigned as a plain number: one arithmetic can evaluate without running anything.
func (s *scope) safeNumber(name string) bool {
	if shellNumbers[name] {
		return true
	}
	safe, ok := s.vars[name]
	return ok && safe && !s.mentioned[name] && !s.namesComputed
}

// hide records node n as what the rules cannot see, and why.
func (s *scope) hide(n syntax.Node, why string) { s.refuse(printNode(n), why) }

// refuse records a command (its text) the rules cannot see, and why.
func (s *scope) refuse(text, why string) {
	s.a.opaque = append(s.a.opaque, opaque{text: text, why: why})
}

// arithmetic checks an arithmetic expression: a variable whose value may be a string is
// evaluated again as arithmetic, which runs any $(…) in it.
func (s *scope) arithmetic(owner syntax.Node, e syntax.ArithmExpr) {
	if e == nil {
		return
	}
	switch x := e.(type) {
	case *syntax.BinaryArithm:
		s.arithmetic(owner, x.X)
		s.arithmetic(owner, x.Y)
	case *syntax.UnaryArithm:
		s.arithmetic(owner, x.X)
	case *syntax.ParenArithm:
		s.arithmetic(owner, x.X)
	case *syntax.Word:
		s.arithmeticWord(owner, x)
	}
}

func (s *scope) arithmeticWord(owner syntax.Node, w *syntax.Word) {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			for _, id := range identifier.FindAllString(p.Value, -1) {
				if !numberWord.MatchString(p.Value) && !s.safeNumber(id) {
					s.hide(owner, "arithmetic on $"+id+" runs any command substitution hidden in its value")
					return
				}
			}
		case *syntax.ParamExp:
			if !p.Length && (p.Param == nil || p.Exp != nil || p.Repl != nil || p.Excl || !s.safeNumber(p.Param.Value)) {
				name := "a computed value"
				if p.Param != nil {
					name = "$" + p.Param.Value
				}
				s.hide(owner, "arithmetic on "+name+" runs any command substitution hidden in its value")
				return
			}
			s.arithmetic(owner, p.Index)
		case *syntax.ArithmExp, *syntax.CmdSubst:
			// checked where the walk meets them
		default:
			s.hide(owner, "arithmetic on a computed value runs any command substitution hidden in it")
			return
		}
	}
}

// numberWord is a numeric literal of arithmetic: 42, 0x2a, 8#52.
var numberWord = regexp.MustCompile(`^[0-9][0-9A-Za-z_@#]*$`)

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == "" || strings.HasPrefix(s, "-") && len(s) > 1 && strings.Trim(s[1:], "0123456789") == ""
}

// codeRunners run a string or a file as commands; what they run is not on the line.
var codeRunners = map[string]string{
	"eval":   "eval runs a string as commands",
	"source": "source runs the commands of a file",
	".":      ". runs the commands of a file",
	"trap":   "trap runs a string as commands later",
	"enable": "enable loads builtins from a file",
	"fc":     "fc runs commands from the history",
	"bind":   "bind runs a string as commands",
}

// specialVars, when set, make bash run code the line does not show.
var specialVars = regexp.MustCompile(`^(BASH_ENV|ENV|BASH_FUNC_.*|PS[0-9]|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|LD_PRELOAD|LD_AUDIT|GLOBIGNORE|BASH_XTRACEFD|PAGER|GIT_PAGER|EDITOR|VISUAL|GIT_EDITOR|GIT_SSH_COMMAND|GIT_EXTERNAL_DIFF)$`)

// visit is the second pass: each command and each expansion that can run code.
func (s *scope) visit(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.CallExpr:
		s.assigns(x, x.Assigns)
		if len(x.Args) > 0 {
			s.call(x)
		}
	case *syntax.DeclClause:
		s.assigns(x, x.Args)
		words := []string{x.Variant.Value}
		for _, as := range x.Args {
			words = append(words, printNode(as))
		}
		s.a.commands = append(s.a.commands, command{text: printNode(x), words: words, literal: len(words)})
		if declFlags(x, "i") {
			for _, as := range x.Args {
				if v, lit := staticText(as.Value); as.Name != nil && as.Value != nil && !(lit && plainNumber.MatchString(v)) {
					s.hide(x, "the value of integer variable "+as.Name.Value+" is evaluated as arithmetic, which runs any command substitution hidden in it")
				}
			}
		}
		var names []string
		for _, as := range x.Args {
			if v, lit := staticText(as.Value); lit && as.Naked && as.Name == nil {
				names = append(names, v)
			}
		}
		s.subscriptNames(x, names)
	case *syntax.LetClause:
		words := []string{"let"}
		for _, e := range x.Exprs {
			words = append(words, printNode(e))
			s.arithmetic(x, e)
		}
		s.a.commands = append(s.a.commands, command{text: printNode(x), words: words, literal: len(words)})
	case *syntax.ArithmCmd:
		s.arithmetic(x, x.X)
	case *syntax.ArithmExp:
		s.arithmetic(x, x.X)
	case *syntax.CStyleLoop:
		s.arithmetic(x, x.Init)
		s.arithmetic(x, x.Cond)
		s.arithmetic(x, x.Post)
	case *syntax.Assign:
		if x.Name == nil || !s.assoc[x.Name.Value] {
			s.arithmetic(x, x.Index)
		}
	case *syntax.ParamExp:
		if x.Excl || x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && strings.Contains(x.Exp.Word.Lit(), "P") {
			s.hide(x, "an indirect or prompt expansion runs any command substitution hidden in a value")
		}
		if x.Param == nil || !s.assoc[x.Param.Value] {
			s.arithmetic(x, x.Index)
		}
		if x.Slice != nil {
			s.arithmetic(x, x.Slice.Offset)
			s.arithmetic(x, x.Slice.Length)
		}
	case *syntax.BinaryTest:
		owner := testText(x)
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsGtr, syntax.TsLeq, syntax.TsGeq:
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := side.(*syntax.Word); ok {
					if v, lit := staticText(w); lit && plainNumber.MatchString(v) {
						continue
					}
					s.arithmeticWord(owner, w)
				} else {
					s.hide(owner, "arithmetic on a computed value runs any command substitution hidden in it")
				}
			}
		}
	case *syntax.UnaryTest:
		if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar) {
			if v, lit := staticText(w); lit {
				s.subscriptNames(w, []string{v})
			}
		}
	case *syntax.Redirect:
		s.redirect(x)
	}
	return true
}

// testText stands for a comparison of [[ … ]] in messages, which the printer cannot print
// on its own.
func testText(t *syntax.BinaryTest) syntax.Node {
	w := &syntax.Word{}
	for _, side := range []syntax.TestExpr{t.X, t.Y} {
		if sw, ok := side.(*syntax.Word); ok {
			if len(w.Parts) > 0 {
				w.Parts = append(w.Parts, &syntax.Lit{Value: " " + t.Op.String() + " "})
			}
			w.Parts = append(w.Parts, sw.Parts...)
		}
	}
	return w
}

// assigns checks variable assignments: of integer variables (evaluated as arithmetic), and
// of variables that make bash run code from elsewhere.
func (s *scope) assigns(owner syntax.Node, assigns []*syntax.Assign) {
	for _, as := range assigns {
		if as.Name == nil {
			continue
		}
		if specialVars.MatchString(as.Name.Value) {
			s.hide(owner, "setting "+as.Name.Value+" makes the shell or a program run commands the line does not show")
		}
		if v, lit := staticText(as.Value); s.integer[as.Name.Value] && (as.Value != nil && !(lit && plainNumber.MatchString(v)) || as.Array != nil) {
			s.hide(owner, "the value of integer variable "+as.Name.Value+" is evaluated as arithmetic, which runs any command substitution hidden in it")
		}
	}
}

// declFlags reports whether a declare-like clause has an option with one of the letters.
func declFlags(d *syntax.DeclClause, letters string) bool {
	for _, as := range d.Args {
		if as.Naked && as.Name == nil {
			if v, lit := staticText(as.Value); lit && strings.HasPrefix(v, "-") && strings.ContainsAny(v, letters) {
				return true
			}
		}
	}
	return false
}

var subscripted = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\[(.*)\]`)

// subscriptNames refuses a variable name with a subscript that is not a plain number
// given to a builtin that takes names: bash evaluates the subscript as arithmetic.
func (s *scope) subscriptNames(owner syntax.Node, words []string) {
	for _, w := range words {
		if m := subscripted.FindStringSubmatch(strings.TrimLeft(w, "-")); m != nil && !plainNumber.MatchString(m[1]) && m[1] != "@" && m[1] != "*" {
			s.hide(owner, "the subscript of "+w+" is evaluated as arithmetic, which runs any command substitution hidden in it")
			return
		}
	}
}

// nameBuiltins take variable names as arguments.
var nameBuiltins = map[string]bool{"read": true, "printf": true, "unset": true, "mapfile": true, "readarray": true,
	"getopts": true, "wait": true, "test": true, "[": true, "declare": true, "typeset": true, "local": true,
	"export": true, "readonly": true, "let": true}

func (s *scope) redirect(r *syntax.Redirect) {
	var write bool
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
		write = true
	case syntax.RdrIn:
	case syntax.DplOut, syntax.DplIn:
		if v, lit := staticText(r.Word); lit && (v == "-" || isDigits(v)) {
			return
		}
		write = r.Op == syntax.DplOut
	default:
		return // here-documents and here-strings: their expansions are walked
	}
	text := r.Op.String() + " " + printNode(r.Word) // the printer does not print a redirection alone
	if r.N != nil {
		text = r.N.Value + text
	}
	if v, lit := staticText(r.Word); lit {
		if v == "/dev/null" || v == "/dev/stdout" || v == "/dev/stderr" || v == "/dev/tty" || strings.HasPrefix(v, "/dev/fd/") {
			return
		}
		s.a.redirects = append(s.a.redirects, redirect{path: v, write: write, text: text})
		return
	}
	s.a.redirects = append(s.a.redirects, redirect{write: write, text: text})
}

// staticText is a word's value when the shell would give it without running or looking up
// anything (quotes and backslashes removed by mvdan.cc/sh's own expansion), and whether it
// is; a nil word is "" and static.
func staticText(w *syntax.Word) (string, bool) {
	fields, ok, _ := staticFields(w)
	if !ok || len(fields) != 1 {
		return "", ok && len(fields) == 0 && w == nil
	}
	return fields[0], true
}

// staticFields are the fields a word expands to when that needs nothing computed at run
// time: brace expansion, quote and backslash removal. glob reports a pattern the shell
// would expand against files.
func staticFields(w *syntax.Word) (fields []string, ok, glob bool) {
	if w == nil {
		return nil, true, false
	}
	if !staticParts(w.Parts) {
		return nil, false, false
	}
	cfg := &expand.Config{NoUnset: true, ReadDir2: func(string) ([]fs.DirEntry, error) {
		glob = true
		return nil, nil
	}}
	fields, err := expand.Fields(cfg, w)
	if err != nil {
		return nil, false, false
	}
	return fields, true, glob
}

// staticParts reports whether word parts are quoting and literal text only.
func staticParts(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !staticParts(x.Parts) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// word is a word of a command after expansion: literal, or kept as its source text.
type word struct {
	text    string
	literal bool
	glob    bool
}

func (s *scope) call(ce *syntax.CallExpr) {
	var words []word
	for _, w := range ce.Args {
		fields, ok, glob := staticFields(w)
		if !ok {
			words = append(words, word{text: printNode(w)})
			continue
		}
		for _, f := range fields {
			words = append(words, word{text: f, literal: true, glob: glob})
		}
	}
	if len(words) == 0 {
		return // words that expand to nothing: the assignments alone, checked where walked
	}
	whole := ""
	if len(ce.Assigns) > 0 {
		whole = printNode(ce)
	}
	s.resolve(ce, printNode(ce), words, whole)
}

// resolve reads a command from its words: the command word, through the wrappers that
// run another command, and the shells whose -c string is parsed again.
func (s *scope) resolve(owner syntax.Node, text string, words []word, whole string) {
	var forms []string
	join := func(ws []word) string {
		t := make([]string, len(ws))
		for i, w := range ws {
			t[i] = w.text
		}
		return strings.Join(t, " ")
	}
	i := 0
	for {
		w := words[i]
		if !w.literal || w.glob {
			why := "the command name is computed at run time"
			if w.glob {
				why = "the command name is a file pattern expanded at run time"
			}
			s.refuse(text, why)
			return
		}
		if w.text == "" {
			s.refuse(text, "the command word is empty, so which word bash runs is decided at run time")
			return
		}
		name := path.Base(w.text)
		if s.functions[name] {
			s.refuse(text, name+" is a function or alias defined on the same line")
			return
		}
		if why, ok := codeRunners[name]; ok && runsCode(name, words[i+1:]) {
			s.refuse(text, why)
			return
		}
		next, isWrap, why := unwrap(name, words, i)
		if why != "" {
			s.refuse(text, why)
			return
		}
		if isWrap && next >= len(words) && (name == "sudo" || name == "doas") && slices.ContainsFunc(words[i+1:], func(w word) bool {
			return strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.ContainsAny(w.text, "si")
		}) {
			s.refuse(text, name+" runs a shell that reads the commands of its input")
			return
		}
		if !isWrap || next >= len(words) {
			break // not a wrapper, or a wrapper alone (env, xargs): a command of its own
		}
		forms = append(forms, join(words[i:]), name+" "+join(words[i+1:]))
		if name == "sudo" || name == "doas" || name == "env" && hasAssignment(words[i+1:next]) {
			whole = text
		}
		if name == "env" {
			for _, w := range words[i+1 : next] {
				if n, _, ok := strings.Cut(w.text, "="); ok && specialVars.MatchString(n) {
					s.refuse(text, "setting "+n+" makes the shell or a program run commands the line does not show")
					return
				}
			}
		}
		if name == "xargs" {
			words = append(slices.Clone(words), word{text: "…"}) // arguments read at run time
			if replace := xargsReplace(words[i+1 : next]); replace != "" {
				markComputed(words[next:], replace)
			}
		}
		i = next
	}
	cmdWords := words[i:]
	name := path.Base(cmdWords[0].text)
	if shells[name] {
		s.shell(text, cmdWords)
	}
	if name == "find" {
		s.findExec(owner, text, cmdWords)
	}
	if name == "mapfile" || name == "readarray" {
		for _, w := range cmdWords[1:] {
			if strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "C") {
				s.refuse(text, name+" -C runs a string as commands")
			}
		}
	}
	if name == "hash" && slices.ContainsFunc(cmdWords[1:], func(w word) bool { return strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "p") }) {
		s.refuse(text, "hash -p makes a name run another program")
	}
	if nameBuiltins[name] {
		texts := make([]string, len(cmdWords)-1)
		for j, w := range cmdWords[1:] {
			texts[j] = w.text
		}
		s.subscriptNames(owner, texts)
	}
	literal := len(cmdWords)
	for j, w := range cmdWords {
		if !w.literal {
			literal = j
			break
		}
	}
	texts := make([]string, len(cmdWords))
	for j, w := range cmdWords {
		texts[j] = w.text
	}
	c := command{text: text, words: texts, literal: literal}
	c.forms = append(forms, c.forms...)
	if name != cmdWords[0].text {
		c.forms = append(c.forms, name+strings.TrimPrefix(strings.Join(texts, " "), cmdWords[0].text))
	}
	c.whole = whole
	s.a.commands = append(s.a.commands, c)
}

func hasAssignment(ws []word) bool {
	return slices.ContainsFunc(ws, func(w word) bool { return strings.Contains(w.text, "=") && !strings.HasPrefix(w.text, "-") })
}

// runsCode reports whether a builtin of codeRunners, given these arguments, runs code.
func runsCode(name string, args []word) bool {
	switch name {
	case "trap":
		return len(args) >= 2 && args[0].text != "-" && args[0].text != ""
	case "enable":
		return slices.ContainsFunc(args, func(w word) bool { return strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "f") })
	case "fc":
		return !slices.ContainsFunc(args, func(w word) bool { return strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "l") })
	case "bind":
		return slices.ContainsFunc(args, func(w word) bool { return strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "x") })
	}
	return true
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true}

// shell checks `bash -c STRING`: the string is parsed and checked as a line of its own. A
// shell given a script file or reading its input runs commands the line does not show.
func (s *scope) shell(text string, words []word) {
	for j := 1; j < len(words); j++ {
		w := words[j]
		if !w.literal {
			s.refuse(text, "the shell runs commands computed at run time")
			return
		}
		switch {
		case w.text == "--version" || w.text == "--help":
			return
		case w.text == "-o" || w.text == "+o" || w.text == "-O" || w.text == "+O" || w.text == "--rcfile" || w.text == "--init-file":
			if w.text == "--rcfile" || w.text == "--init-file" {
				s.refuse(text, "the shell runs the commands of a file")
				return
			}
			j++
		case strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "c"):
			if j+1 >= len(words) || !words[j+1].literal {
				s.refuse(text, "the shell runs commands computed at run time")
				return
			}
			if s.depth+1 > maxShellDepth {
				s.refuse(text, fmt.Sprintf("shells nest more than %d deep", maxShellDepth))
				return
			}
			if err := s.a.parse(words[j+1].text, s.depth+1); err != nil {
				s.refuse(text, "the string the shell runs does not parse")
			}
			return
		case strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+"):
		default:
			s.refuse(text, "the shell runs the commands of a file")
			return
		}
	}
	s.refuse(text, "the shell runs the commands of its input")
}

// findExec checks the commands of find's -exec, -execdir, -ok and -okdir.
func (s *scope) findExec(owner syntax.Node, text string, words []word) {
	for j := 1; j < len(words); j++ {
		switch words[j].text {
		case "-exec", "-execdir", "-ok", "-okdir":
			end := j + 1
			for end < len(words) && words[end].text != ";" && words[end].text != "+" {
				end++
			}
			if end > j+1 {
				sub := slices.Clone(words[j+1 : end])
				markComputed(sub, "{}") // find puts the path it found there
				s.resolve(owner, text, sub, "")
			}
			j = end
		}
	}
}

// markComputed marks the words holding a placeholder (find's {}, xargs -I's string) as
// computed at run time: the program puts what it read or found there.
func markComputed(words []word, placeholder string) {
	for k := range words {
		if strings.Contains(words[k].text, placeholder) {
			words[k].literal = false
		}
	}
}

// xargsReplace is the placeholder xargs replaces in its command (-I R, -i, --replace), "" when
// it only appends what it reads.
func xargsReplace(opts []word) string {
	for k, w := range opts {
		switch t := w.text; {
		case t == "-I" && k+1 < len(opts):
			return opts[k+1].text
		case strings.HasPrefix(t, "-I") && len(t) > 2:
			return t[2:]
		case t == "-i" || t == "--replace":
			return "{}"
		case strings.HasPrefix(t, "-i"):
			return t[2:]
		case strings.HasPrefix(t, "--replace="):
			return strings.TrimPrefix(t, "--replace=")
		}
	}
	return ""
}

// wrapperOptions are, for each wrapper, its options that take a value (-u USER), and
// whether it then takes one argument before the command (timeout's DURATION).
var wrapperOptions = map[string]struct {
	withValue string // letters of the short options with a value
	long      []string
	operand   bool
}{
	"command": {},
	"builtin": {},
	"exec":    {withValue: "a"},
	"nohup":   {},
	"time":    {withValue: "fo", long: []string{"--format", "--output"}},
	"nice":    {withValue: "n", long: []string{"--adjustment"}},
	"timeout": {withValue: "sk", long: []string{"--signal", "--kill-after"}, operand: true},
	"stdbuf":  {withValue: "ioe", long: []string{"--input", "--output", "--error"}},
	"xargs":   {withValue: "adEILnPs", long: []string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"sudo":    {withValue: "ugCDhprtTUR", long: []string{"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user", "--chroot"}},
	"doas":    {withValue: "uC"},
	"env":     {withValue: "uCS", long: []string{"--unset", "--chdir", "--split-string"}},
	"setsid":  {},
	"busybox": {},
	"ionice":  {withValue: "cnpP", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
	"chrt":    {withValue: "", operand: true},
	"taskset": {withValue: "", operand: true},
}

func isWrapper(name string) bool { _, ok := wrapperOptions[name]; return ok }

// unwrap reads the options of wrapper name at words[i]: the index of the command it runs,
// whether name is a wrapper at all, and why what it runs cannot be seen ("" when it can).
func unwrap(name string, words []word, i int) (next int, isWrap bool, why string) {
	opts, ok := wrapperOptions[name]
	if !ok {
		return i, false, ""
	}
	j := i + 1
	for j < len(words) {
		w := words[j]
		if !w.literal {
			return j, true, ""
		}
		t := w.text
		if t == "--" {
			j++
			break
		}
		if name == "env" && (t == "-S" || strings.HasPrefix(t, "-S") || strings.HasPrefix(t, "--split-string")) {
			return j, true, "env -S runs a string as a command"
		}
		if name == "command" && (t == "-v" || t == "-V") {
			return i, false, "" // only says what the name is
		}
		if (name == "sudo" || name == "doas") && (t == "-e" || t == "--edit") {
			return i, false, ""
		}
		if name == "env" && strings.Contains(t, "=") && !strings.HasPrefix(t, "-") {
			j++
			continue
		}
		if name == "nice" && len(t) > 1 && t[0] == '-' && isDigits(t[1:]) {
			j++
			continue
		}
		if name == "chrt" || name == "taskset" {
			if strings.HasPrefix(t, "-") {
				j++
				continue
			}
			break
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			if name == "env" && t == "-" {
				j++
				continue
			}
			break
		}
		if strings.HasPrefix(t, "--") {
			if slices.Contains(opts.long, t) {
				j += 2
			} else {
				j++
			}
			continue
		}
		// A cluster of short options: one with a value takes the rest of the word, or the next.
		j++
		for k := 1; k < len(t); k++ {
			if strings.IndexByte(opts.withValue, t[k]) >= 0 {
				if k == len(t)-1 {
					j++
				}
				break
			}
		}
	}
	if opts.operand && j < len(words) {
		j++ // timeout's DURATION, chrt's priority, taskset's mask
	}
	if name == "sudo" {
		for j < len(words) && words[j].literal && strings.Contains(words[j].text, "=") {
			j++
		}
	}
	return j, true, ""
}
