package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/basecontext/base-context/codec"
)

const lsDescription = `List the entries of a directory, one per line, sorted by name, with a trailing / on directories. Hidden entries (dotfiles) are included.

Lists the working directory when path is omitted. At most limit entries are returned (default 500).`

var lsParams = []param{
	{name: "path", typ: "string", desc: "Directory to list. Defaults to the working directory."},
	{name: "limit", typ: "number", desc: "Maximum number of entries. Defaults to 500."},
}

const defaultLsLimit = 500

type lsTool struct{ opts Options }

func (*lsTool) Name() string                { return "ls" }
func (*lsTool) Description() string         { return lsDescription }
func (*lsTool) Parameters() json.RawMessage { return objectSchema(lsParams) }

func (t *lsTool) Execute(ctx context.Context, raw json.RawMessage, _ func(codec.ToolResult)) (Result, error) {
	a, err := parseArgs("ls", raw)
	if err != nil {
		return Result{}, err
	}
	limit, err := a.limit(defaultLsLimit)
	if err != nil {
		return Result{}, err
	}
	display, abs, fi, err := searchRoot(t.opts, a)
	if err != nil {
		return Result{}, err
	}
	if !fi.IsDir() {
		return Result{}, fmt.Errorf("%s is not a directory", display)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return Result{}, fmt.Errorf("cannot list %s: %v", display, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(abs, name)); err == nil {
				isDir = st.IsDir()
			}
		}
		if isDir {
			name += "/"
		}
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		li, lj := strings.ToLower(names[i]), strings.ToLower(names[j])
		if li != lj {
			return li < lj
		}
		return names[i] < names[j]
	})
	if len(names) == 0 {
		return textResult("(empty directory)"), nil
	}
	more := len(names) > limit
	total := len(names)
	if more {
		names = names[:limit]
	}
	out, d := truncateOutput(strings.Join(names, "\n"), t.opts, false)
	if more {
		out = appendNote(out, fmt.Sprintf("[Entry limit reached: showing %d of %d entries. Use limit=%d to see them all.]", limit, total, total))
		if d == nil {
			d = &details{}
		}
		d.EntryLimitReached = limit
	}
	res := textResult(out)
	res.Details = d.encode()
	return res, nil
}
