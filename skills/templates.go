package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/basecontext/base-context/agent/instructions"
	"github.com/basecontext/base-context/internal/userfile"
	"go.yaml.in/yaml/v3"
)

// Template is a prompt template: a Markdown file whose name, without .md, is the /name a
// prompt starts with.
type Template struct {
	Name         string
	Description  string // the front matter's, else the start of the first line of the body
	ArgumentHint string // the front matter's argument-hint
	Content      string // the body, after the front matter
	Path         string
	Scope        string // "project" or "user"
}

// builtinCommands are the prompts base-context handles itself (agent: "/compact
// [instructions]"): a template of that name would hide them.
var builtinCommands = []string{"compact"}

// TemplateMax is the largest template file read.
const TemplateMax = 256 << 10

// TemplatePlaces are the folders of templates, nearest first: .base-context/prompts of the
// repository root of cwd (else of cwd), then <home>/prompts.
func TemplatePlaces(cwd, home string) []string {
	repo := instructions.RepoRoot(cwd)
	if repo == "" {
		repo = cwd
	}
	places := []string{filepath.Join(repo, ".base-context", "prompts")}
	if home != "" {
		places = append(places, filepath.Join(home, "prompts"))
	}
	return places
}

// LoadTemplates reads the templates of cwd's repository and of home; on a name clash the
// project's wins. Files that cannot be read are warnings.
func LoadTemplates(cwd, home string) (templates []Template, warnings []string) {
	for i, dir := range TemplatePlaces(cwd, home) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !isNotExist(err) {
				warnings = append(warnings, fmt.Sprintf("cannot read the prompt templates of %s: %v", dir, err))
			}
			continue
		}
		scope := map[bool]string{true: "project", false: "user"}[i == 0]
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			if st, err := os.Stat(path); err != nil || st.IsDir() {
				continue // a folder, or a broken link
			}
			if name := strings.TrimSuffix(e.Name(), ".md"); slices.Contains(builtinCommands, name) {
				warnings = append(warnings, fmt.Sprintf("prompt template %s is not used: /%s is base-context's own command", path, name))
				continue
			}
			t, err := readTemplate(path)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("prompt template %s: %v", path, err))
				continue
			}
			if slices.ContainsFunc(templates, func(o Template) bool { return o.Name == t.Name }) {
				continue // the project's wins
			}
			t.Scope = scope
			templates = append(templates, t)
		}
	}
	return templates, warnings
}

func readTemplate(path string) (Template, error) {
	data, err := userfile.Read(path, TemplateMax)
	if err != nil {
		return Template{}, err
	}
	t := Template{Name: strings.TrimSuffix(filepath.Base(path), ".md"), Path: path}
	yamlText, body, err := splitFrontMatter(string(data))
	if err != nil { // no front matter: the whole file is the template
		body = strings.ReplaceAll(string(data), "\r\n", "\n")
	}
	var fm struct {
		Description  string `yaml:"description"`
		ArgumentHint string `yaml:"argument-hint"`
	}
	if err := yaml.Unmarshal([]byte(yamlText), &fm); err != nil {
		return Template{}, errors.New(yamlProblem(err))
	}
	t.Content, t.ArgumentHint, t.Description = strings.TrimSpace(body), fm.ArgumentHint, fm.Description
	if t.Description == "" {
		for _, line := range strings.Split(t.Content, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			// As the upstream: the first 60 characters (UTF-16 units there, runes here).
			if r := []rune(line); len(r) > 60 {
				line = string(r[:60]) + "..."
			}
			t.Description = line
			break
		}
	}
	return t, nil
}

// Expand is text with a /name at its start replaced by the template called name, its
// arguments substituted; any other text, an unknown /name included, is returned as it is.
// The name ends at the first space, as the upstream's does.
func Expand(text string, templates []Template) string {
	if !strings.HasPrefix(text, "/") {
		return text
	}
	name, args, _ := strings.Cut(text[1:], " ")
	for _, t := range templates {
		if t.Name == name {
			return Substitute(t.Content, SplitArgs(args))
		}
	}
	return text
}

// SplitArgs splits a template's arguments at spaces and tabs; single or double quotes keep
// a quoted part together (without its quotes), as the upstream does.
func SplitArgs(s string) []string {
	var args []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote = r
		case r == ' ' || r == '\t':
			if cur.Len() > 0 {
				args = append(args, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		args = append(args, cur.String())
	}
	return args
}

var (
	positional = regexp.MustCompile(`\$(\d+)`)
	sliced     = regexp.MustCompile(`\$\{@:(\d+)(?::(\d+))?\}`)
)

// Substitute puts args into content, in the upstream's order: $1, $2... (a missing one is
// empty), then ${@:N} and ${@:N:L} (from the Nth, L of them), then $ARGUMENTS and $@ (all,
// joined by spaces); each step works on the result of the one before, as the upstream's.
func Substitute(content string, args []string) string {
	out := positional.ReplaceAllStringFunc(content, func(m string) string {
		n, err := strconv.Atoi(m[1:])
		if err != nil || n < 1 || n > len(args) {
			return ""
		}
		return args[n-1]
	})
	out = sliced.ReplaceAllStringFunc(out, func(m string) string {
		g := sliced.FindStringSubmatch(m)
		start, _ := strconv.Atoi(g[1])
		start = max(start-1, 0)
		if start > len(args) {
			start = len(args)
		}
		end := len(args)
		if g[2] != "" {
			l, _ := strconv.Atoi(g[2])
			end = min(start+l, len(args))
		}
		return strings.Join(args[start:end], " ")
	})
	all := strings.Join(args, " ")
	out = strings.ReplaceAll(out, "$ARGUMENTS", all)
	return strings.ReplaceAll(out, "$@", all)
}
