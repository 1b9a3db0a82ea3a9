package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/basecontext/base-context/codec"
)

const editDescription = `Change part of an existing file by exact text replacement.

Each edit gives an oldText and the newText to put in its place. oldText must match the current file exactly, whitespace and indentation included, and occur exactly once: include a few neighbouring lines when a snippet is not unique.

Several places can be changed in one call by listing several edits. Every oldText is matched against the file as it is before the call, edits must not overlap, and either all of them are applied or none is.

To create a file or rewrite it completely, use write instead.`

var editParams = []param{
	{name: "path", typ: "string", required: true, desc: "Path of the file to edit, relative to the working directory or absolute."},
	{name: "edits", typ: "array", required: true, desc: "The replacements to make, matched against the original file.", items: []param{
		{name: "oldText", typ: "string", required: true, desc: "Exact text to replace; must occur exactly once in the file."},
		{name: "newText", typ: "string", required: true, desc: "Text to put in its place (may be empty to delete)."},
	}},
}

// diffContext is the number of unchanged lines shown around each change of a diff.
const diffContext = 3

type editTool struct{ opts Options }

func (*editTool) Name() string                { return "edit" }
func (*editTool) Description() string         { return editDescription }
func (*editTool) Parameters() json.RawMessage { return objectSchema(editParams) }

type replacement struct {
	label            string // how errors name the edit
	oldText, newText string
}

// span is one replacement located in the file.
type span struct {
	start, end int // byte range of the old text
	newText    string
}

// parseEdits reads the edits array and/or the top-level oldText/newText pair.
func parseEdits(a *args) ([]replacement, error) {
	var out []replacement
	oldText, hasOld, err := a.str("oldText", false)
	if err != nil {
		return nil, err
	}
	newText, hasNew, err := a.str("newText", false)
	if err != nil {
		return nil, err
	}
	if hasOld || hasNew {
		if !hasOld {
			return nil, a.errorf(`"oldText" is required (string) when "newText" is given`)
		}
		if !hasNew {
			return nil, a.errorf(`"newText" is required (string) when "oldText" is given`)
		}
		if oldText == "" {
			return nil, a.errorf(`"oldText" must not be empty`)
		}
		out = append(out, replacement{label: "oldText", oldText: oldText, newText: newText})
	}

	v, ok := a.get("edits")
	if !ok {
		if len(out) == 0 {
			return nil, a.errorf(`"edits" is required (array of {oldText, newText})`)
		}
		return out, nil
	}
	if v[0] == '"' { // an array sent as a JSON string
		var s string
		if json.Unmarshal(v, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "[") {
			v = json.RawMessage(strings.TrimSpace(s))
		}
	}
	var items []json.RawMessage
	if v[0] != '[' || json.Unmarshal(v, &items) != nil {
		return nil, a.errorf(`"edits" must be an array of {oldText, newText}, got %s`, jsonKind(v))
	}
	if len(items) == 0 && len(out) == 0 {
		return nil, a.errorf(`"edits" must hold at least one edit`)
	}
	for i, it := range items {
		sub := &args{tool: a.tool, prefix: fmt.Sprintf("edits[%d].", i)}
		it = bytes.TrimSpace(it)
		if len(it) == 0 || it[0] != '{' || json.Unmarshal(it, &sub.m) != nil {
			return nil, a.errorf(`"edits[%d]" must be an object {oldText, newText}, got %s`, i, jsonKind(it))
		}
		o, _, err := sub.str("oldText", true)
		if err != nil {
			return nil, err
		}
		if o == "" {
			return nil, sub.errorf(`%s must not be empty`, sub.name("oldText"))
		}
		n, _, err := sub.str("newText", true)
		if err != nil {
			return nil, err
		}
		out = append(out, replacement{label: fmt.Sprintf("edits[%d].oldText", i), oldText: o, newText: n})
	}
	return out, nil
}

// countOccurrences counts the places sub occurs in s, overlapping ones included.
func countOccurrences(s, sub string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return n
		}
		n++
		i += j + 1
		if i > len(s) {
			return n
		}
	}
}

// locate finds every replacement in content. Each old text must occur exactly once; a file
// with CRLF line ends also matches old texts written with LF.
func locate(content string, reps []replacement, path string) ([]span, error) {
	crlf := strings.Contains(content, "\r\n")
	spans := make([]span, 0, len(reps))
	for _, r := range reps {
		oldText, newText := r.oldText, r.newText
		n := countOccurrences(content, oldText)
		if n == 0 && crlf && strings.Contains(oldText, "\n") {
			toCRLF := func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
			}
			if alt := toCRLF(oldText); alt != oldText {
				if m := countOccurrences(content, alt); m > 0 {
					oldText, newText, n = alt, toCRLF(newText), m
				}
			}
		}
		switch {
		case n == 0:
			return nil, fmt.Errorf("%s was not found in %s. It must match the file exactly, including whitespace and indentation; read the file to check the current text", r.label, path)
		case n > 1:
			return nil, fmt.Errorf("%s occurs %d times in %s; it must occur exactly once. Include more surrounding lines to make it unique", r.label, n, path)
		}
		i := strings.Index(content, oldText)
		spans = append(spans, span{start: i, end: i + len(oldText), newText: newText})
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return spans[order[x]].start < spans[order[y]].start })
	sorted := make([]span, len(spans))
	for k, i := range order {
		sorted[k] = spans[i]
		if k > 0 {
			p := order[k-1]
			if spans[i].start < spans[p].end {
				return nil, fmt.Errorf("%s and %s overlap in %s; merge them into one edit", reps[p].label, reps[i].label, path)
			}
		}
	}
	return sorted, nil
}

func applySpans(content string, spans []span) string {
	var b strings.Builder
	prev := 0
	for _, s := range spans {
		b.WriteString(content[prev:s.start])
		b.WriteString(s.newText)
		prev = s.end
	}
	b.WriteString(content[prev:])
	return b.String()
}

func (t *editTool) Execute(ctx context.Context, raw json.RawMessage, _ func(codec.ToolResult)) (Result, error) {
	a, err := parseArgs("edit", raw)
	if err != nil {
		return Result{}, err
	}
	path, err := a.nonEmpty("path")
	if err != nil {
		return Result{}, err
	}
	reps, err := parseEdits(a)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	abs := resolvePath(t.opts.Cwd, path)
	if err := t.opts.Sandbox.CheckWrite(abs); err != nil {
		return Result{}, err
	}
	data, err := readForEdit(abs, path)
	if err != nil {
		return Result{}, err
	}
	content := string(data)
	spans, err := locate(content, reps, path)
	if err != nil {
		return Result{}, err
	}
	updated := applySpans(content, spans)
	if updated == content {
		return Result{}, fmt.Errorf("no changes made to %s: every newText equals its oldText", path)
	}
	if err := writeFileAtomic(abs, path, []byte(updated)); err != nil {
		return Result{}, err
	}
	diff, first := unifiedDiff(path, content, updated, spans)
	word := "edit"
	if len(spans) != 1 {
		word = "edits"
	}
	res := textResult(fmt.Sprintf("Applied %d %s to %s.", len(spans), word, path))
	res.Details = (&details{Diff: diff, FirstChangedLine: first}).encode()
	return res, nil
}

// maxEditBytes is the largest file edit loads: it holds the file and its new content in
// memory, so the limit is what bounds the memory of an edit.
const maxEditBytes = 64 << 20

// readForEdit reads the regular file at abs whole, refusing other kinds and files over
// maxEditBytes.
func readForEdit(abs, path string) ([]byte, error) {
	f, fi, err := openRegular(abs, path)
	if err != nil {
		var nr *notRegularError
		switch {
		case errors.As(err, &nr):
			return nil, err
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("file not found: %s (use write to create a file)", path)
		}
		return nil, fmt.Errorf("cannot read %s: %v", path, err)
	}
	defer f.Close()
	if fi.Size() > maxEditBytes {
		return nil, fmt.Errorf("%s has %s, more than the %s edit handles; change it with bash (sed, patch) instead",
			path, formatSize(fi.Size()), formatSize(maxEditBytes))
	}
	// The size may grow meanwhile (a log being written): read at most one byte more than
	// the limit to notice.
	data, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", path, err)
	}
	if len(data) > maxEditBytes {
		return nil, fmt.Errorf("%s has more than the %s edit handles; change it with bash (sed, patch) instead",
			path, formatSize(maxEditBytes))
	}
	return data, nil
}

// ---- diff ----

// splitKeep splits s into lines that keep their "\n".
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// change replaces old lines starting at line index at (0-based) of the old file with lines.
type change struct {
	at       int
	old, new []string
}

// unifiedDiff renders the change from old to new, which differ only at spans, as a unified
// diff with diffContext lines of context. It also returns the first changed line of the new
// file (1-based).
func unifiedDiff(path, old, new string, spans []span) (string, int) {
	// Regions: the spans widened to whole lines, merged where they share a line. Outside the
	// regions old and new are the same text.
	type region struct{ os, oe, before, within int }
	var regions []region
	delta := 0
	for _, s := range spans {
		ls := strings.LastIndexByte(old[:s.start], '\n') + 1
		le := s.end
		if le > 0 && old[le-1] != '\n' {
			if i := strings.IndexByte(old[le:], '\n'); i >= 0 {
				le += i + 1
			} else {
				le = len(old)
			}
		}
		d := len(s.newText) - (s.end - s.start)
		if n := len(regions); n > 0 && ls < regions[n-1].oe {
			regions[n-1].oe = max(regions[n-1].oe, le)
			regions[n-1].within += d
		} else {
			regions = append(regions, region{os: ls, oe: le, before: delta, within: d})
		}
		delta += d
	}

	var changes []change
	for _, r := range regions {
		ol := splitKeep(old[r.os:r.oe])
		nl := splitKeep(new[r.os+r.before : r.oe+r.before+r.within])
		trimmed := 0
		for len(ol) > 0 && len(nl) > 0 && ol[0] == nl[0] {
			ol, nl = ol[1:], nl[1:]
			trimmed++
		}
		for len(ol) > 0 && len(nl) > 0 && ol[len(ol)-1] == nl[len(nl)-1] {
			ol, nl = ol[:len(ol)-1], nl[:len(nl)-1]
		}
		if len(ol) == 0 && len(nl) == 0 {
			continue
		}
		at := strings.Count(old[:r.os], "\n") + trimmed
		changes = append(changes, change{at: at, old: ol, new: nl})
	}
	if len(changes) == 0 {
		return "", 0
	}

	oldLines := splitKeep(old)
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", path, path)
	writeLine := func(prefix, line string) {
		b.WriteString(prefix)
		if strings.HasSuffix(line, "\n") {
			b.WriteString(line)
		} else {
			b.WriteString(line)
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
	lineDelta := 0 // new line number minus old line number before the current group
	firstChanged := changes[0].at + 1
	for g := 0; g < len(changes); {
		h := g + 1
		for h < len(changes) && changes[h].at-(changes[h-1].at+len(changes[h-1].old)) <= 2*diffContext {
			h++
		}
		start := max(0, changes[g].at-diffContext)
		last := changes[h-1]
		end := min(len(oldLines), last.at+len(last.old)+diffContext)
		oldCount, newCount := end-start, end-start
		for _, c := range changes[g:h] {
			newCount += len(c.new) - len(c.old)
		}
		oldStart, newStart := start+1, start+1+lineDelta
		if oldCount == 0 {
			oldStart--
		}
		if newCount == 0 {
			newStart--
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldCount, newStart, newCount)
		i := start
		for _, c := range changes[g:h] {
			for ; i < c.at; i++ {
				writeLine(" ", oldLines[i])
			}
			for _, l := range c.old {
				writeLine("-", l)
			}
			for _, l := range c.new {
				writeLine("+", l)
			}
			i = c.at + len(c.old)
			lineDelta += len(c.new) - len(c.old)
		}
		for ; i < end; i++ {
			writeLine(" ", oldLines[i])
		}
		g = h
	}
	return b.String(), firstChanged
}
