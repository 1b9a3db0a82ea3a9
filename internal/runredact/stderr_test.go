package runredact

import (
	"strings"
	"testing"

	"github.com/basecontext/base-context/filters"
)

// Without redaction, stderr loses only the configured keys that look like keys; with it,
// what the rules find too.
func TestStderrRemovesKeysAndWhatTheRulesFind(t *testing.T) {
	const key = "sk-local-" + "0123456789" // in two pieces, so that the source stays in the redaction's clean corpus
	getenv := func(string) string { return "" }
	if Stderr(nil, []string{"ollama"}, getenv) != nil {
		t.Error("a short placeholder key is redacted without redaction")
	}
	off := Stderr(nil, []string{key, "ollama"}, getenv)
	if got := off("sent " + key + " to ollama"); strings.Contains(got, key) || !strings.Contains(got, "ollama") {
		t.Errorf("without redaction: %q", got)
	}
	on := Stderr(&filters.Redaction{Literals: []string{"corp-" + "vpn"}}, nil, getenv)
	if got := on("dial corp-" + "vpn"); strings.Contains(got, "corp-"+"vpn") {
		t.Errorf("with redaction: %q", got)
	}
}
