package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/basecontext/base-context/agent/tools"
)

// pathForm is one form of a path that file rules are matched against: absolute, and
// relative to the working directory when it is inside it ("" otherwise).
type pathForm struct {
	abs, rel string
}

// shown is the form as a message names it.
func (f pathForm) shown() string {
	if f.rel != "" {
		return f.rel
	}
	return filepath.ToSlash(f.abs)
}

// pathForms are the forms of a path argument: as written, cleaned (~ expanded as the tools
// expand it, .. removed), and resolved (symlinks followed, those of the parents of a file
// that does not exist yet included), each relative to the working directory as given and
// as resolved.
func (p *Policy) pathForms(arg string) []pathForm {
	p.setup()
	cwd, realCwd := p.cwd, p.realCwd
	var forms []pathForm
	if !filepath.IsAbs(arg) && arg != "~" && !strings.HasPrefix(arg, "~/") {
		written := filepath.ToSlash(arg)
		for strings.HasPrefix(written, "./") {
			written = strings.TrimLeft(written[2:], "/")
		}
		if written != "" && written != ".." && !strings.HasPrefix(written, "../") {
			forms = append(forms, pathForm{abs: cwd + string(filepath.Separator) + arg, rel: written})
		}
	}
	clean := tools.ResolvePath(cwd, arg)
	forms = append(forms, pathForm{abs: clean, rel: relTo(cwd, clean)})
	if real := resolveLinks(clean); real != clean || realCwd != cwd {
		forms = append(forms, pathForm{abs: real, rel: relTo(realCwd, real)}, pathForm{abs: real, rel: relTo(cwd, real)})
	}
	return forms
}

// relTo is abs relative to base, slash-separated, or "" when it is not inside base.
func relTo(base, abs string) string {
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// matchPath matches a file rule's pattern against a form: an absolute pattern (or one
// beginning with ~, expanded as the tools expand it) against the absolute form, a
// relative one against the form relative to the working directory.
func (p *Policy) matchPath(pattern string, f pathForm) bool {
	if pattern == "~" || strings.HasPrefix(pattern, "~/") {
		pattern = filepath.ToSlash(tools.ResolvePath("", "~")) + pattern[1:]
	}
	if strings.HasPrefix(pattern, "/") {
		m, _ := tools.MatchPath(strings.TrimPrefix(pattern, "/"), strings.TrimPrefix(filepath.ToSlash(f.abs), "/"))
		return m
	}
	if f.rel == "" {
		return false
	}
	m, _ := tools.MatchPath(pattern, f.rel)
	return m
}

// maxLinks bounds the symbolic links followed in resolving one path, as the kernel does.
const maxLinks = 40

// resolveLinks is where an absolute, clean path leads once its symbolic links are
// followed; the part that does not exist yet is kept as it is.
func resolveLinks(p string) string { return resolveDepth(p, 0) }

func resolveDepth(p string, n int) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if n > maxLinks || base == "" || dir == p {
		return p
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err := os.Readlink(p); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(resolveDepth(dir, n+1), target)
			}
			return resolveDepth(filepath.Clean(target), n+1)
		}
	}
	return filepath.Join(resolveDepth(dir, n+1), base)
}
