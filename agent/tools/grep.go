package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/basecontext/base-context/codec"
)

const grepDescription = `Search the contents of files for a regular expression (Go RE2 syntax: no backreferences or lookaround).

Searches one file, or every file below a directory (the working directory by default), skipping .git, node_modules and binary files. Each matching line is returned as path:line: text, with paths relative to the searched directory; with context, the surrounding lines are shown as path-line- text and separate groups are divided by --.

Options: glob restricts the files searched (e.g. *.go, or src/**/*.ts for a path below the directory); literal searches for the pattern as plain text; ignoreCase ignores letter case. The search stops after limit matches (default 100). Very long lines are shortened in the output, and only the first 1MB of a line is searched.`

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
	out     bytes.Buffer
	stopped bool // the output reached maxCollected
}

func (t *grepTool) Execute(ctx context.Context, raw json.RawMessage, _ func(codec.ToolResult)) (_ Result, err error) {
	defer func() { err = interrupted(ctx, "grep", err) }()
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

	// More context than the output can show would only cost memory.
	s := &grepSearch{re: re, context: min(contextLines, MaxLines), limit: limit}
	if !fi.IsDir() {
		if _, err := s.file(ctx, root, filepath.ToSlash(filepath.Clean(display))); err != nil {
			var nr *notRegularError
			if errors.As(err, &nr) || ctx.Err() != nil {
				return Result{}, err
			}
			return Result{}, fmt.Errorf("cannot read %s: %v", display, err)
		}
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
			if p != root && t.opts.hidden(p) {
				return skipEntry(d)
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
			if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
				return nil // FIFOs, sockets, devices: never opened
			}
			// A file that cannot be read, or a link to a FIFO, is skipped like a binary one.
			full, _ := s.file(ctx, p, rel)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if full {
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
	if s.stopped {
		out = appendNote(out, fmt.Sprintf("[Search stopped after %d matches: %s of output is as much as grep collects. Refine the pattern or the path.]", s.matches, formatSize(maxCollected)))
	} else if s.matches >= limit {
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

// grepScanMax is how much of a line grep searches: a longer line (minified code, a
// sparse file's hole) is searched in its first grepScanMax bytes, so memory stays bounded.
const grepScanMax = 1 << 20

// numbered is a line kept for the context before a match: its number and shortened text.
type numbered struct {
	no   int
	text string
}

// file searches one file, streaming it, and reports whether the match limit has been
// reached. A file that is not regular is skipped (refused when it was named: see Execute);
// a file with a NUL byte is binary and adds nothing, wherever the NUL is.
func (s *grepSearch) file(ctx context.Context, abs, name string) (bool, error) {
	f, _, err := openRegular(abs, name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64*1024)
	if head, _ := r.Peek(sniffLen); bytes.IndexByte(head, 0) >= 0 {
		return false, nil
	}
	startLen, startMatches := s.out.Len(), s.matches
	var (
		before    []numbered // the last s.context lines, for the context before a match
		next      int        // index of the oldest line in before, once it is full
		line      []byte     // the current line, up to grepScanMax bytes
		lineNo    int
		printed   int // number of the last line written for this file, 0 for none
		afterLeft int // context lines still to write after the last match
		read      int // bytes read since the context was last checked
	)
	for {
		frag, err := r.ReadSlice('\n')
		if bytes.IndexByte(frag, 0) >= 0 {
			s.out.Truncate(startLen) // binary after all: take back its matches
			s.matches = startMatches
			return false, nil
		}
		if read += len(frag); read >= 1<<20 {
			read = 0
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		if room := grepScanMax - len(line); room > 0 {
			line = append(line, frag[:min(len(frag), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(frag) == 0 && len(line) == 0 { // end of file after a newline
			break
		}
		lineNo++
		text := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})
		hit := s.matches < s.limit && s.re.Match(text)
		switch {
		case hit:
			s.matches++
			from := max(1, lineNo-s.context, printed+1)
			if printed == 0 && s.context > 0 && s.out.Len() > 0 || printed > 0 && from > printed+1 {
				s.out.WriteString("--\n")
			}
			for i := range len(before) {
				if b := before[(next+i)%len(before)]; b.no >= from {
					s.writeLine(name, b.no, "-", b.text)
				}
			}
			s.writeLine(name, lineNo, ":", shortened(text))
			printed, afterLeft, before, next = lineNo, s.context, before[:0], 0
			if s.out.Len() >= maxCollected {
				s.stopped = true
				return true, nil
			}
		case afterLeft > 0:
			s.writeLine(name, lineNo, "-", shortened(text))
			printed = lineNo
			afterLeft--
		case s.context > 0:
			b := numbered{lineNo, shortened(text)}
			if len(before) < s.context {
				before = append(before, b)
			} else {
				before[next] = b
				next = (next + 1) % len(before)
			}
		}
		line = line[:0]
		if err != nil || s.matches >= s.limit && afterLeft == 0 {
			break
		}
	}
	return s.matches >= s.limit || s.stopped, nil
}

func (s *grepSearch) writeLine(name string, no int, sep, text string) {
	s.out.WriteString(name)
	s.out.WriteString(sep)
	s.out.WriteString(strconv.Itoa(no))
	s.out.WriteString(sep)
	s.out.WriteString(" ")
	s.out.WriteString(text)
	s.out.WriteString("\n")
}

// shortened is line as grep prints it, copied without the part that is cut off (a kept
// context line must not hold on to a long line's bytes).
func shortened(line []byte) string {
	return shortenLine(string(line[:min(len(line), grepLineMax+utf8.UTFMax)]))
}

func shortenLine(l string) string {
	if len(l) <= grepLineMax {
		return l
	}
	return l[:runePrefix(l, grepLineMax)] + " [line shortened]"
}
