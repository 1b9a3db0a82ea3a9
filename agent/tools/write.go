package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/basecontext/base-context/codec"
)

const writeDescription = `Write a file with the given content, replacing it completely if it exists.

Missing parent directories are created. For changing part of an existing file, edit is safer and cheaper: it only needs the text that changes.`

var writeParams = []param{
	{name: "path", typ: "string", required: true, desc: "Path of the file to write, relative to the working directory or absolute."},
	{name: "content", typ: "string", required: true, desc: "The complete new content of the file."},
}

type writeTool struct{ opts Options }

func (*writeTool) Name() string                { return "write" }
func (*writeTool) Description() string         { return writeDescription }
func (*writeTool) Parameters() json.RawMessage { return objectSchema(writeParams) }

func (t *writeTool) Execute(ctx context.Context, raw json.RawMessage, _ func(codec.ToolResult)) (Result, error) {
	a, err := parseArgs("write", raw)
	if err != nil {
		return Result{}, err
	}
	path, err := a.nonEmpty("path")
	if err != nil {
		return Result{}, err
	}
	content, _, err := a.str("content", true)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	abs := resolvePath(t.opts.Cwd, path)
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return Result{}, fmt.Errorf("%s is a directory", path)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return Result{}, fmt.Errorf("cannot create the directory of %s: %v", path, err)
	}
	if err := writeFileAtomic(abs, []byte(content)); err != nil {
		return Result{}, fmt.Errorf("cannot write %s: %v", path, err)
	}
	return textResult(fmt.Sprintf("Wrote %d bytes to %s.", len(content), path)), nil
}
