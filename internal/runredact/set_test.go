package runredact

import (
	"slices"
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
)

// A run's engines are built once each, the stream's alone told to warn, and count apart:
// the report counts what the stream shows, not what the session file or the tools saw too.
func TestSetEnginesCountApart(t *testing.T) {
	const secret = "corp-vpn-" + "2291"
	var warns []bool
	build := func(warn bool) (*redact.Redactor, error) {
		warns = append(warns, warn)
		return redact.New(redact.Options{NoDefaultRules: true, Literals: []redact.Literal{{ID: "literal", Value: secret}}})
	}
	s, err := NewSet(build, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(warns, []bool{true, false, false}) {
		t.Fatalf("builds warned %v, want the stream's only", warns)
	}
	if got := s.Answer("use " + secret); got != "use [REDACTED:literal]" {
		t.Errorf("answer %q", got)
	}
	s.SessionLines()([]byte(`{"a":"` + secret + `"}`))
	if c := s.Stream.Counts(); len(c) != 1 || c[0].Count != 1 {
		t.Errorf("stream counts %+v, want the answer's one", c)
	}
	if without, _ := NewSet(build, false, false); without.SessionLines() != nil {
		t.Error("the session file is redacted without --redact-session")
	}
	mem := session.NewMemory()
	s.Store(mem).AppendMessage(&codec.UserMessage{Text: secret, Timestamp: 1})
	if raw := string(mem.Entries()[0].Raw); !strings.Contains(raw, "[REDACTED:literal]") {
		t.Errorf("session entry %s", raw)
	}
	var none *Set
	if none.Answer(secret) != secret || none.SessionLines() != nil || none.Stage() != nil || none.ToolRedaction() != nil || none.Store(mem) != mem {
		t.Error("a nil set redacts")
	}
}

// Only keys that look like keys are removed from stderr without redaction.
func TestStderrKeys(t *testing.T) {
	if got := StderrKeys([]string{"ollama", "sk-0123456789"}); !slices.Equal(got, []string{"sk-0123456789"}) {
		t.Errorf("StderrKeys = %q", got)
	}
}
