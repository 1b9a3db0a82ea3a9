// Package tools holds the tools a coding agent offers its model: read, bash, edit, write,
// grep, find and ls. Each tool lives in its own file with its model-facing description;
// this file holds what they share: the Tool interface, argument checking, path resolution,
// atomic writes and output truncation.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/sandbox"
)

// Output limits of every tool: a result longer than either is truncated.
const (
	MaxLines = 2000
	MaxBytes = 50 * 1024
)

// maxCollected bounds what a search (grep, find) collects before it is truncated, whatever
// limit the model asks for: a search that reaches it stops there and says so.
const maxCollected = 4 << 20

// Tool is one tool the model can call.
type Tool interface {
	Name() string
	Description() string         // model-facing
	Parameters() json.RawMessage // JSON schema (draft-07 object schema) of the arguments
	// Execute runs the call. update (never nil) may be called with partial results while it runs
	// (bash streams its output this way). A returned error becomes an error result for the model
	// with err.Error() as its text; a Result with IsError true is also an error result.
	Execute(ctx context.Context, args json.RawMessage, update func(codec.ToolResult)) (Result, error)
}

// Result is what a tool call returns to the model.
type Result struct {
	Content []codec.Content // *codec.TextContent / *codec.ImageContent
	Details json.RawMessage // optional, e.g. {"truncation":{...},"fullOutputPath":"..."}; nil if none
	IsError bool
	// Status says how a command that did not succeed ended ("Command exited with code 1",
	// "Command timed out after 5 seconds"); its text ends with this note. "" when the command
	// exited 0 or the tool runs none. Not sent to the model: it is there for callers such as
	// gates that need the outcome without reading the text.
	Status string
	// Output is the command's output as the text holds it (truncated where the text is), before
	// the status note, whose separator hides whether it ended with a line break. "" for the
	// tools that run no command.
	Output string
}

// Options configure the tools.
type Options struct {
	Cwd     string // tools resolve relative paths against it
	TempDir string // where full outputs of truncated results go; "" = os.TempDir()
	// Redact, when not nil, starts the redaction of one output. An output that does not
	// fit the limits is then redacted before it is cut, so that a cut cannot leave the rest
	// of a secret that no rule would recognise, and its full-output file holds the redacted
	// text. An output that fits is returned as it is.
	Redact func() RedactStream
	// Hidden, when set, names the files grep, find and ls leave out of what they show (those
	// the permission policy denies reading), given an absolute path.
	Hidden func(path string) bool
	// Sandbox is what bash runs under and what write and edit check; nil: no sandbox.
	Sandbox *sandbox.Sandbox
	// CallEnv, when not nil, gives variables to add to the environment of the commands of
	// the tool call whose id it is given (WithCallID): --otel's TRACEPARENT of its span.
	CallEnv func(callID string) []string
}

type callIDKey struct{}

// WithCallID tells the tool run with ctx the id of its call.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// commandEnv is the environment of a command the tool call of ctx runs: nil (the process's)
// unless CallEnv adds to it.
func (o Options) commandEnv(ctx context.Context) []string {
	if o.CallEnv == nil {
		return nil
	}
	id, _ := ctx.Value(callIDKey{}).(string)
	if add := o.CallEnv(id); len(add) > 0 {
		return append(os.Environ(), add...)
	}
	return nil
}

// RedactStream redacts one text that arrives in pieces: each call returns the redacted text
// that can be released so far (valid until the next call); the call with end set releases
// the rest. The pieces released add up to the redaction of the whole text.
type RedactStream func(chunk []byte, end bool) []byte

var toolNames = []string{"read", "bash", "edit", "write", "grep", "find", "ls"}

// Names lists the tool names in their canonical order.
func Names() []string { return slices.Clone(toolNames) }

func newTool(name string, opts Options) Tool {
	switch name {
	case "read":
		return &readTool{opts: opts}
	case "bash":
		return &bashTool{opts: opts}
	case "edit":
		return &editTool{opts: opts}
	case "write":
		return &writeTool{opts: opts}
	case "grep":
		return &grepTool{opts: opts}
	case "find":
		return &findTool{opts: opts}
	case "ls":
		return &lsTool{opts: opts}
	}
	return nil
}

// All returns every tool: read, bash, edit, write, grep, find, ls in that order.
func All(opts Options) []Tool {
	out := make([]Tool, 0, len(toolNames))
	for _, n := range toolNames {
		out = append(out, newTool(n, opts))
	}
	return out
}

// SelectList is Select of a comma-separated list of names (--tools): spaces around a name
// and empty names are ignored.
func SelectList(opts Options, list string) ([]Tool, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return Select(opts, names)
}

// Select returns the named tools in the order given (duplicates dropped). Unknown names are
// an error that lists them.
func Select(opts Options, names []string) ([]Tool, error) {
	var out []Tool
	var unknown []string
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if t := newTool(n, opts); t != nil {
			out = append(out, t)
		} else {
			unknown = append(unknown, strconv.Quote(n))
		}
	}
	if len(unknown) > 0 {
		word := "tool"
		if len(unknown) > 1 {
			word = "tools"
		}
		return nil, fmt.Errorf("unknown %s %s (available: %s)", word,
			strings.Join(unknown, ", "), strings.Join(toolNames, ", "))
	}
	return out, nil
}

// textResult is a result holding one text block.
func textResult(text string) Result {
	return Result{Content: []codec.Content{&codec.TextContent{Text: text}}}
}

// ---- details ----

// truncationInfo is the "truncation" member of a result's details.
type truncationInfo struct {
	TotalLines  int64 `json:"totalLines"`
	TotalBytes  int64 `json:"totalBytes"`
	OutputLines int64 `json:"outputLines"`
	OutputBytes int64 `json:"outputBytes"`
}

// details is the Details object of a result; empty members are left out.
type details struct {
	Truncation         *truncationInfo `json:"truncation,omitempty"`
	FullOutputPath     string          `json:"fullOutputPath,omitempty"`
	Diff               string          `json:"diff,omitempty"`
	FirstChangedLine   int             `json:"firstChangedLine,omitempty"`
	MatchLimitReached  int             `json:"matchLimitReached,omitempty"`
	ResultLimitReached int             `json:"resultLimitReached,omitempty"`
	EntryLimitReached  int             `json:"entryLimitReached,omitempty"`
}

// encode returns the JSON of d, or nil when d is nil or says nothing.
func (d *details) encode() json.RawMessage {
	if d == nil || *d == (details{}) {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// ---- truncation ----

// countLines counts the lines of s; a final newline ends the last line rather than starting
// another one.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func fitsLimits(s string) bool { return len(s) <= MaxBytes && countLines(s) <= MaxLines }

// cut is the part of a text that fits the limits.
type cut struct {
	text    string // the kept part
	lines   int    // lines in it (a piece of a line counts as one)
	partial bool   // the kept part is a piece of one line longer than the byte limit
	byBytes bool   // the byte limit, not the line limit, ended the kept part
}

// cutHead keeps the first whole lines of s that fit maxLines and maxBytes. When even the first
// line is too long, it keeps the head of that line.
func cutHead(s string, maxLines, maxBytes int) cut {
	end, lines, byBytes := 0, 0, false
	for lines < maxLines && end < len(s) {
		next := len(s)
		if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
			next = end + i + 1
		}
		if next > maxBytes {
			byBytes = true
			break
		}
		end, lines = next, lines+1
	}
	if lines == 0 && len(s) > 0 {
		return cut{text: s[:runePrefix(s, maxBytes)], lines: 1, partial: true, byBytes: true}
	}
	return cut{text: s[:end], lines: lines, byBytes: byBytes}
}

// cutTail keeps the last whole lines of s that fit maxLines and maxBytes. When even the last
// line is too long, it keeps the tail of that line.
func cutTail(s string, maxLines, maxBytes int) cut {
	start, lines, byBytes := len(s), 0, false
	for lines < maxLines && start > 0 {
		j := start
		if s[j-1] == '\n' {
			j--
		}
		prev := strings.LastIndexByte(s[:j], '\n') + 1
		if len(s)-prev > maxBytes {
			byBytes = true
			break
		}
		start, lines = prev, lines+1
	}
	if lines == 0 && len(s) > 0 {
		return cut{text: s[runeSuffix(s, maxBytes):], lines: 1, partial: true, byBytes: true}
	}
	return cut{text: s[start:], lines: lines, byBytes: byBytes}
}

// runePrefix is the length of the longest prefix of s of at most n bytes that does not split
// a UTF-8 sequence.
func runePrefix(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}

// runeSuffix is the start of the longest suffix of s of at most n bytes that does not split
// a UTF-8 sequence.
func runeSuffix(s string, n int) int {
	if n >= len(s) {
		return 0
	}
	i := len(s) - n
	for k := 0; k < utf8.UTFMax && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i++
	}
	return i
}

// formatSize prints a byte count the way the notes do: 512B, 50KB, 1.5MB.
func formatSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return strconv.FormatFloat(math.Round(float64(n)/1024*10)/10, 'f', -1, 64) + "KB"
	default:
		return strconv.FormatFloat(math.Round(float64(n)/(1024*1024)*10)/10, 'f', -1, 64) + "MB"
	}
}

func tempDir(opts Options) string {
	if opts.TempDir != "" {
		return opts.TempDir
	}
	return os.TempDir()
}

// outputFile is a full-output file: a new file (mode 0600) in the temp dir, written through
// the redaction when the options have one.
type outputFile struct {
	f      *os.File
	redact RedactStream
}

// createOutputFile opens a new full-output file.
func createOutputFile(opts Options) (*outputFile, error) {
	dir := tempDir(opts)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "base-context-*.txt")
	if err != nil {
		return nil, err
	}
	o := &outputFile{f: f}
	if opts.Redact != nil {
		o.redact = opts.Redact()
	}
	return o, nil
}

func (o *outputFile) Name() string { return o.f.Name() }

// Write writes what the redaction releases of p.
func (o *outputFile) Write(p []byte) (int, error) {
	q := p
	if o.redact != nil {
		q = o.redact(p, false)
	}
	if _, err := o.f.Write(q); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes what the redaction still holds and closes the file.
func (o *outputFile) Close() error {
	var err error
	if o.redact != nil {
		_, err = o.f.Write(o.redact(nil, true))
		o.redact = nil
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// redactAll returns the redaction of text, or text when opts has none.
func redactAll(opts Options, text string) string {
	if opts.Redact == nil {
		return text
	}
	return string(opts.Redact()([]byte(text), true))
}

// saveFullOutput writes text to a new file in the temp dir and returns its path.
func saveFullOutput(opts Options, text string) (string, error) {
	f, err := createOutputFile(opts)
	if err != nil {
		return "", err
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// truncationNote is the note that ends a truncated output. firstLine is the number of the
// first kept line, totalLines the number of lines the output had; hint (may be empty) is
// inserted before the full-output reference.
func truncationNote(c cut, firstLine, totalLines int64, keepTail bool, hint, fullPath string, saveErr error) string {
	var b strings.Builder
	b.WriteString("[Output truncated: ")
	switch {
	case c.partial && keepTail:
		fmt.Fprintf(&b, "line %d is longer than %s; showing its last %d bytes (%d lines in total)",
			firstLine, formatSize(MaxBytes), len(c.text), totalLines)
	case c.partial:
		fmt.Fprintf(&b, "line %d is longer than %s; showing its first %d bytes (%d lines in total)",
			firstLine, formatSize(MaxBytes), len(c.text), totalLines)
	default:
		fmt.Fprintf(&b, "showing lines %d-%d of %d", firstLine, firstLine+int64(c.lines)-1, totalLines)
		if c.byBytes {
			fmt.Fprintf(&b, " (%s limit)", formatSize(MaxBytes))
		}
	}
	b.WriteString(".")
	if hint != "" {
		b.WriteString(" ")
		b.WriteString(hint)
	}
	if fullPath != "" {
		b.WriteString(" Full output: ")
		b.WriteString(fullPath)
	} else if saveErr != nil {
		fmt.Fprintf(&b, " (the full output could not be saved: %v)", saveErr)
	}
	b.WriteString("]")
	return b.String()
}

// interrupted is the error of a tool that failed because ctx ended: what ended it ("find
// aborted: interrupted (SIGINT)", from the cause its canceller gave), never "context
// canceled"; errors.Is still finds ctx's error in it. Other errors are returned as they are.
func interrupted(ctx context.Context, tool string, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	msg := tool + " aborted"
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, context.DeadlineExceeded):
		msg += ": out of time"
	case !errors.Is(cause, context.Canceled):
		msg += ": " + cause.Error()
	}
	return &interruptedError{msg, ctx.Err()}
}

type interruptedError struct {
	msg string
	ctx error
}

func (e *interruptedError) Error() string { return e.msg }
func (e *interruptedError) Unwrap() error { return e.ctx }

// appendNote appends a note to text, separated by a blank line.
func appendNote(text, note string) string {
	if text == "" {
		return note
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + "\n" + note
}

// truncateOutput applies the limits to text. It returns text unchanged and nil details when
// text fits; otherwise the kept part (head, or tail if keepTail) ending with a note, and
// details naming the file that holds the full text.
func truncateOutput(text string, opts Options, keepTail bool) (string, *details) {
	if fitsLimits(text) {
		return text, nil
	}
	// The full file gets the text as it is (it redacts what it writes); the kept part is cut
	// from the redacted text.
	full := text
	if text = redactAll(opts, text); fitsLimits(text) {
		return text, nil
	}
	var c cut
	if keepTail {
		c = cutTail(text, MaxLines, MaxBytes)
	} else {
		c = cutHead(text, MaxLines, MaxBytes)
	}
	total := int64(countLines(text))
	first := int64(1)
	if keepTail {
		first = total - int64(c.lines) + 1
	}
	path, err := saveFullOutput(opts, full)
	note := truncationNote(c, first, total, keepTail, "", path, err)
	return appendNote(c.text, note), &details{
		Truncation: &truncationInfo{
			TotalLines:  total,
			TotalBytes:  int64(len(text)),
			OutputLines: int64(c.lines),
			OutputBytes: int64(len(c.text)),
		},
		FullOutputPath: path,
	}
}

// Truncate applies the shared output limits (MaxLines, MaxBytes) to text. When text fits it is
// returned unchanged (with opts.Redact, a text that fits once redacted is returned redacted). Otherwise the head (or the tail if keepTail) that fits is kept and a note
// is appended naming fullPath, a new file (mode 0600) in opts.TempDir holding the whole text.
func Truncate(text string, opts Options, keepTail bool) (out string, fullPath string, truncated bool) {
	out, d := truncateOutput(text, opts, keepTail)
	if d == nil {
		return out, "", false
	}
	return out, d.FullOutputPath, true
}

// ---- paths and files ----

// resolvePath resolves p against cwd; "~" and "~/..." expand to the home directory.
func resolvePath(cwd, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	return filepath.Join(resolvePath("", cwd), p)
}

// notRegularError refuses a file that is not a regular one: tools read and write regular
// files only, since opening a FIFO can block forever, reading a device can run without end,
// and replacing any of them by rename would destroy the node.
type notRegularError struct {
	path string // as the model gave it
	kind string // fifo, socket, device, directory, …
}

func (e *notRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (%s)", e.path, e.kind)
}

// fileKind names the type of a file mode the way refusals do.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// openRegular opens a regular file for reading and refuses anything else without waiting:
// the node is checked before it is opened (opening a device may have effects of its own),
// and opened non-blocking so that a FIFO swapped in meanwhile cannot hang the open, then
// checked again. Errors are the os package's (fs.ErrNotExist, …) or a *notRegularError.
func openRegular(abs, display string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &notRegularError{display, fileKind(fi.Mode())}
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, &notRegularError{display, fileKind(fi.Mode())}
	}
	return f, fi, nil
}

// maxSymlinkHops bounds the links writeTarget follows, as the kernel does (ELOOP).
const maxSymlinkHops = 40

// writeTarget is the file a write of path replaces: path itself, or the file its symlinks
// lead to (which may not exist yet), so that the link stays a link. fi is the target's
// (nil when it does not exist). Anything but a regular file is refused.
func writeTarget(path, display string) (target string, fi fs.FileInfo, err error) {
	target = path
	for hops := 0; ; hops++ {
		fi, err = os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return target, nil, nil // created, or refused when its folder is made
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if !fi.Mode().IsRegular() {
				return "", nil, &notRegularError{display, fileKind(fi.Mode())}
			}
			return target, fi, nil
		}
		if hops == maxSymlinkHops {
			return "", nil, fmt.Errorf("too many levels of symbolic links")
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			// Relative to the link's real directory: ".." after a linked folder is the
			// parent of where that folder leads, not a lexical step back.
			dir := filepath.Dir(target)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			link = filepath.Join(dir, link)
		}
		target = link
	}
}

// writeFileAtomic replaces the regular file at path (or the file its symlinks lead to) with
// data through a temp file in the same directory and a rename, so readers see the old or the
// new content and never a mix. An existing file keeps its permission bits (and, where the
// process may set them, its owner). A FIFO, socket, device or directory is refused and left
// untouched: a rename would replace the node itself. Missing parent folders of the target
// are created. Errors name the file as display.
func writeFileAtomic(path, display string, data []byte) error {
	target, fi, err := writeTarget(path, display)
	if err != nil {
		var nr *notRegularError
		if errors.As(err, &nr) {
			return err
		}
		return fmt.Errorf("cannot write %s: %v", display, err)
	}
	mode := os.FileMode(0o644)
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the directory of %s: %v", display, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", display, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %v", display, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if o, ok := statOwner(fi); ok {
		_ = f.Chown(o.uid, o.gid) // best effort: only root may give a file away
	}
	if err := f.Chmod(mode); err != nil { // after Chown, which may clear setuid bits
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %v", display, err)
	}
	// The target may have changed since it was checked; a rename must never replace a node
	// that is not a regular file.
	if now, err := os.Lstat(target); err == nil && !now.Mode().IsRegular() {
		os.Remove(tmp)
		return &notRegularError{display, fileKind(now.Mode())}
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %v", display, err)
	}
	return nil
}

type owner struct{ uid, gid int }

// ---- arguments ----

// args reads the arguments object of one call and checks each member as it is read.
type args struct {
	tool   string
	prefix string // "edits[0]." for members of nested objects
	m      map[string]json.RawMessage
}

func parseArgs(tool string, raw json.RawMessage) (*args, error) {
	a := &args{tool: tool, m: map[string]json.RawMessage{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	if raw[0] != '{' {
		return nil, a.errorf("arguments must be a JSON object, got %s", jsonKind(raw))
	}
	if err := json.Unmarshal(raw, &a.m); err != nil {
		return nil, a.errorf("arguments are not valid JSON: %v", err)
	}
	return a, nil
}

func (a *args) errorf(format string, v ...any) error {
	return fmt.Errorf("invalid arguments for %s: %s", a.tool, fmt.Sprintf(format, v...))
}

func (a *args) name(n string) string { return strconv.Quote(a.prefix + n) }

// get returns a member; null counts as absent.
func (a *args) get(n string) (json.RawMessage, bool) {
	v, ok := a.m[n]
	v = bytes.TrimSpace(v)
	if !ok || len(v) == 0 || string(v) == "null" {
		return nil, false
	}
	return v, true
}

func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// str reads a string member.
func (a *args) str(n string, required bool) (string, bool, error) {
	v, ok := a.get(n)
	if !ok {
		if required {
			return "", false, a.errorf("%s is required (string)", a.name(n))
		}
		return "", false, nil
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", false, a.errorf("%s must be a string, got %s", a.name(n), jsonKind(v))
	}
	return s, true, nil
}

// nonEmpty reads a required string member that must not be empty.
func (a *args) nonEmpty(n string) (string, error) {
	s, _, err := a.str(n, true)
	if err == nil && s == "" {
		err = a.errorf("%s must not be empty", a.name(n))
	}
	return s, err
}

// number reads a number member; a string holding a number is accepted too.
func (a *args) number(n string) (float64, bool, error) {
	v, ok := a.get(n)
	if !ok {
		return 0, false, nil
	}
	text := string(v)
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			text = strings.TrimSpace(s)
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if (v[0] != '"' && jsonKind(v) != "number") || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, a.errorf("%s must be a number, got %s", a.name(n), jsonKind(v))
	}
	return f, true, nil
}

// integer reads a whole-number member of at least min.
// limit reads the optional "limit" argument (at least 1), def when it is absent.
func (a *args) limit(def int) (int, error) {
	n, ok, err := a.integer("limit", 1)
	if !ok && err == nil {
		n = def
	}
	return n, err
}

func (a *args) integer(n string, min int) (int, bool, error) {
	f, ok, err := a.number(n)
	if err != nil || !ok {
		return 0, ok, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false, a.errorf("%s must be a whole number, got %s", a.name(n), strconv.FormatFloat(f, 'f', -1, 64))
	}
	if int(f) < min {
		return 0, false, a.errorf("%s must be at least %d, got %d", a.name(n), min, int(f))
	}
	return int(f), true, nil
}

// boolean reads a boolean member; the strings "true" and "false" are accepted too.
func (a *args) boolean(n string) (bool, error) {
	v, ok := a.get(n)
	if !ok {
		return false, nil
	}
	switch strings.ToLower(strings.Trim(string(v), `"`)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, a.errorf("%s must be a boolean, got %s", a.name(n), jsonKind(v))
}

// ---- schemas ----

// param is one member of an arguments schema.
type param struct {
	name     string
	typ      string // string, number, integer, boolean, array
	desc     string
	required bool
	items    []param // members of the objects of an array
}

// objectSchema builds the draft-07 object schema of params, members in the order given.
func objectSchema(params []param) json.RawMessage {
	return json.RawMessage(appendObjectSchema(nil, params))
}

func appendObjectSchema(b []byte, params []param) []byte {
	b = append(b, `{"type":"object","properties":{`...)
	for i, p := range params {
		if i > 0 {
			b = append(b, ',')
		}
		b = codec.AppendString(b, p.name)
		b = append(b, `:{"type":`...)
		b = codec.AppendString(b, p.typ)
		if p.typ == "array" {
			b = append(b, `,"items":`...)
			b = appendObjectSchema(b, p.items)
		}
		if p.desc != "" {
			b = append(b, `,"description":`...)
			b = codec.AppendString(b, p.desc)
		}
		b = append(b, '}')
	}
	b = append(b, `},"required":[`...)
	n := 0
	for _, p := range params {
		if p.required {
			if n > 0 {
				b = append(b, ',')
			}
			b = codec.AppendString(b, p.name)
			n++
		}
	}
	return append(b, `],"additionalProperties":false}`...)
}

// ---- full-output folders ----

// PruneOutputs removes from root, a folder of full-output folders (one per session), the
// files not written since before, and the folders they leave empty. It returns how many
// files it removed.
func PruneOutputs(root string, before time.Time) int {
	dirs, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	removed := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(root, d.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			p := filepath.Join(dir, f.Name())
			if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && st.ModTime().Before(before) && os.Remove(p) == nil {
				removed++
			}
		}
		os.Remove(dir) // only when empty
	}
	return removed
}
