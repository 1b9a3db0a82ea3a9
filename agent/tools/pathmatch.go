package tools

import (
	"fmt"
	"path"
	"strings"
)

// ResolvePath is where a tool given path p works when run in cwd ("~" is the home directory).
func ResolvePath(cwd, p string) string { return resolvePath(cwd, p) }

// hidden reports whether the permission policy hides the file at abs from listings.
func (o Options) hidden(abs string) bool { return o.Hidden != nil && o.Hidden(abs) }

// MatchPath reports whether rel, a slash-separated path relative to a directory, matches
// pattern anchored at that directory, with the glob syntax of find (*, ?, [abc], {a,b}, and
// ** for any number of directories); unlike find's, a pattern without a slash names a file
// of the directory itself, not one at any depth.
func MatchPath(pattern, rel string) (bool, error) {
	parts := strings.Split(rel, "/")
	for _, p := range expandBraces(pattern) {
		segs := strings.Split(strings.Trim(strings.TrimPrefix(p, "./"), "/"), "/")
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return false, fmt.Errorf("invalid glob pattern %q: %v", pattern, err)
			}
		}
		if matchSegments(segs, parts) {
			return true, nil
		}
	}
	return false, nil
}
