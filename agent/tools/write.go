package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/basecontext/base-context/codec"
)

const writeDescription = `Write a file with the given content, replacing it completely if it exists.

Missing parent directories are created. A symlink is written through (the link stays); FIFOs, sockets, devices and directories are refused. For changing part of an existing file, edit is safer and cheaper: it only needs the text that changes.`

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
	if err := t.opts.Sandbox.CheckWrite(abs); err != nil {
		return Result{}, err
	}
	if err := writeFileAtomic(abs, path, []byte(content)); err != nil {
		return Result{}, err
	}
	return textResult(fmt.Sprintf("Wrote %d bytes to %s.", len(content), path)), nil
}
