package skills

import (
	"fmt"
	"html"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/basecontext/base-context/codec"
	"github.com/tidwall/gjson"
)

// CatalogMax bounds the catalog in the system prompt: it is sent with every request.
const CatalogMax = 16 << 10

// ReadTool is the tool whose reading of a SKILL.md activates the skill.
const ReadTool = "read"

// Catalog is the section of the system prompt that lists skills (name, description and
// the path to read), at most max bytes; unlisted are the skills left out to stay under it,
// which the section itself counts.
func Catalog(skills []Skill, max int) (text string, unlisted []string) {
	if len(skills) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("\n# Skills\n\nSkills are instructions for particular tasks. When a task matches a skill's description, " +
		"first read the skill's file (its location below) with the read tool, and follow it; the files it names are " +
		"relative to its folder: read them when it says so.\n\n<available_skills>\n")
	const closing = "</available_skills>\n"
	for i, s := range skills {
		entry := fmt.Sprintf("<skill>\n<name>%s</name>\n<description>%s</description>\n<location>%s</location>\n</skill>\n",
			html.EscapeString(s.Name), html.EscapeString(s.Description), html.EscapeString(s.Path))
		note := fmt.Sprintf("(%d more skills are not listed: the list is capped at %d KB.)\n", len(skills)-i, max>>10)
		if b.Len()+len(entry)+len(closing)+len(note) > max {
			for _, rest := range skills[i:] {
				unlisted = append(unlisted, rest.Name)
			}
			b.WriteString(closing + note)
			return b.String(), unlisted
		}
		b.WriteString(entry)
	}
	b.WriteString(closing)
	return b.String(), nil
}

// Watcher sees the model activate skills: a read tool call of a skill's SKILL.md that
// succeeds. It is safe for concurrent use.
type Watcher struct {
	cwd    string
	byPath map[string]*Skill // the SKILL.md paths, as found and resolved

	mu        sync.Mutex
	pending   map[string]*Skill // by tool call id
	activated []string          // names, in the order of their first activation
}

// Watcher watches for the skills of s in a run working in cwd.
func (s *Set) Watcher(cwd string) *Watcher {
	w := &Watcher{cwd: cwd, byPath: map[string]*Skill{}, pending: map[string]*Skill{}}
	if s == nil {
		return w
	}
	for i := range s.Skills {
		sk := &s.Skills[i]
		w.byPath[sk.Path] = sk
		if real, err := filepath.EvalSymlinks(sk.Path); err == nil {
			w.byPath[real] = sk
		}
	}
	return w
}

// skillAt is the skill whose SKILL.md the read tool's arguments name; nil for another file.
func (w *Watcher) skillAt(args []byte) *Skill {
	if w == nil || len(w.byPath) == 0 {
		return nil
	}
	p := gjson.GetBytes(args, "path").Str
	if p == "" {
		return nil
	}
	p = resolve(p, w.cwd)
	if s := w.byPath[p]; s != nil {
		return s
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return w.byPath[real]
	}
	return nil
}

// Observe follows the run's events; it returns the activation a successful read of a
// skill's SKILL.md makes, nil otherwise.
func (w *Watcher) Observe(e codec.Event) *codec.SkillActivated {
	if w == nil {
		return nil
	}
	switch e := e.(type) {
	case *codec.ToolExecutionStart:
		if e.ToolName != ReadTool {
			return nil
		}
		if s := w.skillAt(e.Args); s != nil {
			w.mu.Lock()
			w.pending[e.ToolCallID] = s
			w.mu.Unlock()
		}
	case *codec.ToolExecutionEnd:
		w.mu.Lock()
		defer w.mu.Unlock()
		s := w.pending[e.ToolCallID]
		delete(w.pending, e.ToolCallID)
		if s == nil || e.IsError {
			return nil
		}
		if !slices.Contains(w.activated, s.Name) {
			w.activated = append(w.activated, s.Name)
		}
		return &codec.SkillActivated{Name: s.Name, Path: s.Path}
	}
	return nil
}

// Activated are the names of the skills activated so far, in order.
func (w *Watcher) Activated() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.activated)
}

// Missing are the names of required that were never activated.
func (w *Watcher) Missing(required []string) []string {
	activated := w.Activated()
	var missing []string
	for _, name := range required {
		if !slices.Contains(activated, name) && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	return missing
}

// Preserve is what a compaction adds to its summary so that the skills activated in msgs,
// the messages it summarises, stay in force: the text each successful read of a SKILL.md
// returned.
func (w *Watcher) Preserve(msgs []codec.Message) string {
	calls := map[string]*Skill{}
	var b strings.Builder
	done := map[string]bool{}
	for _, m := range msgs {
		switch m := m.(type) {
		case *codec.AssistantMessage:
			for _, c := range m.Content {
				if tc, ok := c.(*codec.ToolCall); ok && tc.Name == ReadTool {
					if s := w.skillAt(tc.Arguments); s != nil {
						calls[tc.ID] = s
					}
				}
			}
		case *codec.ToolResultMessage:
			s := calls[m.ToolCallID]
			if s == nil || m.IsError || done[s.Name] {
				continue
			}
			done[s.Name] = true
			var text strings.Builder
			for _, c := range m.Content {
				if t, ok := c.(*codec.TextContent); ok {
					text.WriteString(t.Text)
				}
			}
			fmt.Fprintf(&b, "\n<skill name=%q location=%q>\n%s\n</skill>\n", s.Name, s.Path, strings.TrimRight(text.String(), "\n"))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\n# Activated skills\n\nThese skills were activated before this summary; their instructions still apply " +
		"(files they name are relative to their folder).\n" + b.String()
}
