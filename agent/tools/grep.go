package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/basecontext/base-context/codec"
)

const grepDescription = `Search the contents of files for a regular expression (Go RE2 syntax: no backreferences or lookaround).

Searches one file, or every file below a directory (the working directory by default), skipping .git, node_modules and binary files. Each matching line is returned as path:line: text, with paths relative to the searched directory; with context, the surrounding lines are shown as path-line- text and separate groups are divided by --.

Options: glob restricts the files searched (e.g. *.go, or src/**/*.ts for a path below the directory); literal searches for the pattern as plain text; ignoreCase ignores letter case. The search stops after limit matches (default 100). Very long lines are shortened.`

var grepParams = []param{
	{name: "pattern", typ: "string", required: true, desc: "Regular expression to search for (plain text if literal is true)."},
	{name: "path", typ: "string", desc: "File or directory to search. Defaults to the working directory."},
	{name: "glob", typ: "string", desc: "Only search files whose path matches this glob, e.g. *.go or src/**/*.{ts,tsx}."},
	{name: "ignoreCase", typ: "boolean", desc: "Match without regard to letter case."},
	{name: "literal", typ: "boolean", desc: "Treat pattern as plain text rather than a regular expression."},
	{name: "context", typ: "number", desc: "Number of lines to show before and after each match."},
	{name: "limit", typ: "number", desc: "Maximum number of matches to return. Defaults to 100."},
}

const (
	defaultGrepLimit = 100
	// grepLineMax is the longest line grep prints; longer ones are cut.
	grepLineMax = 500
	// sniffLen is how much of a file is checked for NUL bytes to call it binary.
	sniffLen = 8000
)

type grepTool struct{ opts Options }

func (*grepTool) Name() string                { return "grep" }
func (*grepTool) Description() string         { return grepDescription }
func (*grepTool) Parameters() json.RawMessage { return objectSchema(grepParams) }

type grepSearch struct {
	re      *regexp.Regexp
	context int
	limit   int
	matches int
	out     strings.Builder
}

func (t *grepTool) Execute(ctx context.Context, raw json.RawMessage, _ func(codec.ToolResult)) (Result, error) {
	a, err := parseArgs("grep", raw)
	if err != nil {
		return Result{}, err
	}
	pattern, err := a.nonEmpty("pattern")
	if err != nil {
		return Result{}, err
	}
	globText, _, err := a.str("glob", false)
	if err != nil {
		return Result{}, err
	}
	ignoreCase, err := a.boolean("ignoreCase")
	if err != nil {
		return Result{}, err
	}
	literal, err := a.boolean("literal")
	if err != nil {
		return Result{}, err
	}
	contextLines, _, err := a.integer("context", 0)
	if err != nil {
		return Result{}, err
	}
	limit, err := a.limit(defaultGrepLimit)
	if err != nil {
		return Result{}, err
	}
	display, root, fi, err := searchRoot(t.opts, a)
	if err != nil {
		return Result{}, err
	}

	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Result{}, fmt.Errorf("invalid regular expression %q: %v", pattern, err)
	}
	var g *glob
	if globText != "" {
		if g, err = compileGlob(globText); err != nil {
			return Result{}, err
		}
	}

	s := &grepSearch{re: re, context: contextLines, limit: limit}
	if !fi.IsDir() {
		s.file(root, filepath.ToSlash(filepath.Clean(display)))
	} else {
		walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err != nil {
				if d != nil && d.IsDir() && p != root {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if p != root && skipDirs[d.Name()] {
					return fs.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return nil
			}
			rel = filepath.ToSlash(rel)
			if g != nil && !g.match(rel) {
				return nil
			}
			if s.file(p, rel) {
				return fs.SkipAll
			}
			return nil
		})
		if walkErr != nil {
			return Result{}, walkErr
		}
	}

	if s.matches == 0 {
		return textResult("No matches found"), nil
	}
	out, d := truncateOutput(strings.TrimSuffix(s.out.String(), "\n"), t.opts, false)
	if s.matches >= limit {
		out = appendNote(out, fmt.Sprintf("[Match limit reached: showing the first %d matches. Use limit=%d for more, or refine the pattern.]", limit, limit*2))
		if d == nil {
			d = &details{}
		}
		d.MatchLimitReached = limit
	}
	res := textResult(out)
	res.Details = d.encode()
	return res, nil
}

// file searches one file and reports whether the match limit has been reached.
func (s *grepSearch) file(abs, name string) bool {
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		return false
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return false
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return false
	}
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	var hits []int
	for i, l := range lines {
		if s.re.Match(bytes.TrimSuffix(l, []byte{'\r'})) {
			hits = append(hits, i)
			if s.matches+len(hits) >= s.limit {
				break
			}
		}
	}
	if len(hits) == 0 {
		return false
	}
	s.matches += len(hits)

	if s.context > 0 && s.out.Len() > 0 {
		s.out.WriteString("--\n")
	}
	isHit := make(map[int]bool, len(hits))
	for _, h := range hits {
		isHit[h] = true
	}
	printed := -1 // last line index written for this file
	for _, h := range hits {
		from := max(0, h-s.context, printed+1)
		if printed >= 0 && from > printed+1 {
			s.out.WriteString("--\n")
		}
		to := min(len(lines)-1, h+s.context)
		for i := from; i <= to; i++ {
			sep := "-"
			if isHit[i] {
				sep = ":"
			}
			s.out.WriteString(name)
			s.out.WriteString(sep)
			s.out.WriteString(strconv.Itoa(i + 1))
			s.out.WriteString(sep)
			s.out.WriteString(" ")
			s.out.WriteString(shortenLine(string(bytes.TrimSuffix(lines[i], []byte{'\r'}))))
			s.out.WriteString("\n")
		}
		printed = max(printed, to)
	}
	return s.matches >= s.limit
}

func shortenLine(l string) string {
	if len(l) <= grepLineMax {
		return l
	}
	return l[:runePrefix(l, grepLineMax)] + " [line shortened]"
}
