package cmdline

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/exitcode"
)

// ExitStatus is one row of a man page's EXIT STATUS.
type ExitStatus = exitcode.Status

// ManPage is what a man page says besides the commands: kong's model has those.
type ManPage struct {
	Date        string // the date in the title line, e.g. the version's
	Version     string
	Synopsis    []string // lines after the program's name
	Exits       []ExitStatus
	Environment [][2]string // name, meaning
	Files       [][2]string // path, meaning
}

// WriteMan writes the roff man page (man(7) macros, section 1) of app: NAME, SYNOPSIS,
// DESCRIPTION, COMMANDS (every command that is not hidden, its help and flags), EXIT STATUS,
// ENVIRONMENT and FILES.
func WriteMan(w io.Writer, app *kong.Application, page ManPage) error {
	var b strings.Builder
	name := app.Name
	fmt.Fprintf(&b, ".TH %s 1 %q %q \"User Commands\"\n", strings.ToUpper(name), page.Date, name+" "+page.Version)
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", name, roff(firstSentence(app.Help)))
	b.WriteString(".SH SYNOPSIS\n")
	for i, s := range page.Synopsis {
		if i > 0 {
			b.WriteString(".br\n")
		}
		fmt.Fprintf(&b, ".B %s\n%s\n", name, roff(s))
	}
	fmt.Fprintf(&b, ".SH DESCRIPTION\n%s\n", paragraphs(app.Help))
	if flags := app.Flags; len(flags) > 0 {
		writeFlags(&b, flags)
	}
	b.WriteString(".SH COMMANDS\n")
	for _, cmd := range commands(app.Node) {
		fmt.Fprintf(&b, ".SS \"%s %s\"\n%s\n", name, roff(cmd.Path()), roff(cmd.Help))
		if cmd.Detail != "" {
			fmt.Fprintf(&b, ".PP\n%s\n", paragraphs(cmd.Detail))
		}
		writeFlags(&b, cmd.Flags)
	}
	b.WriteString(".SH \"EXIT STATUS\"\n")
	for _, e := range page.Exits {
		codes := make([]string, len(e.Codes))
		for i, c := range e.Codes {
			codes[i] = fmt.Sprint(c)
		}
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", strings.Join(codes, ", "), roff(e.Meaning))
	}
	writeTable(&b, "ENVIRONMENT", page.Environment)
	writeTable(&b, "FILES", page.Files)
	_, err := io.WriteString(w, b.String())
	return err
}

// commands are the commands under node, depth first, those with subcommands too (their
// help says what the group is), hidden ones left out.
func commands(node *kong.Node) []*kong.Node {
	var out []*kong.Node
	for _, c := range node.Children {
		if c.Type != kong.CommandNode || c.Hidden {
			continue
		}
		out = append(out, c)
		out = append(out, commands(c)...)
	}
	return out
}

func writeFlags(b *strings.Builder, flags []*kong.Flag) {
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		spec := `\fB\-\-` + roff(f.Name) + `\fR`
		if f.Short != 0 {
			spec = `\fB\-` + string(f.Short) + `\fR, ` + spec
		}
		if !f.IsBool() && !f.IsCounter() {
			spec += "=" + `\fI` + roff(f.FormatPlaceHolder()) + `\fR`
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", spec, roff(f.Help))
	}
}

func writeTable(b *strings.Builder, title string, rows [][2]string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	for _, r := range rows {
		fmt.Fprintf(b, ".TP\n.B %s\n%s\n", roff(r[0]), roff(r[1]))
	}
}

// paragraphs is text as roff: its blank lines separate paragraphs, and its indented lines
// (examples, tables) are kept as they are written.
func paragraphs(text string) string {
	var b strings.Builder
	verbatim := false
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		indented := strings.HasPrefix(line, " ")
		switch {
		case strings.TrimSpace(line) == "":
			if verbatim {
				b.WriteString(".fi\n")
				verbatim = false
			}
			b.WriteString(".PP\n")
			continue
		case indented && !verbatim:
			b.WriteString(".nf\n")
			verbatim = true
		case !indented && verbatim:
			b.WriteString(".fi\n")
			verbatim = false
		}
		b.WriteString(roff(line) + "\n")
	}
	if verbatim {
		b.WriteString(".fi\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// roff escapes text for roff: backslashes, hyphens, characters beyond ASCII, and a line
// that would start with a control character.
func roff(text string) string {
	text = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(text)
	var b strings.Builder
	for _, r := range text {
		if r > 127 {
			fmt.Fprintf(&b, `\[u%04X]`, r) // not every roff reads UTF-8
		} else {
			b.WriteRune(r)
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i]
	}
	return strings.TrimSuffix(s, ".")
}
