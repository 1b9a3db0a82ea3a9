package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliMaxLines is the budget of cli/'s code (issue 25): kong commands and wiring; machinery
// that grows past it belongs in a package.
const cliMaxLines = 1800

func TestCLIIsWiring(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(b), "\n")
	}
	if lines > cliMaxLines {
		t.Errorf("cli/ has %d lines of code besides its tests, more than %d: move machinery into a package and call it", lines, cliMaxLines)
	}
}
