package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/basecontext/base-context/agent/instructions"
)

// Options say where a run's skills come from.
type Options struct {
	Cwd  string
	Home string // base-context's home folder: <home>/skills; "" for none
	// Paths are --skill and the setting skills.paths: a SKILL.md, a skill's folder or a
	// folder of skills, relative to Cwd (~ is the user's home). They come first.
	Paths []string
	None  bool // --no-skills
	// Enabled, when not empty, are the only skills loaded; Disabled are not loaded.
	Enabled, Disabled []string
}

// Set is what discovery found.
type Set struct {
	Skills   []Skill   // loaded, nearest first
	Refused  []Refused // breaking the format: not loaded
	Disabled []string  // names left out by Options.Enabled and Options.Disabled
	Warnings []string  // name clashes, loops and places that cannot be read
}

// Places are the folders searched for skills after Options.Paths, nearest first:
// .agents/skills and .base-context/skills of each directory from cwd up to its repository
// root (else the file system root), then <home>/skills.
func Places(cwd, home string) []string {
	var places []string
	root := instructions.RepoRoot(cwd)
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		places = append(places, filepath.Join(dir, ".agents", "skills"), filepath.Join(dir, ".base-context", "skills"))
		if dir == root || filepath.Dir(dir) == dir {
			break
		}
	}
	if home != "" {
		places = append(places, filepath.Join(home, "skills"))
	}
	return places
}

// Discover finds the skills of o. On a name clash the nearer skill wins and a warning names
// both files.
func Discover(o Options) *Set {
	if o.None {
		return &Set{}
	}
	f := &finder{seen: map[string]bool{}}
	for _, p := range o.Paths {
		f.place(resolve(p, o.Cwd), ScopeTemporary)
	}
	for _, p := range Places(o.Cwd, o.Home) {
		scope := ScopeProject
		if o.Home != "" && p == filepath.Join(o.Home, "skills") {
			scope = ScopeUser
		}
		f.place(p, scope)
	}
	set := &Set{Refused: f.refused, Warnings: f.warnings}
	for _, s := range f.skills {
		if (len(o.Enabled) > 0 && !slices.Contains(o.Enabled, s.Name)) || slices.Contains(o.Disabled, s.Name) {
			set.Disabled = append(set.Disabled, s.Name)
			continue
		}
		set.Skills = append(set.Skills, s)
	}
	for _, name := range o.Enabled {
		if !slices.ContainsFunc(f.skills, func(s Skill) bool { return s.Name == name }) {
			set.Warnings = append(set.Warnings, fmt.Sprintf("skill %q is enabled, but no skill has that name", name))
		}
	}
	return set
}

// Find is the loaded skill called name; nil when there is none.
func (s *Set) Find(name string) *Skill {
	if s == nil {
		return nil
	}
	for i := range s.Skills {
		if s.Skills[i].Name == name {
			return &s.Skills[i]
		}
	}
	return nil
}

// Report is what a run says on stderr about its skills: the clashes, loops and unreadable
// places, and each refused skill with its problems.
func (s *Set) Report() []string {
	if s == nil {
		return nil
	}
	lines := slices.Clone(s.Warnings)
	for _, r := range s.Refused {
		lines = append(lines, fmt.Sprintf("skill %s is not loaded: %s", r.Path, strings.Join(r.Problems, "; ")))
	}
	return lines
}

func resolve(p, cwd string) string {
	if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || rest[0] == '/') {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// maxDepth bounds the search below a place: skills sit at most a few folders down, and a
// place that is a link to a large tree must not make every run walk it.
const maxDepth = 4

// finder gathers skills in the order of the places it is given.
type finder struct {
	skills   []Skill
	refused  []Refused
	warnings []string
	seen     map[string]bool // the real paths of the SKILL.md files read: each is read once
	scope    string          // of the place being searched
}

// The scopes of skills, as the upstream names them: where they were found.
const (
	ScopeProject   = "project"   // .agents/skills or .base-context/skills of the repository
	ScopeUser      = "user"      // <home>/skills
	ScopeTemporary = "temporary" // --skill, skills.paths
)

// place searches path, of scope. A place given explicitly (--skill) that is missing, or is
// a file other than a SKILL.md, is a warning; a default place that is missing is not.
func (f *finder) place(path, scope string) {
	f.scope = scope
	st, err := os.Stat(path)
	if err != nil {
		if scope == ScopeTemporary || !isNotExist(err) {
			f.warn("skill path %s: %v", path, err)
		}
		return
	}
	if !st.IsDir() {
		if filepath.Base(path) != FileName {
			f.warn("skill path %s is neither a %s nor a folder", path, FileName)
			return
		}
		f.file(path)
		return
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		f.warn("skill path %s: %v", path, err)
		return
	}
	f.walk(path, []string{real})
}

// walk searches dir, chain being the real paths of the folders it is in (dir's last): a
// folder holding a SKILL.md is a skill and is not searched further; the others' subfolders
// are, links to folders included, except a link back to a folder of the chain (a loop).
func (f *finder) walk(dir string, chain []string) {
	skill := filepath.Join(dir, FileName)
	if st, err := os.Stat(skill); err == nil && !st.IsDir() {
		f.file(skill)
		return
	}
	if len(chain) > maxDepth {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.warn("cannot read the skills folder %s: %v", dir, err)
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(sub); err != nil || !st.IsDir() {
				continue // a link to a file, or broken: no skill
			}
		} else if !e.IsDir() {
			continue
		}
		real, err := filepath.EvalSymlinks(sub)
		if err != nil {
			f.warn("skill folder %s: %v", sub, err)
			continue
		}
		if slices.Contains(chain, real) {
			f.warn("skill folder %s links back to %s, a folder it is in: the loop is not followed", sub, real)
			continue
		}
		f.walk(sub, append(slices.Clone(chain), real))
	}
}

// file loads the SKILL.md at path, unless the same file was read already (through a link).
func (f *finder) file(path string) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if f.seen[real] {
			return
		}
		f.seen[real] = true
	}
	s, problems := Parse(path)
	if len(problems) > 0 {
		f.refused = append(f.refused, Refused{Path: path, Problems: problems})
		return
	}
	s.Scope = f.scope
	if i := slices.IndexFunc(f.skills, func(k Skill) bool { return k.Name == s.Name }); i >= 0 {
		f.warn("skill %q of %s is hidden by the nearer one of %s", s.Name, s.Path, f.skills[i].Path)
		return
	}
	f.skills = append(f.skills, *s)
}

func (f *finder) warn(format string, args ...any) {
	f.warnings = append(f.warnings, fmt.Sprintf(format, args...))
}
