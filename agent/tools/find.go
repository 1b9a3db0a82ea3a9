package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/basecontext/base-context/codec"
)

const findDescription = `Find files and directories whose path matches a glob pattern.

Patterns: * and ? match within one path segment, [abc] matches a set, {a,b} alternatives, and ** any number of directories. A pattern without a slash is matched against names at any depth, so *.go finds every Go file; a pattern with a slash is matched against the whole path below the search directory, e.g. src/**/*_test.go.

Returns paths relative to the search directory, sorted, with a trailing / on directories. .git and node_modules are skipped; other hidden files are included. At most limit results are returned (default 1000).`

var findParams = []param{
	{name: "pattern", typ: "string", required: true, desc: "Glob pattern, e.g. *.ts, **/*.json or src/**/*.{js,jsx}."},
	{name: "path", typ: "string", desc: "Directory to search in. Defaults to the working directory."},
	{name: "limit", typ: "number", desc: "Maximum number of results. Defaults to 1000."},
}

const defaultFindLimit = 1000

// skipDirs are never descended into by find and grep.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

type findTool struct{ opts Options }

func (*findTool) Name() string                { return "find" }
func (*findTool) Description() string         { return findDescription }
func (*findTool) Parameters() json.RawMessage { return objectSchema(findParams) }

// glob matches slash-separated relative paths against a pattern.
type glob struct{ alternatives [][]string }

// compileGlob checks pattern and expands its braces.
func compileGlob(pattern string) (*glob, error) {
	g := &glob{}
	for _, p := range expandBraces(pattern) {
		p = strings.TrimPrefix(p, "./")
		segs := strings.Split(strings.Trim(p, "/"), "/")
		if !strings.Contains(strings.Trim(p, "/"), "/") && p != "**" {
			segs = []string{"**", segs[0]}
		}
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("invalid glob pattern %q: %v", pattern, err)
			}
		}
		g.alternatives = append(g.alternatives, segs)
	}
	return g, nil
}

func (g *glob) match(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, segs := range g.alternatives {
		if matchSegments(segs, parts) {
			return true
		}
	}
	return false
}

func matchSegments(pat, parts []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 { // a trailing ** needs something to match: dir/** is what is inside dir
				return len(parts) > 0
			}
			for i := range len(parts) + 1 {
				if matchSegments(pat, parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], parts[0]); !ok {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(parts) == 0
}

// expandBraces expands {a,b} alternatives, nested ones included.
func expandBraces(p string) []string {
	open := -1
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth == 0 {
				var alts []string
				d, from := 0, open+1
				for j := open + 1; j < i; j++ {
					switch p[j] {
					case '{':
						d++
					case '}':
						d--
					case ',':
						if d == 0 {
							alts = append(alts, p[from:j])
							from = j + 1
						}
					}
				}
				alts = append(alts, p[from:i])
				var out []string
				for _, alt := range alts {
					out = append(out, expandBraces(p[:open]+alt+p[i+1:])...)
				}
				return out
			}
		}
	}
	return []string{p}
}

// skipEntry leaves an entry of a walk out: a folder with all it holds.
func skipEntry(d fs.DirEntry) error {
	if d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

// searchRoot resolves the optional path argument of grep, find and ls and stats it.
func searchRoot(opts Options, a *args) (display, abs string, fi os.FileInfo, err error) {
	display, ok, err := a.str("path", false)
	if err != nil {
		return "", "", nil, err
	}
	if !ok || display == "" {
		display = "."
	}
	abs = resolvePath(opts.Cwd, display)
	if opts.hidden(abs) {
		return "", "", nil, fmt.Errorf("%s%s: a deny rule of the permission policy hides it", codec.PermissionDeniedPrefix, display)
	}
	fi, err = os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", nil, fmt.Errorf("path not found: %s", display)
		}
		return "", "", nil, fmt.Errorf("cannot access %s: %v", display, err)
	}
	return display, abs, fi, nil
}

func (t *findTool) Execute(ctx context.Context, raw json.RawMessage, _ func(codec.ToolResult)) (_ Result, err error) {
	defer func() { err = interrupted(ctx, "find", err) }()
	a, err := parseArgs("find", raw)
	if err != nil {
		return Result{}, err
	}
	pattern, err := a.nonEmpty("pattern")
	if err != nil {
		return Result{}, err
	}
	limit, err := a.limit(defaultFindLimit)
	if err != nil {
		return Result{}, err
	}
	display, root, fi, err := searchRoot(t.opts, a)
	if err != nil {
		return Result{}, err
	}
	if !fi.IsDir() {
		return Result{}, fmt.Errorf("%s is not a directory", display)
	}
	g, err := compileGlob(pattern)
	if err != nil {
		return Result{}, err
	}

	var found []string
	foundBytes := 0
	more, stopped := false, false // stopped: the paths reached maxCollected
	n := 0
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if n++; n%1000 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		if p == root {
			return nil
		}
		if d.IsDir() && skipDirs[d.Name()] || t.opts.hidden(p) {
			return skipEntry(d)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if g.match(rel) {
			if len(found) == limit {
				more = true
				return fs.SkipAll
			}
			if foundBytes >= maxCollected {
				stopped = true
				return fs.SkipAll
			}
			foundBytes += len(rel) + 1
			if d.IsDir() {
				rel += "/"
			}
			found = append(found, rel)
		}
		return nil
	})
	if walkErr != nil {
		return Result{}, walkErr
	}
	if len(found) == 0 {
		return textResult(fmt.Sprintf("No files found matching %s in %s", pattern, display)), nil
	}
	sort.Strings(found)
	text := strings.Join(found, "\n")
	out, d := truncateOutput(text, t.opts, false)
	if stopped {
		out = appendNote(out, fmt.Sprintf("[Search stopped after %d results: %s of paths is as much as find collects. Refine the pattern or the path.]", len(found), formatSize(maxCollected)))
	} else if more {
		out = appendNote(out, fmt.Sprintf("[Result limit reached: showing the first %d matches. Use limit=%d for more, or refine the pattern.]", limit, limit*2))
		if d == nil {
			d = &details{}
		}
		d.ResultLimitReached = limit
	}
	res := textResult(out)
	res.Details = d.encode()
	return res, nil
}
