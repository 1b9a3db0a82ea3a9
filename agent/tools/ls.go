package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	names, total, err := listSorted(ctx, abs, limit, t.opts.hidden)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Result{}, fmt.Errorf("cannot list %s: %v", display, err)
	}
	if len(names) == 0 {
		return textResult("(empty directory)"), nil
	}
	more := total > limit
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

// lsBatch is how many entries ls reads at a time; between batches it drops the names that
// sort after the first limit, so a folder of millions of entries costs no more than limit
// names, and it looks at its context.
const lsBatch = 1024

// listSorted returns the first limit entry names of the folder abs in ls order (a trailing /
// on folders and links to folders) and the number of entries, leaving out those hidden names.
func listSorted(ctx context.Context, abs string, limit int, hidden func(string) bool) (names []string, total int, err error) {
	// Non-blocking: should a FIFO have taken the folder's place, the open does not wait.
	dir, err := os.OpenFile(abs, os.O_RDONLY|openDirFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	defer dir.Close()
	order := func() {
		sort.Slice(names, func(i, j int) bool {
			li, lj := strings.ToLower(names[i]), strings.ToLower(names[j])
			if li != lj {
				return li < lj
			}
			return names[i] < names[j]
		})
		names = names[:min(len(names), limit)]
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		entries, err := dir.ReadDir(lsBatch)
		for _, e := range entries {
			name := e.Name()
			if hidden(filepath.Join(abs, name)) {
				total--
				continue
			}
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
		total += len(entries)
		if len(names) >= limit+lsBatch {
			order()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
	}
	order()
	return names, total, nil
}
