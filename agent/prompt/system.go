package prompt

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/basecontext/base-context/agent/instructions"
	"github.com/basecontext/base-context/internal/userfile"
)

// System is what a run's system prompt is made of.
type System struct {
	Cwd   string
	Tools []string // the names of the run's tools, listed in the built-in prompt
	// Replace replaces the built-in prompt and Append is added at the end (TEXT, or @FILE
	// relative to Cwd): --system-prompt and --append-system-prompt.
	Replace, Append string
	// InstructionsHome is the home folder of the project instructions; NoInstructions
	// reads none.
	InstructionsHome string
	NoInstructions   bool
	Warn             func(string) // instructions files that cannot be used
	Now              time.Time
	// Skills is the skills catalog (package skills), after the project instructions.
	Skills string
}

// Build is the built-in prompt (or Replace), the project instructions, then Append. An
// @FILE that cannot be read is an error naming the flag that gave it.
func (s System) Build() (string, error) {
	base := s.builtin()
	if s.Replace != "" {
		text, err := textOrFile(s.Replace, s.Cwd)
		if err != nil {
			return "", fmt.Errorf("--system-prompt: %w", err)
		}
		base = text
	}
	var b strings.Builder
	b.WriteString(base)
	if !s.NoInstructions {
		files, warnings := instructions.Load(s.InstructionsHome, s.Cwd)
		for _, w := range warnings {
			if s.Warn != nil {
				s.Warn(w)
			}
		}
		b.WriteString(instructions.Format(files))
	}
	b.WriteString(s.Skills)
	if s.Append != "" {
		text, err := textOrFile(s.Append, s.Cwd)
		if err != nil {
			return "", fmt.Errorf("--append-system-prompt: %w", err)
		}
		b.WriteString("\n" + text)
	}
	return b.String(), nil
}

func (s System) builtin() string {
	var b strings.Builder
	b.WriteString("You are base-context, a coding agent working in a software project on the user's machine. ")
	b.WriteString("Use the tools to inspect and change files and to run commands; keep answers short and concrete.\n\n")
	if len(s.Tools) > 0 {
		b.WriteString("Tools:\n")
		for _, t := range s.Tools {
			fmt.Fprintf(&b, "- %s\n", t)
		}
	}
	fmt.Fprintf(&b, "\nWorking directory: %s\nDate: %s\n", s.Cwd, s.Now.Format("2006-01-02"))
	return b.String()
}

// textOrFile is TEXT, or the content of FILE for @FILE (relative to cwd), at most
// userfile.SystemPromptMax bytes.
func textOrFile(v, cwd string) (string, error) {
	name, ok := strings.CutPrefix(v, "@")
	if !ok || name == "" {
		return v, nil
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	data, err := userfile.Read(path, userfile.SystemPromptMax)
	if err != nil {
		return "", fmt.Errorf("cannot read @%s: %w", name, err)
	}
	return strings.TrimRight(string(data), "\n"), nil
}
