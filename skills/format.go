// Package skills reads Agent Skills (agentskills.io: a folder holding a SKILL.md whose YAML
// front matter names and describes the skill) and prompt templates (Markdown files used as
// /name ARGS at the start of a prompt), as the upstream and its peers define them. It finds
// them (Discover, LoadTemplates), checks them (Parse), describes them to the model (Catalog),
// sees the model activate one (Watcher), keeps the activated ones' text across a compaction
// (Preserve) and expands templates (Expand).
package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/basecontext/base-context/internal/userfile"
	"go.yaml.in/yaml/v3"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// The limits of the Agent Skills format, and the largest SKILL.md read.
const (
	MaxName        = 64
	MaxDescription = 1024
	MaxFileSize    = 256 << 10
)

// Skill is a skill that loaded.
type Skill struct {
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Path         string            `json:"path"` // the SKILL.md, absolute
	License      string            `json:"license,omitempty"`
	AllowedTools []string          `json:"allowedTools,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	Scope        string            `json:"scope"` // project, user (<home>/skills) or temporary (--skill)
}

// Dir is the skill's folder: the files its SKILL.md names are relative to it.
func (s *Skill) Dir() string { return filepath.Dir(s.Path) }

// Refused is a SKILL.md that breaks the format, with every problem found.
type Refused struct {
	Path     string   `json:"path"`
	Problems []string `json:"problems"`
}

// frontMatter is what the YAML front matter of a SKILL.md may hold; other keys (the peers'
// own, such as model) are accepted and ignored.
type frontMatter struct {
	Name         *string           `yaml:"name"`
	Description  *string           `yaml:"description"`
	License      string            `yaml:"license"`
	AllowedTools toolList          `yaml:"allowed-tools"`
	Metadata     map[string]string `yaml:"metadata"`
}

// toolList is allowed-tools: the format's space-separated string, or a YAML list as some
// peers write it.
type toolList []string

func (t *toolList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*t = strings.FieldsFunc(n.Value, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*t = list
		return nil
	}
	return fmt.Errorf("line %d: allowed-tools is a string or a list of strings", n.Line)
}

var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Parse reads the SKILL.md at path and checks it: a skill, or every problem that keeps it
// from loading.
func Parse(path string) (*Skill, []string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, []string{err.Error()}
	}
	data, err := userfile.Read(abs, MaxFileSize)
	if err != nil {
		return nil, []string{readProblem(err)}
	}
	return parse(abs, string(data))
}

func readProblem(err error) string {
	if _, ok := errors.AsType[*userfile.TooLargeError](err); ok {
		return fmt.Sprintf("larger than %d KB: a skill's file is read into the context whole", MaxFileSize>>10)
	}
	return err.Error()
}

func parse(path, text string) (*Skill, []string) {
	yamlText, _, err := splitFrontMatter(text)
	if err != nil {
		return nil, []string{err.Error()}
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(yamlText), &fm); err != nil {
		return nil, []string{yamlProblem(err)}
	}
	var problems []string
	folder := filepath.Base(filepath.Dir(path))
	switch name := deref(fm.Name); {
	case fm.Name == nil || strings.TrimSpace(name) == "":
		problems = append(problems, "name is missing")
	case utf8.RuneCountInString(name) > MaxName:
		problems = append(problems, fmt.Sprintf("name is longer than %d characters", MaxName))
	case !namePattern.MatchString(name):
		problems = append(problems, fmt.Sprintf("name %q may hold only lowercase letters, digits and single hyphens between them", name))
	case name != folder:
		problems = append(problems, fmt.Sprintf("name %q differs from its folder's name %q", name, folder))
	}
	switch desc := deref(fm.Description); {
	case strings.TrimSpace(desc) == "":
		problems = append(problems, "description is missing")
	case utf8.RuneCountInString(desc) > MaxDescription:
		problems = append(problems, fmt.Sprintf("description is longer than %d characters (%d)", MaxDescription, utf8.RuneCountInString(desc)))
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return &Skill{Name: *fm.Name, Description: strings.TrimSpace(*fm.Description), Path: path,
		License: fm.License, AllowedTools: fm.AllowedTools, Metadata: fm.Metadata}, nil
}

var yamlLine = regexp.MustCompile(`\bline (\d+)`)

// yamlProblem is the YAML library's error, its line numbers made lines of the file (the
// front matter starts on line 2).
func yamlProblem(err error) string {
	msg := yamlLine.ReplaceAllStringFunc(strings.TrimPrefix(err.Error(), "yaml: "), func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
		return fmt.Sprintf("line %d", n+1)
	})
	return "front matter: " + msg
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// splitFrontMatter is the YAML between the first line --- and the next one, and the body
// after it.
func splitFrontMatter(text string) (yamlText, body string, err error) {
	text = strings.ReplaceAll(strings.TrimPrefix(text, "\ufeff"), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", "", errors.New("no YAML front matter: the file must begin with a line ---, then name: and description:, then a line ---")
	}
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		return "", strings.TrimPrefix(rest, "---"), nil
	}
	end := strings.Index(rest, "\n---\n")
	if end < 0 {
		if !strings.HasSuffix(rest, "\n---") {
			return "", "", errors.New("the front matter has no closing line ---")
		}
		end = len(rest) - len("\n---")
		return rest[:end], "", nil
	}
	return rest[:end], rest[end+len("\n---\n"):], nil
}

// ValidatePath checks path, a SKILL.md, a skill's folder or a folder of skills: every
// problem, each prefixed by the file it is in, and the skills that are valid.
func ValidatePath(path string) (valid []Skill, problems []string) {
	found := &finder{seen: map[string]bool{}}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	found.place(path, ScopeTemporary)
	for _, r := range found.refused {
		for _, p := range r.Problems {
			problems = append(problems, r.Path+": "+p)
		}
	}
	problems = append(problems, found.warnings...)
	if len(found.skills) == 0 && len(problems) == 0 {
		problems = append(problems, path+": no "+FileName+" found")
	}
	return found.skills, problems
}

// isNotExist reports a path that is not there (ENOTDIR: a file where a folder would be).
func isNotExist(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
