// Package buildinfo says which build the binary is.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Describe is "<version> (commit <rev>[, modified], <go version> <os>/<arch>)". version is
// the one the binary was given, unless it was installed with `go install …@vX`, which
// reports that module version; commit is the one set at build time (a "-modified" suffix
// marks a modified tree), else the one Go's VCS stamping recorded, if any. The build
// information is read only here: reading it took a third of the instructions of a filter's
// start-up.
func Describe(version, commit string) string {
	rev, modified, goVersion := "unknown", false, runtime.Version()
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			version = strings.TrimPrefix(v, "v")
		}
		goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if commit != "" {
		rev, modified = strings.CutSuffix(commit, "-modified")
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += ", modified"
	}
	return fmt.Sprintf("%s (commit %s, %s %s/%s)", version, rev, goVersion, runtime.GOOS, runtime.GOARCH)
}
