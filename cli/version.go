package cli

import (
	"fmt"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/buildinfo"
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

// versionString is the version line of --version and `version`.
func versionString() string { return buildinfo.Describe(Version, Commit) }
