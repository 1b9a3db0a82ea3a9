package policy

import (
	"context"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// computedWords are command words bash computes at run time, as %s stands for a name.
var computedWords = []string{`$%s`, `"$%s"`, `${%s}`, `$(echo %s)`, "`echo %s`", `%s${IFS}`, `${IFS}%s`, `$(<%s)`, `"${%s:-rm}"`, `$((%s))`, `<(%s)`}

// FuzzCommandWords checks the resolution of command words on generated shell lines: it never
// panics; a line whose command word is computed at run time is refused under a deny rule;
// a literal word, however quoted, resolves to itself, and a deny rule naming it refuses it.
func FuzzCommandWords(f *testing.F) {
	for _, seed := range []struct {
		word, rest string
		kind       uint8
	}{{"rm", "-rf build", 0}, {"/bin/rm", "-rf 'a b'", 3}, {"r\\m", "; ls", 4}, {"git", "log --format=$K > f", 7}, {"x y", "| sh -c 'rm -rf .'", 9}} {
		f.Add(seed.word, seed.rest, seed.kind)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, word, rest string, kind uint8) {
		if !utf8.ValidString(word) || !utf8.ValidString(rest) || strings.ContainsRune(word+rest, 0) {
			return
		}
		_, _ = analyze(word + " " + rest) // must not panic, whatever it is given

		deny := &Policy{Mode: ModeAllow, Cwd: "/nonexistent/proj", Deny: []Rule{{Tool: "bash", Pattern: "rm *", Source: "--deny 'bash(rm *)'"}}}
		name := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' {
				return r
			}
			return -1
		}, word)
		if name == "" {
			name = "x"
		}
		computed := strings.ReplaceAll(computedWords[int(kind)%len(computedWords)], "%s", name)
		if err := deny.Check(ctx, "bash", bash(computed+" "+rest)); err == nil {
			t.Fatalf("%q ran under --deny 'bash(rm *)'", computed+" "+rest)
		}

		if word == "" || strings.ContainsAny(word, "\n") {
			return
		}
		quoted, err := syntax.Quote(word, syntax.LangBash)
		if err != nil {
			return
		}
		base := path.Base(word)
		if isWrapper(base) || shells[base] || codeRunners[base] != "" || nameBuiltins[base] || base == "find" || base == "hash" || base == "mapfile" || base == "readarray" {
			return
		}
		got, err := Commands(quoted + " arg")
		if err != nil || len(got) != 1 || got[0] != word+" arg" {
			t.Fatalf("Commands(%q) = %q, %v; want %q", quoted+" arg", got, err, word+" arg")
		}
		pattern := strings.Join(strings.Fields(base), " ")
		if pattern == "" || strings.ContainsAny(pattern, "*?") {
			return
		}
		named := &Policy{Mode: ModeAllow, Cwd: deny.Cwd, Deny: []Rule{{Tool: "bash", Pattern: pattern + " *", Source: "D"}}}
		if base == pattern && named.Check(ctx, "bash", bash(quoted+" arg")) == nil {
			t.Fatalf("%q ran under --deny 'bash(%s *)'", quoted+" arg", pattern)
		}
	})
}
