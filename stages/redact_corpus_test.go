package stages

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cleanCorpus is text that holds no secret: this repository's Go sources, its testdata and
// README, and common configuration files (testdata/redact/clean). The files that hold the
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
		case strings.HasPrefix(name, "redact") && strings.HasSuffix(name, "_test.go"),
			path == filepath.Join("..", "testdata", "redact", "secrets.jsonl"),
			strings.HasSuffix(name, ".gz"), strings.HasSuffix(name, ".test"):
			return nil
		case strings.HasSuffix(name, ".go"), strings.HasPrefix(path, filepath.Join("..", "testdata")), name == "README.md":
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
	r := mustRedactor(t, RedactOptions{})
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
