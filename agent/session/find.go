package session

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/basecontext/base-context/internal/candidates"
	"github.com/basecontext/base-context/internal/similar"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/userfile"
)

// Statuses of a saved session. Whether one is running is known to the run registry, not
// to the file.
const (
	StatusRunning   = "running"
	StatusCompleted = "completed" // the last message is an answer (stop or length)
	StatusStopped   = "stopped"   // the run was stopped or interrupted: an aborted answer, or a CustomStopped entry after the last message
	StatusFailed    = "failed"    // anything else: an error, a failed save, a stream that could not be written (a CustomFailed entry after the last message), a run killed (even during its tools: calls without results)
)

// Info summarizes a session file for listings.
type Info struct {
	ID, Path, Cwd, ParentSession string
	Created                      string // the header's timestamp
	LastActivity                 string // the last entry's timestamp, the header's when there is none
	Model                        string // provider/modelId of the last model_change, "" when none
	Messages                     int    // message entries
	Status                       string // StatusCompleted, StatusStopped or StatusFailed
	Skipped                      int    // lines that are not entries (a crash's cut last line)
	FirstPrompt                  string // the text of the first user message, "" when none
}

// Scan summarizes the session file at path, reading it line by line: it holds one line at a
// time and decodes only the few members a listing shows. Lines that are not entries are
// counted in Skipped, not errors: a listing shows what it can.
func Scan(path string) (Info, error) {
	return scanWith(codec.NewLineReader(nil), path)
}

// scanWith is Scan reading with lr, reset to the file (its buffer reused).
func scanWith(lr *codec.LineReader, path string) (Info, error) {
	info := Info{Path: path, Status: StatusFailed}
	f, err := os.Open(path)
	if err != nil {
		return info, fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	lr.Reset(f)
	var m [6]codec.Member
	keys := []string{"type", "timestamp", "message", "provider", "modelId", "customType"}
	for first := true; ; {
		line, err := lr.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return info, fmt.Errorf("session: %s: %w", path, err)
		}
		if len(line) == 0 {
			continue
		}
		if first {
			h, err := codec.ParseHeader(line)
			if err != nil {
				return info, fmt.Errorf("session: %s:%d: %w", path, lr.Line(), err)
			}
			info.ID, info.Cwd, info.ParentSession = h.ID, h.Cwd, h.ParentSession
			info.Created, info.LastActivity = h.Timestamp, h.Timestamp
			first = false
			continue
		}
		if codec.CheckObject(line) != nil {
			info.Skipped++
			continue
		}
		codec.FindEach(line, keys, m[:])
		if ts := m[1].Str(line); ts != "" {
			info.LastActivity = ts
		}
		switch m[0].Str(line) {
		case TypeMessage:
			info.Messages++
			msg := m[2].Raw(line)
			if info.FirstPrompt == "" {
				info.FirstPrompt = userText(msg)
			}
			info.Status = StatusFailed
			if codec.Find(msg, "role").Str(msg) == "assistant" {
				switch codec.Find(msg, "stopReason").Str(msg) {
				case codec.StopReasonStop, codec.StopReasonLength:
					info.Status = StatusCompleted
				case codec.StopReasonAborted:
					info.Status = StatusStopped
				}
				// toolUse as the last message: its results were never saved.
			}
		case TypeModelChange:
			info.Model = m[3].Str(line) + "/" + m[4].Str(line)
		case TypeCustom:
			switch m[5].Str(line) {
			case CustomStopped:
				if info.Messages > 0 && info.Status == StatusFailed {
					info.Status = StatusStopped
				}
			case CustomFailed:
				if info.Messages > 0 {
					info.Status = StatusFailed
				}
			}
		}
	}
	if info.ID == "" {
		return info, fmt.Errorf("session: %s: no session header", path)
	}
	return info, nil
}

// userText is the text of a user message (its text blocks joined), "" for other messages.
func userText(msg []byte) string {
	if codec.Find(msg, "role").Str(msg) != "user" {
		return ""
	}
	m, err := codec.ParseMessage(msg)
	if err != nil {
		return ""
	}
	um, ok := m.(*codec.UserMessage)
	if !ok || um.Blocks == nil {
		if ok {
			return um.Text
		}
		return ""
	}
	var b strings.Builder
	for _, c := range um.Blocks {
		if t, ok := c.(*codec.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// List summarizes the session files in dir, newest activity first (the index spares the
// files that did not change). A file that cannot be read is left out and reported in
// problems; a missing dir holds no sessions.
func List(dir string) (infos []Info, problems []error, err error) {
	files, err := Files(dir)
	if err != nil {
		return nil, nil, err
	}
	infos, problems = Summarize(dir, files)
	SortNewest(infos)
	return infos, problems, nil
}

// SortNewest sorts infos by last activity, newest first (then by id, descending, then by
// path).
func SortNewest(infos []Info) {
	slices.SortFunc(infos, func(a, b Info) int { return compareNewest(&a, &b) })
}

// NewestN returns the n newest of infos in SortNewest's order (all of them for n <= 0),
// choosing them without sorting the rest: a page of a large folder.
func NewestN(infos []Info, n int) []Info {
	if n <= 0 || n >= len(infos) {
		SortNewest(infos)
		return infos
	}
	top := make([]int, 0, n+1) // indexes of the newest so far, in order
	for i := range infos {
		if len(top) == n && compareNewest(&infos[i], &infos[top[n-1]]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, i, func(t, i int) int { return compareNewest(&infos[t], &infos[i]) })
		top = slices.Insert(top, at, i)
		if len(top) > n {
			top = top[:n]
		}
	}
	page := make([]Info, len(top))
	for k, i := range top {
		page[k] = infos[i]
	}
	return page
}

// compareNewest is SortNewest's order: negative when a comes before b.
func compareNewest(a, b *Info) int {
	if c := strings.Compare(b.LastActivity, a.LastActivity); c != 0 {
		return c
	}
	if c := strings.Compare(b.ID, a.ID); c != 0 {
		return c
	}
	return strings.Compare(a.Path, b.Path)
}

// IDs returns the ids of the session files in dir, sorted.
func IDs(dir string) ([]string, error) {
	files, err := listFiles(dir, false)
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	return ids, err
}

// Find returns the path of the session in dir whose id is query or starts with it. A whole
// id in our naming is found without listing the folder.
func Find(dir, query string) (string, error) {
	if _, ok := idOfName(query + ".jsonl"); ok && !strings.ContainsAny(query, "/\\_") {
		path := filepath.Join(dir, query+".jsonl")
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			return path, nil
		}
	}
	files, err := listFiles(dir, false)
	if err != nil {
		return "", err
	}
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	id, err := Match(ids, query)
	if err != nil {
		return "", err
	}
	i := sort.Search(len(files), func(i int) bool { return files[i].ID >= id })
	return filepath.Join(dir, files[i].Name), nil
}

// AmbiguousError is a prefix that more than one id starts with.
type AmbiguousError struct {
	Query      string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session id %q is ambiguous: %d sessions match it: %s",
		e.Query, len(e.Candidates), candidates.Join(e.Candidates))
}

// NotFoundError is an id that neither is nor starts any id; Closest are the ids that look
// most like it, best first (none when there are no ids at all).
type NotFoundError struct {
	Query   string
	Closest []string
}

func (e *NotFoundError) Error() string {
	if len(e.Closest) == 0 {
		return fmt.Sprintf("no session %q", e.Query)
	}
	return fmt.Sprintf("no session %q; the closest ids are %s", e.Query, strings.Join(e.Closest, ", "))
}

// closestCount is how many near misses a NotFoundError names.
const closestCount = 3

// Match finds the one id in ids that is query, or else the one that starts with it.
func Match(ids []string, query string) (string, error) {
	if query == "" {
		return "", &NotFoundError{Query: query}
	}
	var prefixed []string
	for _, id := range ids {
		if id == query {
			return id, nil
		}
		if strings.HasPrefix(id, query) {
			prefixed = append(prefixed, id)
		}
	}
	switch len(prefixed) {
	case 1:
		return prefixed[0], nil
	case 0:
		return "", &NotFoundError{Query: query, Closest: closest(ids, query, closestCount)}
	}
	sort.Strings(prefixed)
	return "", &AmbiguousError{Query: query, Candidates: prefixed}
}

// closest returns up to n ids nearest to query: by edit distance between query and the
// id's start of the same length (people type prefixes), then by id.
func closest(ids []string, query string, n int) []string {
	type scored struct {
		id   string
		dist int
	}
	all := make([]scored, 0, len(ids))
	for _, id := range ids {
		head := id
		if len(head) > len(query) {
			head = head[:len(query)]
		}
		all = append(all, scored{id, similar.Distance(query, head)})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].dist != all[j].dist {
			return all[i].dist < all[j].dist
		}
		return all[i].id < all[j].id
	})
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].id)
	}
	return out
}

// ReadHeader reads the header of the session file at path, and nothing more.
func ReadHeader(path string) (*codec.Header, error) {
	f, err := userfile.Open(path) // a device or a FIFO would be read without end
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	lr := codec.NewLineReader(f)
	for {
		line, err := lr.ReadLine()
		if err == io.EOF {
			return nil, fmt.Errorf("session: %s: no session header", path)
		}
		if err != nil {
			return nil, fmt.Errorf("session: %s: %w", path, err)
		}
		if len(line) == 0 {
			continue
		}
		h, err := codec.ParseHeader(line)
		if err != nil {
			return nil, fmt.Errorf("session: %s:%d: %w", path, lr.Line(), err)
		}
		return h, nil
	}
}

// Newest returns the session in dir with the latest activity among those keep accepts (by
// the directory they were started in). Only the files that changed since the index was
// made are read.
func Newest(dir string, keep func(cwd string) bool) (Info, bool, error) {
	files, err := Files(dir)
	if err != nil {
		return Info{}, false, err
	}
	infos, _ := Summarize(dir, files)
	best := -1
	for i := range infos {
		if (best < 0 || compareNewest(&infos[i], &infos[best]) < 0) && keep(infos[i].Cwd) {
			best = i
		}
	}
	if best < 0 {
		return Info{}, false, nil
	}
	return infos[best], true, nil
}
