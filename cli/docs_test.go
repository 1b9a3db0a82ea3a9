package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
)

// The README and the pages of docs/ are the manual: their shell examples run, their links
// lead somewhere, and the README stays a front door.

// docPages are the Markdown files of the manual, relative to this package.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("docs/ holds %d pages", len(pages))
	}
	return append([]string{"../README.md"}, pages...)
}

const readmeMaxLines = 300

func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to a page of docs/", n, readmeMaxLines)
	}
}

// runnableBlock is a shell block of a page marked to be run:
//
//	<!-- runnable: exit N
//	stdout 'regexp'
//	-->
//	```bash
//	commands
//	```
//
// The block runs as a script of bash, as if pasted into a shell (its exit status is its last
// command's; a block that needs pipefail sets it), in the page's work folder, after the
// page's earlier runnable blocks (so one can read what another wrote), and must exit N (0
// when not given); the lines between the mark and --> are testscript assertions on its stdout,
// stderr and files.
type runnableBlock struct {
	line       int // of the page, where the block's code starts
	exit       int
	assertions []string
	code       string
}

var runnableMark = regexp.MustCompile(`^<!-- runnable(?:: exit (\d+))?$`)

func runnableBlocks(t *testing.T, page string) []runnableBlock {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var blocks []runnableBlock
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "<!-- runnable") {
			m := runnableMark.FindStringSubmatch(lines[i])
			if m == nil {
				t.Fatalf("%s:%d: a runnable mark reads `<!-- runnable` or `<!-- runnable: exit N`, then assertions, then `-->`", page, i+1)
			}
			var blk runnableBlock
			if m[1] != "" {
				blk.exit, _ = strconv.Atoi(m[1])
			}
			for i++; i < len(lines) && lines[i] != "-->"; i++ {
				if strings.TrimSpace(lines[i]) != "" {
					blk.assertions = append(blk.assertions, lines[i])
				}
			}
			if i+1 >= len(lines) || (lines[i+1] != "```bash" && lines[i+1] != "```sh") {
				t.Fatalf("%s:%d: a runnable mark must close with --> right before a ```bash block", page, i+1)
			}
			i += 2
			blk.line = i + 1
			var code []string
			for ; i < len(lines) && lines[i] != "```"; i++ {
				code = append(code, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("%s:%d: the block is not closed", page, blk.line)
			}
			blk.code = strings.Join(code, "\n") + "\n"
			blocks = append(blocks, blk)
		}
	}
	return blocks
}

// blockRunner runs a block and fails, naming both statuses, unless it exits as the page says.
const blockRunner = `want=$1; shift
bash "$@"
got=$?
if [ "$got" != "$want" ]; then echo "the block exited $got; the page says $want" >&2; exit 1; fi
`

// TestDocExamples runs every runnable block of README.md and docs/*.md against the real
// binary: each page becomes a testscript in which its blocks run in order.
func TestDocExamples(t *testing.T) {
	testdata, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	total := 0
	for _, page := range docPages(t) {
		blocks := runnableBlocks(t, page)
		if len(blocks) == 0 {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(page), ".md")
		var script strings.Builder
		for n, blk := range blocks {
			cond := ""
			if strings.Contains(blk.code, "jq ") {
				cond = "[exec:jq] "
			}
			file := fmt.Sprintf("block%d.sh", n+1)
			fmt.Fprintf(&script, "\n# %s:%d\n%sexec bash run-block %d %s\n", filepath.Base(page), blk.line, cond, blk.exit, file)
			for _, a := range blk.assertions {
				fmt.Fprintf(&script, "%s%s\n", cond, a)
			}
		}
		script.WriteString("-- run-block --\n" + blockRunner)
		for n, blk := range blocks {
			fmt.Fprintf(&script, "-- block%d.sh --\n%s", n+1, blk.code)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(script.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		total += len(blocks)
	}
	if total < 10 {
		t.Fatalf("only %d runnable blocks in README.md and docs/", total)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("BASE_CONTEXT_HOME", filepath.Join(env.WorkDir, ".base-context"))
			// The pages' examples name files of the repository's testdata as a checkout has them.
			return os.Symlink(testdata, filepath.Join(env.WorkDir, "testdata"))
		},
	})
}

var (
	markdownLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	headingLine  = regexp.MustCompile(`^#{1,6} (.*)$`)
)

// anchors are the ids GitHub gives a page's headings: lower case, punctuation dropped, spaces
// turned into hyphens, and -1, -2, … after a repeated one.
func anchors(text string) map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	inCode := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		m := headingLine.FindStringSubmatch(l)
		if inCode || m == nil {
			continue
		}
		var id strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				id.WriteRune(r)
			case r == ' ':
				id.WriteRune('-')
			}
		}
		s := id.String()
		if n := seen[s]; n > 0 {
			ids[s+"-"+strconv.Itoa(n)] = true
		} else {
			ids[s] = true
		}
		seen[s]++
	}
	return ids
}

// TestDocLinks: every relative link of README.md and docs/*.md names a file that exists and,
// when it has one, an anchor that a heading of that file makes.
func TestDocLinks(t *testing.T) {
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		inCode := false
		for i, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "```") {
				inCode = !inCode
			}
			if inCode {
				continue
			}
			for _, m := range markdownLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
				}
				st, err := os.Stat(path)
				if err != nil {
					t.Errorf("%s:%d: link %s: %v", page, i+1, target, err)
					continue
				}
				if anchor == "" || st.IsDir() {
					continue
				}
				text, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !anchors(string(text))[anchor] {
					t.Errorf("%s:%d: link %s: no heading of %s makes #%s", page, i+1, target, path, anchor)
				}
			}
		}
	}
}

// TestDocAnchorsAsGitHubMakesThem holds anchors to GitHub's ids for headings like ours.
func TestDocAnchorsAsGitHubMakesThem(t *testing.T) {
	ids := anchors("# Design\n## `filter deltas`: full form → delta form\n```\n# not a heading\n```\n## Before and after (`bench-compare`)\n## Reliability\n## Reliability\n")
	for _, want := range []string{"design", "filter-deltas-full-form--delta-form", "before-and-after-bench-compare", "reliability", "reliability-1"} {
		if !ids[want] {
			t.Errorf("no anchor %q in %v", want, ids)
		}
	}
	if ids["not-a-heading"] {
		t.Error("a comment in a code block made an anchor")
	}
}
