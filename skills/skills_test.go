package skills

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
)

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestParseValid(t *testing.T) {
	s, problems := Parse("testdata/valid/pdf-tools/SKILL.md")
	if problems != nil {
		t.Fatal(problems)
	}
	want := Skill{Name: "pdf-tools", Description: "Extracts text and tables from PDF files. Use when the user works with PDFs.",
		Path: abs(t, "testdata/valid/pdf-tools/SKILL.md"), License: "Apache-2.0", AllowedTools: []string{"bash", "read"},
		Metadata: map[string]string{"owner": "docs-team", "version": "1.2"}}
	got, _ := json.Marshal(s)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("got  %s\nwant %s", got, exp)
	}
	s, _ = Parse("testdata/valid/release-notes/SKILL.md")
	if s == nil || !slices.Equal(s.AllowedTools, []string{"bash", "read"}) || s.Description != "Writes release notes from the git log: use for a changelog." {
		t.Errorf("release-notes: %+v", s)
	}
}

func TestParseRefusesWithReasons(t *testing.T) {
	for dir, want := range map[string]string{
		"no-description":   "description is missing",
		"Bad_Name":         `name "Bad_Name" may hold only lowercase letters, digits and single hyphens between them`,
		"wrong-folder":     `name "other-name" differs from its folder's name "wrong-folder"`,
		"no-front-matter":  "no YAML front matter",
		"bad-yaml":         "front matter: line 2: did not find expected ',' or ']'",
		"long-description": "description is longer than 1024 characters (1100)",
	} {
		s, problems := Parse(filepath.Join("testdata/invalid", dir, FileName))
		if s != nil || len(problems) != 1 || !strings.HasPrefix(problems[0], want) {
			t.Errorf("%s: %v %q, want %q", dir, s, problems, want)
		}
	}
	tooLong := strings.Repeat("a", MaxName+1)
	if _, problems := parse("/x/"+tooLong+"/SKILL.md", "---\nname: "+tooLong+"\ndescription: d\n---\n"); len(problems) != 1 || !strings.Contains(problems[0], "longer than 64") {
		t.Errorf("a 65-character name: %q", problems)
	}
	for _, name := range []string{"-lead", "trail-", "two--hyphens"} {
		if _, problems := parse("/x/"+name+"/SKILL.md", "---\nname: "+name+"\ndescription: d\n---\n"); len(problems) != 1 {
			t.Errorf("%s: %q", name, problems)
		}
	}
}

func TestHugeFileIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "huge")
	os.Mkdir(dir, 0o755)
	body := "---\nname: huge\ndescription: d\n---\n" + strings.Repeat("x", MaxFileSize)
	os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o644)
	if _, problems := Parse(filepath.Join(dir, FileName)); len(problems) != 1 || !strings.Contains(problems[0], "larger than 256 KB") {
		t.Errorf("%q", problems)
	}
}

func names(ss []Skill) []string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	return n
}

// --skill paths come first: the nearer release-notes wins, and the warning names both.
func TestClashNearestWins(t *testing.T) {
	set := Discover(Options{Cwd: t.TempDir(), Paths: []string{abs(t, "testdata/clash"), abs(t, "testdata/valid")}})
	if got := names(set.Skills); !slices.Equal(got, []string{"release-notes", "pdf-tools"}) {
		t.Fatalf("skills %v", got)
	}
	if d := set.Skills[0].Description; d != "The nearer release notes." {
		t.Errorf("the farther one won: %q", d)
	}
	want := fmt.Sprintf("skill %q of %s is hidden by the nearer one of %s", "release-notes",
		abs(t, "testdata/valid/release-notes/SKILL.md"), abs(t, "testdata/clash/release-notes/SKILL.md"))
	if !slices.Equal(set.Warnings, []string{want}) {
		t.Errorf("warnings %q, want %q", set.Warnings, want)
	}
}

// Links to folders are followed; a skill reached twice loads once; a loop is refused.
func TestSymlinks(t *testing.T) {
	set := Discover(Options{Cwd: t.TempDir(), Paths: []string{abs(t, "testdata/linked")}})
	if got := names(set.Skills); !slices.Equal(got, []string{"pdf-tools"}) {
		t.Errorf("skills %v", got)
	}
	want := fmt.Sprintf("skill folder %s links back to %s, a folder it is in: the loop is not followed",
		abs(t, "testdata/linked/loop/back"), abs(t, "testdata/linked"))
	if !slices.Equal(set.Warnings, []string{want}) {
		t.Errorf("warnings %q, want %q", set.Warnings, want)
	}
}

func TestInvalidAreRefusedNotLoaded(t *testing.T) {
	set := Discover(Options{Cwd: t.TempDir(), Paths: []string{abs(t, "testdata/invalid")}})
	if len(set.Skills) != 0 || len(set.Refused) != 6 {
		t.Fatalf("skills %v refused %v", names(set.Skills), set.Refused)
	}
	report := set.Report()
	if len(report) != 6 || !strings.HasPrefix(report[0], "skill "+abs(t, "testdata/invalid/Bad_Name/SKILL.md")+" is not loaded: name ") {
		t.Errorf("report %q", report)
	}
	if set := Discover(Options{Cwd: t.TempDir(), Paths: []string{"testdata/missing"}}); len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], "no such file") {
		t.Errorf("a missing --skill path: %q", set.Warnings)
	}
}

// The places of a run in repo/sub: .agents/skills and .base-context/skills from sub up to the
// repository root, then the home's; not above the repository; --no-skills reads none.
func TestPlaces(t *testing.T) {
	root := t.TempDir()
	skill := func(dir, name, desc string) {
		os.MkdirAll(filepath.Join(root, dir, name), 0o755)
		os.WriteFile(filepath.Join(root, dir, name, FileName), []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(root, "repo/.git"), 0o755)
	skill(".agents/skills", "above", "above the repository")
	skill("repo/.agents/skills", "shared", "of the root")
	skill("repo/.agents/skills", "root-only", "r")
	skill("repo/sub/.base-context/skills", "shared", "of sub")
	skill("home/skills", "shared", "of the home")
	skill("home/skills", "mine", "m")
	cwd := filepath.Join(root, "repo/sub")
	set := Discover(Options{Cwd: cwd, Home: filepath.Join(root, "home")})
	if got := names(set.Skills); !slices.Equal(got, []string{"shared", "root-only", "mine"}) {
		t.Fatalf("skills %v", got)
	}
	if set.Skills[0].Description != "of sub" || set.Skills[0].Scope != ScopeProject || set.Skills[2].Scope != ScopeUser {
		t.Errorf("%+v", set.Skills)
	}
	if len(set.Warnings) != 2 {
		t.Errorf("warnings %q", set.Warnings)
	}
	if set := Discover(Options{Cwd: cwd, Home: filepath.Join(root, "home"), None: true}); len(set.Skills) != 0 {
		t.Errorf("--no-skills loaded %v", names(set.Skills))
	}
	set = Discover(Options{Cwd: cwd, Home: filepath.Join(root, "home"), Disabled: []string{"mine"}, Enabled: []string{"mine", "shared", "ghost"}})
	if got := names(set.Skills); !slices.Equal(got, []string{"shared"}) || !slices.Equal(set.Disabled, []string{"root-only", "mine"}) {
		t.Errorf("enabled/disabled: %v, disabled %v", got, set.Disabled)
	}
	if !slices.Contains(set.Warnings, `skill "ghost" is enabled, but no skill has that name`) {
		t.Errorf("warnings %q", set.Warnings)
	}
}

func TestCatalogIsCapped(t *testing.T) {
	var many []Skill
	for i := range 40 {
		many = append(many, Skill{Name: fmt.Sprintf("skill-%02d", i), Description: strings.Repeat("d", 900), Path: fmt.Sprintf("/s/skill-%02d/SKILL.md", i)})
	}
	text, unlisted := Catalog(many, CatalogMax)
	if len(text) > CatalogMax {
		t.Errorf("the catalog has %d bytes", len(text))
	}
	listed := strings.Count(text, "<skill>")
	if listed == 0 || listed+len(unlisted) != 40 || unlisted[0] != fmt.Sprintf("skill-%02d", listed) {
		t.Errorf("%d listed, unlisted %v", listed, unlisted)
	}
	if !strings.HasSuffix(text, fmt.Sprintf("</available_skills>\n(%d more skills are not listed: the list is capped at 16 KB.)\n", len(unlisted))) {
		t.Errorf("the catalog does not say it is cut: %q", text[len(text)-200:])
	}
	text, unlisted = Catalog(many[:2], CatalogMax)
	if unlisted != nil || !strings.Contains(text, "<name>skill-01</name>\n<description>"+strings.Repeat("d", 900)+"</description>\n<location>/s/skill-01/SKILL.md</location>") {
		t.Errorf("%q", text)
	}
	if text, _ := Catalog([]Skill{{Name: "x", Description: "a <b> & c", Path: "/p"}}, CatalogMax); !strings.Contains(text, "a &lt;b&gt; &amp; c") {
		t.Errorf("not escaped: %q", text)
	}
}

func readCall(id, path string) (*codec.ToolExecutionStart, *codec.ToolExecutionEnd) {
	args, _ := json.Marshal(map[string]string{"path": path})
	return &codec.ToolExecutionStart{ToolCallID: id, ToolName: ReadTool, Args: args},
		&codec.ToolExecutionEnd{ToolCallID: id, ToolName: ReadTool}
}

func TestWatcherSeesActivations(t *testing.T) {
	cwd := abs(t, "testdata")
	set := Discover(Options{Cwd: cwd, Paths: []string{"valid"}})
	w := set.Watcher(cwd)
	// A relative path, a failed read, another file of the skill, a link to the same file.
	start, end := readCall("1", "valid/pdf-tools/reference.md")
	if w.Observe(start) != nil || w.Observe(end) != nil {
		t.Error("reading a file beside SKILL.md activated the skill")
	}
	start, end = readCall("2", "valid/release-notes/SKILL.md")
	end.IsError = true
	w.Observe(start)
	if w.Observe(end) != nil {
		t.Error("a failed read activated the skill")
	}
	start, end = readCall("3", "linked/pdf-tools/SKILL.md")
	w.Observe(start)
	got := w.Observe(end)
	if got == nil || got.Name != "pdf-tools" || got.Path != filepath.Join(cwd, "valid/pdf-tools/SKILL.md") {
		t.Fatalf("activation %+v", got)
	}
	if !slices.Equal(w.Activated(), []string{"pdf-tools"}) || !slices.Equal(w.Missing([]string{"pdf-tools", "release-notes"}), []string{"release-notes"}) {
		t.Errorf("activated %v", w.Activated())
	}
	run := &Run{Set: set, Watcher: w}
	if err := run.SetRequired([]string{"nope"}); err == nil {
		t.Error("an unknown required skill is accepted")
	}
	run.SetRequired([]string{"release-notes"})
	if err := run.Require(); err == nil || err.(*RequiredError).ExitCode() != 4 ||
		err.Error() != "required skill never activated: release-notes (the model did not read its SKILL.md)" {
		t.Errorf("require: %v", err)
	}
	run.SetRequired([]string{"pdf-tools"})
	if err := run.Require(); err != nil {
		t.Error(err)
	}
}

// A compaction's summary keeps the text of the skills read in what it summarises.
func TestPreserve(t *testing.T) {
	cwd := abs(t, "testdata")
	w := Discover(Options{Cwd: cwd, Paths: []string{"valid"}}).Watcher(cwd)
	args, _ := json.Marshal(map[string]string{"path": "valid/release-notes/SKILL.md"})
	msgs := []codec.Message{
		&codec.AssistantMessage{Content: []codec.Content{&codec.ToolCall{ID: "c1", Name: ReadTool, Arguments: args}}},
		&codec.ToolResultMessage{ToolCallID: "c1", ToolName: ReadTool, Content: []codec.Content{&codec.TextContent{Text: "RELEASE-NOTES-TEXT\n"}}},
	}
	got := w.Preserve(msgs)
	want := fmt.Sprintf("<skill name=\"release-notes\" location=%q>\nRELEASE-NOTES-TEXT\n</skill>\n", filepath.Join(cwd, "valid/release-notes/SKILL.md"))
	if !strings.Contains(got, "# Activated skills") || !strings.HasSuffix(got, want) {
		t.Errorf("%q", got)
	}
	if w.Preserve(msgs[:1]) != "" {
		t.Error("a call without its result preserved something")
	}
}

func TestValidatePath(t *testing.T) {
	valid, problems := ValidatePath("testdata/valid")
	if len(valid) != 2 || problems != nil {
		t.Errorf("%v %q", names(valid), problems)
	}
	valid, problems = ValidatePath("testdata/invalid/Bad_Name")
	if len(valid) != 0 || len(problems) != 1 || !strings.HasPrefix(problems[0], abs(t, "testdata/invalid/Bad_Name/SKILL.md")+": name ") {
		t.Errorf("%q", problems)
	}
	if _, problems = ValidatePath(t.TempDir()); len(problems) != 1 || !strings.HasSuffix(problems[0], "no SKILL.md found") {
		t.Errorf("%q", problems)
	}
}

// Past the catalog's cap the run says which skills the model does not see: a warning and
// skills_loaded's unlisted.
func TestPrepareSaysWhatIsUnlisted(t *testing.T) {
	dir := t.TempDir()
	for i := range 30 {
		name := fmt.Sprintf("skill-%02d", i)
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, FileName), []byte("---\nname: "+name+"\ndescription: "+strings.Repeat("d", 1000)+"\n---\n"), 0o644)
	}
	var warnings []string
	r := Prepare(Options{Cwd: t.TempDir(), Paths: []string{dir}}, func(w string) { warnings = append(warnings, w) })
	e := r.Event()
	if len(e.Skills) != 30 || len(e.Unlisted) == 0 || e.Unlisted[len(e.Unlisted)-1] != "skill-29" {
		t.Fatalf("%d skills, unlisted %v", len(e.Skills), e.Unlisted)
	}
	want := fmt.Sprintf("%d skills are not listed to the model: the list is capped at 16 KB (%s)", len(e.Unlisted), strings.Join(e.Unlisted, ", "))
	if !slices.Equal(warnings, []string{want}) {
		t.Errorf("warnings %q", warnings)
	}
	if got := strings.Count(r.Catalog, "<skill>"); got != 30-len(e.Unlisted) {
		t.Errorf("the catalog lists %d", got)
	}
}
