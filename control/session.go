package control

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
)

// Which is the saved session a run continues, as the run's flags name it: --resume ID,
// --continue (the newest of the directory) or --fork ID; none of them, a new session.
type Which struct {
	Resume   string
	Continue bool
	Fork     string
}

// Kinds of session a run writes.
const (
	KindNew    = "new"    // a new session
	KindResume = "resume" // a saved session, continued in its own file
	KindFork   = "fork"   // a new session starting from a copy of a saved one's conversation
)

// Choice is which session a run writes.
type Choice struct {
	Kind string
	ID   string // the run's session id
	Path string // resume: the session file; fork: the parent's file
}

// Choose resolves w among the sessions saved in dir for a run working in cwd. id, when set,
// is the session id the foreground process of a detached run chose. Every error says what
// the user asked that cannot be done.
func Choose(dir, cwd string, w Which, id string) (Choice, error) {
	switch {
	case id != "" && (w.Resume != "" || w.Continue):
		return Choice{Kind: KindResume, ID: id, Path: filepath.Join(dir, id+".jsonl")}, nil
	case w.Resume != "":
		path, err := session.Find(dir, w.Resume)
		if err != nil {
			return Choice{}, findError(err, dir)
		}
		h, err := session.ReadHeader(path)
		if err != nil {
			return Choice{}, err
		}
		if !SameDir(h.Cwd, cwd) {
			return Choice{}, fmt.Errorf("session %s belongs to %s, not to this directory (%s): resume it from there, or --fork it here", h.ID, h.Cwd, cwd)
		}
		return Choice{Kind: KindResume, ID: h.ID, Path: path}, nil
	case w.Continue:
		info, ok, err := session.Newest(dir, sameDirAs(cwd))
		if err != nil {
			return Choice{}, err
		}
		if !ok {
			return Choice{}, fmt.Errorf("no saved session of this directory (%s) in %s to continue", cwd, dir)
		}
		return Choice{Kind: KindResume, ID: info.ID, Path: info.Path}, nil
	case w.Fork != "":
		path, err := session.Find(dir, w.Fork)
		if err != nil {
			return Choice{}, findError(err, dir)
		}
		if id == "" {
			id = session.NewID()
		}
		return Choice{Kind: KindFork, ID: id, Path: path}, nil
	}
	if id == "" {
		id = session.NewID()
	}
	return Choice{Kind: KindNew, ID: id}, nil
}

// findError explains a failed session lookup.
func findError(err error, dir string) error {
	var nf *session.NotFoundError
	if errors.As(err, &nf) && len(nf.Closest) == 0 {
		return fmt.Errorf("no session %q: there are no saved sessions in %s", nf.Query, dir)
	}
	return err
}

// FindSaved resolves an id or prefix among the sessions saved in dir; a failed lookup
// explains itself.
func FindSaved(dir, query string) (string, error) {
	path, err := session.Find(dir, query)
	if err != nil {
		return "", findError(err, dir)
	}
	return path, nil
}

// SameDir reports whether two paths name the same directory, symbolic links resolved.
func SameDir(a, b string) bool { return sameDirAs(b)(a) }

// sameDirAs is SameDir(·, dir) for many directories: dir is resolved once, and each
// directory met once (a folder of sessions holds few distinct ones).
func sameDirAs(dir string) func(string) bool {
	clean := filepath.Clean(dir)
	var resolved string
	var err error
	once := false
	seen := map[string]bool{}
	return func(d string) bool {
		if filepath.Clean(d) == clean {
			return true
		}
		if same, ok := seen[d]; ok {
			return same
		}
		if !once {
			resolved, err = filepath.EvalSymlinks(dir)
			once = true
		}
		r, errD := filepath.EvalSymlinks(d)
		seen[d] = err == nil && errD == nil && r == resolved
		return seen[d]
	}
}

// Source is a chosen session, read once: a resumed session's file, opened for appending
// and locked against other runs, or a fork's parent. Its Model is known before the run
// starts; Open then gives the run its session.
type Source struct {
	Choice
	loaded *session.Loaded // the resumed session, or the parent of a fork
	file   *session.File   // the resumed session's file, until Open hands it over
}

// Load reads the session c names, once. A session that another run is writing is refused,
// naming that run's process when the registry in regDir knows it.
func (c Choice) Load(regDir string) (*Source, error) {
	src := &Source{Choice: c}
	switch c.Kind {
	case KindResume:
		f, l, err := session.Resume(c.Path)
		if err != nil {
			return nil, lockedError(regDir, c.ID, err)
		}
		src.file, src.loaded = f, l
	case KindFork:
		l, err := session.Read(c.Path)
		if err != nil {
			return nil, err
		}
		src.loaded = l
	}
	return src, nil
}

// lockedError explains why a saved session cannot be resumed.
func lockedError(regDir, id string, err error) error {
	if !errors.Is(err, session.ErrLocked) {
		return err
	}
	who := "another run"
	if e, ok := Get(regDir, id); ok {
		who = fmt.Sprintf("another run (pid %d)", e.PID)
	}
	return fmt.Errorf("session %s is being written by %s: wait for it to end, stop it (base-context stop %s) or --fork it", id, who, id)
}

// Model is the model of the session the run continues, as "provider/id"; "" for a new
// session or one that names none.
func (s *Source) Model() string {
	if s.loaded == nil || s.loaded.ModelID == "" {
		return ""
	}
	return s.loaded.Provider + "/" + s.loaded.ModelID
}

// Close lets go of a resumed session that was never opened.
func (s *Source) Close() {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
}

// Session is the session a run writes, open.
type Session struct {
	Header  *codec.Header
	Store   session.Store
	File    string          // the session file; "" in memory
	History []codec.Message // the conversation the run continues (nil for a new session)
	// HistoryIDs are the session entry ids of History, so a compaction can name them.
	HistoryIDs []string
	// Undelivered are the messages sent to the session's last run that it could not
	// deliver: they open this run's first turn, before its prompt.
	Undelivered []session.Undelivered
}

// Fork is the source of a new session that starts from a copy of parent's chain.
func Fork(parent *session.Loaded) *Source {
	return &Source{Choice: Choice{Kind: KindFork, ID: session.NewID()}, loaded: parent}
}

// OpenOptions say where a new session goes.
type OpenOptions struct {
	Dir    string // the sessions folder
	Cwd    string
	Memory bool   // keep a new session in memory only (a fork's copy is then only its context)
	Parent string // the parentSession of a new session
	// Rewrite, when set, rewrites each entry a fork copies from its parent (redaction).
	Rewrite func(line []byte) []byte
	// Warn receives what reading the session found and cut off.
	Warn func(path, warning string)
}

// Open gives the run its session: a new one (created in o.Dir, or in memory), the resumed
// one, or a fork of the parent. Its only errors are those of creating a session file.
func (s *Source) Open(o OpenOptions) (*Session, error) {
	if s.loaded != nil && o.Warn != nil {
		for _, w := range s.loaded.Warnings {
			o.Warn(s.Path, w)
		}
	}
	now := session.NowISO(time.Now())
	out := &Session{}
	switch s.Kind {
	case KindNew:
		out.Header = &codec.Header{Version: session.Version, ID: s.ID, Timestamp: now, Cwd: o.Cwd, ParentSession: o.Parent}
		if o.Memory {
			out.Store = session.NewMemory()
			return out, nil
		}
		f, err := session.Create(o.Dir, *out.Header)
		if err != nil {
			return nil, err
		}
		out.Store, out.File = f, f.Path()
		return out, nil
	case KindResume:
		h := s.loaded.Header
		out.Header, out.Store, out.File = &h, s.file, s.file.Path()
		s.file = nil
	case KindFork:
		out.Header = &codec.Header{Version: session.Version, ID: s.ID, Timestamp: now, Cwd: o.Cwd, ParentSession: s.loaded.Header.ID}
		if o.Memory {
			out.Store = session.NewMemory()
		} else {
			f, err := session.CreateFork(o.Dir, *out.Header, s.loaded, o.Rewrite)
			if err != nil {
				return nil, err
			}
			out.Store, out.File = f, f.Path()
		}
	}
	out.History, out.HistoryIDs = s.loaded.Context(), s.loaded.ContextEntryIDs()
	out.Undelivered = s.loaded.Undelivered()
	return out, nil
}

// Registered is the session a run writes and the run's place in the registry, through which
// `stop`, `send` and `attach` reach it.
type Registered struct {
	*Session
	*Run
}

// Close closes the session file, then (for a run owned by its client) removes the run from
// the registry, which tells a waiting `stop` that the run has ended.
func (s *Registered) Close() error {
	err := s.Store.Close()
	s.Run.Close()
	return err
}

// RegisterError is why a resident run could not register: nobody could find, attach to or
// stop it, so it does not start.
type RegisterError struct{ Err error }

func (e *RegisterError) Error() string { return "cannot register the run: " + e.Err.Error() }
func (e *RegisterError) Unwrap() error { return e.Err }

// OpenRun gives the run its session (Open) and registers the run in the registry folder
// (with its events file when resident is set, which is then told the header). A run in the
// foreground that cannot register runs all the same, after telling warn why nobody will
// find it; a resident one fails with a *RegisterError. Any other error is Open's.
func (s *Source) OpenRun(o OpenOptions, registry string, resident *Resident, warn func(error)) (*Registered, error) {
	sess, err := s.Open(o)
	if err != nil {
		return nil, err
	}
	run, err := Start(registry, sess.Header.ID, o.Cwd, sess.File, resident)
	if err != nil {
		if resident != nil {
			sess.Store.Close()
			return nil, &RegisterError{Err: err}
		}
		warn(fmt.Errorf("cannot register the run, so list, stop, send and attach will not find it: %w", err))
	}
	if resident != nil {
		resident.Announce(sess.Header)
	}
	return &Registered{Session: sess, Run: run}, nil
}
