package redact

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cleanCorpus is text that holds no secret: this repository's Go sources, its testdata,
// README and manual (docs/*.md), and common configuration files (testdata/redact/clean). The files that hold the
// fake secrets of the tests are left out.
func cleanCorpus(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if (strings.HasPrefix(name, ".") && path != "..") || name == "node_modules" {
				return filepath.SkipDir // .git, scripts/.bench, npm packages the tests install
			}
			return nil
		}
		switch {
		case strings.HasSuffix(name, "_test.go") && (strings.HasPrefix(name, "redact") || filepath.Base(filepath.Dir(path)) == "redact"),
			path == filepath.Join("..", "testdata", "redact", "secrets.jsonl"),
			strings.HasSuffix(name, ".gz"), strings.HasSuffix(name, ".test"):
			return nil
		case strings.HasSuffix(name, ".go"), strings.HasPrefix(path, filepath.Join("..", "testdata")), name == "README.md", strings.HasSuffix(name, ".md") && path == filepath.Join("..", "docs", name):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.HasSuffix(name, ".txtar") && (strings.Contains(string(data), "filter redact") || strings.Contains(string(data), "--redact")) {
				return nil
			}
			out[path] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files", len(out))
	if len(out) < 20 {
		t.Fatalf("only %d files in the corpus", len(out))
	}
	return out
}

func TestRedactLeavesCleanTextAlone(t *testing.T) {
	r := mustRedactor(t, Options{})
	files := cleanCorpus(t)
	for path, text := range files {
		if got := r.RedactString(text); got != text {
			at := 0
			for at < len(got) && at < len(text) && got[at] == text[at] {
				at++
			}
			t.Errorf("%s changed at byte %d: %q", path, at, got[max(0, at-60):min(len(got), at+60)])
			continue
		}
		// Streamed word by word (as a model writes), the text adds up to itself.
		var ts textStream
		ts.reset(kindNone)
		var released []byte
		for _, w := range strings.SplitAfter(text, " ") {
			released = ts.pushText(r, released, []byte(w), false)
		}
		if released = ts.pushText(r, released, nil, true); string(released) != text {
			t.Errorf("%s streamed differs", path)
		}
	}
	if _, ok := files[filepath.Join("..", "testdata", "redact", "clean", "docker-compose.yml")]; !ok {
		t.Error("configuration files missing from the corpus")
	}
}

// The Go toolchain's own sources (tests and testdata aside, which hold test keys on
// purpose) are a large body of code and documentation without secrets: the rules redact
// one thing there, the password of the example URL in net/url's comments
// ("http://username:p@ssword@google.com"), and nothing else.
func TestRedactGoSourcesFalsePositives(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the Go toolchain's sources")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command to find the Go sources: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no Go sources: %v", err)
	}
	r := mustRedactor(t, Options{})
	size, hits := 0, 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == "test" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		size += len(data)
		if got := r.RedactString(string(data)); got != string(data) {
			n := strings.Count(got, "[REDACTED:")
			hits += n
			at := 0
			for at < len(got) && got[at] == data[at] {
				at++
			}
			t.Logf("%s: %d× %q", path, n, got[max(0, at-40):min(len(got), at+40)])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f MB, %d redactions", float64(size)/1e6, hits)
	if size < 10e6 {
		t.Skipf("only %d bytes of Go sources", size)
	}
	if hits > 1 {
		t.Errorf("%d redactions in the Go sources, want at most 1", hits)
	}
}
