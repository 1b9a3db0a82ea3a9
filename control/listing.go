package control

import (
	"slices"
	"strings"

	"github.com/basecontext/base-context/agent/session"
)

// Listing is a saved session as `sessions list` shows it (and --json prints it).
type Listing struct {
	ID            string `json:"id"`
	Cwd           string `json:"cwd"`
	Created       string `json:"created"`
	LastActivity  string `json:"lastActivity"`
	Model         string `json:"model,omitempty"`
	MessageCount  int    `json:"messageCount"`
	Status        string `json:"status"`
	ParentSession string `json:"parentSession,omitempty"`
	Path          string `json:"path"`
	Prefix        string `json:"prefix"` // the shortest prefix that names it alone
	Title         string `json:"title"`  // its first prompt, on one line, cut
}

// ListSessions lists the sessions saved in dir, newest activity first: those started in
// cwd, or with all those of every directory; the first limit of them (all for 0), out of
// total. The runs in the registry show as running. problems are the session files that could
// not be read, which the list leaves out.
func ListSessions(dir, registry, cwd string, all bool, limit int) (rows []Listing, total int, problems []error, err error) {
	files, err := session.Files(dir)
	if err != nil {
		return nil, 0, nil, err
	}
	infos, problems := session.Summarize(dir, files)
	if !all {
		here := sameDirAs(cwd)
		infos = slices.DeleteFunc(infos, func(in session.Info) bool { return !here(in.Cwd) })
	}
	total = len(infos)
	infos = session.NewestN(infos, limit)
	allIDs := make([]string, len(files)) // sorted, as Files returns them
	for i, f := range files {
		allIDs[i] = f.ID
	}
	running := map[string]bool{}
	entries, _ := Running(registry)
	for _, e := range entries {
		running[e.ID] = true
	}
	for _, in := range infos {
		status := in.Status
		if running[in.ID] {
			status = session.StatusRunning
		}
		rows = append(rows, Listing{ID: in.ID, Cwd: in.Cwd, Created: in.Created, LastActivity: in.LastActivity,
			Model: in.Model, MessageCount: in.Messages, Status: status, ParentSession: in.ParentSession, Path: in.Path,
			Prefix: uniquePrefix(allIDs, in.ID, minPrefix), Title: title(in.FirstPrompt)})
	}
	return rows, total, problems, nil
}

// minPrefix is the shortest id prefix sessions list shows: ids are UUIDv7, whose first
// characters are a timestamp that sessions of the same minute share.
const minPrefix = 8

// uniquePrefix is id's shortest prefix of at least least characters that no other of ids
// starts with (the whole id when it is a prefix of another, or there twice). ids must be
// sorted: an id shares its longest prefix with one of its neighbours.
func uniquePrefix(ids []string, id string, least int) string {
	i, _ := slices.BinarySearch(ids, id)
	n := least
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(ids) {
			n = max(n, commonPrefix(id, ids[j])+1)
		}
	}
	return id[:min(n, len(id))]
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// maxTitle is how many characters of the first prompt sessions list shows.
const maxTitle = 50

// title is a prompt on one line, cut to maxTitle characters ("…" marks a cut).
func title(prompt string) string {
	t := []rune(strings.Join(strings.Fields(prompt), " "))
	if len(t) > maxTitle {
		return string(t[:maxTitle-1]) + "…"
	}
	return string(t)
}
