package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/basecontext/base-context/codec"
)

const readDescription = `Read a file from the local filesystem.

Text files come back as plain text. PNG, JPEG, GIF and WebP images (recognised by their content, not their name) come back as images you can look at.

At most 2000 lines or 50KB of text are returned per call, whichever limit is hit first. For longer files, page through with offset (the 1-based line to start at) and limit (how many lines to return); the output tells you which offset to use next.

Only regular files are read: FIFOs, sockets and devices are refused. Relative paths are resolved against the working directory; ~ stands for the home directory.`

var readParams = []param{
	{name: "path", typ: "string", required: true, desc: "Path of the file to read, relative to the working directory or absolute."},
	{name: "offset", typ: "number", desc: "1-based line number to start reading at. Defaults to 1."},
	{name: "limit", typ: "number", desc: "Maximum number of lines to return."},
}

// maxImageBytes caps the size of an image read returns.
const maxImageBytes = 20 * 1024 * 1024

type readTool struct{ opts Options }

func (*readTool) Name() string                { return "read" }
func (*readTool) Description() string         { return readDescription }
func (*readTool) Parameters() json.RawMessage { return objectSchema(readParams) }

func (t *readTool) Execute(ctx context.Context, raw json.RawMessage, _ func(codec.ToolResult)) (Result, error) {
	a, err := parseArgs("read", raw)
	if err != nil {
		return Result{}, err
	}
	path, err := a.nonEmpty("path")
	if err != nil {
		return Result{}, err
	}
	offset, hasOffset, err := a.integer("offset", 1)
	if err != nil {
		return Result{}, err
	}
	if !hasOffset {
		offset = 1
	}
	limit, hasLimit, err := a.integer("limit", 1)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}

	abs := resolvePath(t.opts.Cwd, path)
	f, fi, err := openRegular(abs, path)
	if err != nil {
		var nr *notRegularError
		switch {
		case errors.As(err, &nr) && nr.kind == "directory":
			return Result{}, fmt.Errorf("%s is a directory; use ls to list its entries", path)
		case errors.As(err, &nr):
			return Result{}, err
		case errors.Is(err, fs.ErrNotExist):
			return Result{}, fmt.Errorf("file not found: %s", path)
		}
		return Result{}, fmt.Errorf("cannot read %s: %v", path, err)
	}
	defer f.Close()

	head := make([]byte, 8192)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return Result{}, fmt.Errorf("cannot read %s: %v", path, err)
	}
	head = head[:n]
	if mime := codec.ImageType(head); mime != "" {
		return readImage(f, fi, path, mime)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return Result{}, fmt.Errorf("%s looks like a binary file; read returns only text and PNG, JPEG, GIF or WebP images", path)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Result{}, fmt.Errorf("cannot read %s: %v", path, err)
	}
	return t.readText(ctx, f, path, offset, limit, hasLimit)
}

func readImage(f *os.File, fi os.FileInfo, path, mime string) (Result, error) {
	if fi.Size() > maxImageBytes {
		return Result{}, fmt.Errorf("%s is an image of %s, more than the %s read returns", path,
			formatSize(fi.Size()), formatSize(maxImageBytes))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Result{}, fmt.Errorf("cannot read %s: %v", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxImageBytes+1))
	if err != nil {
		return Result{}, fmt.Errorf("cannot read %s: %v", path, err)
	}
	return Result{Content: []codec.Content{
		&codec.TextContent{Text: fmt.Sprintf("Image file %s [%s, %s]", path, mime, formatSize(int64(len(data))))},
		&codec.ImageContent{Data: base64.StdEncoding.EncodeToString(data), MimeType: mime},
	}}, nil
}

// readText streams the file line by line: it keeps the selected lines that fit the limits,
// spills the whole selection to a full-output file once they stop fitting, and counts the
// file's lines to the end. Lines arrive in pieces of at most the reader's buffer, and no more
// of a line than could still be kept is held, so memory stays bounded however long a line is.
func (t *readTool) readText(ctx context.Context, f *os.File, path string, offset, limit int, hasLimit bool) (Result, error) {
	last := int64(-1) // last selected line, -1 = to the end
	if hasLimit {
		last = int64(offset) + int64(limit) - 1
	}
	r := bufio.NewReaderSize(f, 64*1024)
	var (
		kept       strings.Builder
		keptLines  int
		lineNo     int64
		selLines   int64
		selBytes   int64
		truncated  bool
		c          cut
		full       *outputFile
		fullErr    error
		line       []byte // the selected line read so far, until it is placed
		inLine     bool   // a line has started and not ended
		selected   bool   // the current line is selected
		sinceCheck int    // bytes read since the context was last checked
	)
	spill := func(b []byte) {
		if full != nil {
			if _, err := full.Write(b); err != nil && fullErr == nil {
				fullErr = err
			}
		}
	}
	// place puts a selected line (or its first MaxBytes+1 bytes or more, when longer: too
	// long to keep either way) in the output or, once the output is full, the spill file.
	place := func(l []byte) {
		switch {
		case truncated:
			spill(l)
		case keptLines < MaxLines && kept.Len()+len(l) <= MaxBytes:
			kept.Write(l)
			keptLines++
		default:
			truncated = true
			prior := kept.String()
			c = cut{text: prior, lines: keptLines, byBytes: keptLines < MaxLines}
			if keptLines == 0 {
				// The line is cut: redacted first, so that no secret is cut in two.
				head := redactAll(t.opts, string(l))
				c = cut{text: head[:runePrefix(head, MaxBytes)], lines: 1, partial: true, byBytes: true}
			}
			full, fullErr = createOutputFile(t.opts)
			if fullErr == nil {
				if _, err := io.WriteString(full, prior); err != nil {
					fullErr = err
				}
				spill(l)
			}
		}
	}
	discard := func() {
		if full != nil {
			full.Close()
			os.Remove(full.Name())
		}
	}
	for {
		frag, err := r.ReadSlice('\n')
		if len(frag) > 0 {
			if !inLine {
				inLine = true
				lineNo++
				selected = lineNo >= int64(offset) && (last < 0 || lineNo <= last)
				if selected {
					selLines++
				}
			}
			if sinceCheck += len(frag); sinceCheck >= 1<<20 {
				sinceCheck = 0
				if err := ctx.Err(); err != nil {
					discard()
					return Result{}, err
				}
			}
			if selected {
				selBytes += int64(len(frag))
				if truncated {
					spill(frag)
				} else if line = append(line, frag...); len(line) > MaxBytes {
					place(line) // too long to keep: the rest goes to the spill file
					line = line[:0]
				}
			}
			if frag[len(frag)-1] == '\n' {
				inLine = false
			}
		}
		if err == bufio.ErrBufferFull {
			continue // the line goes on
		}
		if len(line) > 0 {
			place(line) // a selected line ended (newline or end of file)
			line = line[:0]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			discard()
			return Result{}, fmt.Errorf("cannot read %s: %v", path, err)
		}
	}
	total := lineNo

	if int64(offset) > total && !(offset == 1 && total == 0) {
		return Result{}, fmt.Errorf("offset %d is beyond the end of %s (%d lines)", offset, path, total)
	}
	if !truncated {
		text := kept.String()
		if total == 0 {
			return textResult("(empty file)"), nil
		}
		if last >= 0 && last < total {
			text = appendNote(text, fmt.Sprintf("[%d more lines in file. Use offset=%d to continue.]", total-last, last+1))
		}
		return textResult(text), nil
	}

	fullPath := ""
	if full != nil {
		if err := full.Close(); err != nil && fullErr == nil {
			fullErr = err
		}
		if fullErr != nil {
			os.Remove(full.Name())
		} else {
			fullPath = full.Name()
		}
	}
	hint := ""
	if !c.partial {
		hint = fmt.Sprintf("Use offset=%d to continue.", int64(offset)+int64(c.lines))
	}
	note := truncationNote(c, int64(offset), total, false, hint, fullPath, fullErr)
	d := &details{
		Truncation: &truncationInfo{
			TotalLines:  selLines,
			TotalBytes:  selBytes,
			OutputLines: int64(c.lines),
			OutputBytes: int64(len(c.text)),
		},
		FullOutputPath: fullPath,
	}
	res := textResult(appendNote(c.text, note))
	res.Details = d.encode()
	return res, nil
}
