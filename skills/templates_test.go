package skills

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The upstream's semantics (dist/core/prompt-templates.js of @mariozechner/pi-coding-agent):
// the name ends at the first space; quotes group; $N, then ${@:N[:L]}, then $ARGUMENTS and $@.
func TestExpand(t *testing.T) {
	templates := []Template{
		{Name: "review", Content: "Review $1 for $2."},
		{Name: "all", Content: "[$@] [$ARGUMENTS] [${@:2}] [${@:2:1}] [${@:0}] [$3]"},
		{Name: "bare", Content: "No arguments: $1."},
	}
	for _, c := range []struct{ in, want string }{
		{`/review src/ "error handling"`, "Review src/ for error handling."},
		{`/review 'a b' c d`, "Review a b for c."},
		{"/all x  y\tz", "[x y z] [x y z] [y z] [y] [x y z] [z]"},
		{"/bare", "No arguments: ."},
		{"/unknown stays", "/unknown stays"},
		{"no slash /review", "no slash /review"},
		{"/review\tsrc", "/review\tsrc"}, // a tab does not end the name
		// Each step works on the one before's result, values included, as the upstream's
		// (checked against it with node).
		{"/all $1 $@", "[$1 $@] [$1 $1 $@] [$1 $@] [$1 $@] [$1 $1 $@] []"},
	} {
		if got := Expand(c.in, templates); got != c.want {
			t.Errorf("Expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLoadTemplates(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755)
		os.WriteFile(filepath.Join(root, path), []byte(text), 0o644)
	}
	os.MkdirAll(filepath.Join(root, "repo/.git"), 0o755)
	write("repo/.base-context/prompts/review.md", "---\ndescription: Review code\nargument-hint: PATH\n---\nReview $1.\n")
	write("repo/.base-context/prompts/plain.md", "\n\nA first line that is longer than sixty characters, so it is cut there.\nMore.\n")
	write("repo/.base-context/prompts/notes.txt", "not a template")
	write("home/prompts/review.md", "The home's review.")
	write("home/prompts/mine.md", "Mine.")
	write("home/prompts/compact.md", "Would hide /compact.")
	ts, warnings := LoadTemplates(filepath.Join(root, "repo/sub"), filepath.Join(root, "home"))
	if want := "prompt template " + filepath.Join(root, "home/prompts/compact.md") + " is not used: /compact is base-context's own command"; !slices.Equal(warnings, []string{want}) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
	var got []string
	for _, tp := range ts {
		got = append(got, tp.Name+"|"+tp.Scope+"|"+tp.Description+"|"+tp.ArgumentHint+"|"+tp.Content)
	}
	want := []string{
		"plain|project|A first line that is longer than sixty characters, so it is ...||A first line that is longer than sixty characters, so it is cut there.\nMore.",
		"review|project|Review code|PATH|Review $1.",
		"mine|user|Mine.||Mine.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
