// Package redacttest gives the tests of redaction, in the engine and in its stage, the
// corpus of secrets the rules are held to: testdata/redact/secrets.jsonl.
package redacttest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Secret is one entry of the corpus: a text holding a secret that rule Rule must find.
type Secret struct {
	Rule, Secret, Text string
}

// Corpus reads the corpus, failing t when it cannot.
func Corpus(t testing.TB) []Secret {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(here), "..", "..", "testdata", "redact", "secrets.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Secret
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s Secret
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("empty corpus")
	}
	return out
}
