package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"
)

// Commit is the commit the binary was built from, set by scripts/release with -ldflags
// "-X github.com/basecontext/base-context/cli.Commit=…"; without it, the commit Go's VCS
// stamping recorded, if any.
var Commit string

// versionFlag is --version. Unlike kong.VersionFlag, which prints a variable set when the
// parser is built, it reads the build information only when given: reading it took a third of
// the instructions of a filter's start-up.
type versionFlag bool

// BeforeReset prints the version and ends the parse, before the other flags are read.
func (versionFlag) BeforeReset(app *kong.Kong) error {
	fmt.Fprintln(app.Stdout, versionString())
	app.Exit(0)
	return nil
}

// VersionCmd is `version`.
type VersionCmd struct{}

// Run prints the version line, as --version does.
func (c *VersionCmd) Run(streams *IO) error {
	_, err := fmt.Fprintln(streams.Out, versionString())
	return err
}

// versionString is "<version> (commit <rev>[, modified], <go version>
// <os>/<arch>)". A binary installed with `go install …@vX` reports that module version; the
// commit is the one the binary was built from, when the build recorded it.
func versionString() string {
	version, commit, modified, goVersion := Version, "unknown", false, runtime.Version()
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			version = strings.TrimPrefix(v, "v")
		}
		goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if Commit != "" {
		commit, modified = strings.CutSuffix(Commit, "-modified")
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if modified {
		commit += ", modified"
	}
	return fmt.Sprintf("%s (commit %s, %s %s/%s)", version, commit, goVersion, runtime.GOOS, runtime.GOARCH)
}
