package cmdline

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/alecthomas/kong"
)

// LongHelp gives each command its long help, the text --help prints after the one line:
// dir<command path, dashed>.txt of texts ("help/filter-select.txt"); that of defaultCommand ends
// with the exit statuses.
func LongHelp(texts fs.FS, dir, defaultCommand string, exits []ExitStatus) kong.Option {
	return kong.PostBuild(func(k *kong.Kong) error {
		return kong.Visit(k.Model, func(v kong.Visitable, next kong.Next) error {
			if n, ok := v.(*kong.Node); ok && n.Type == kong.CommandNode && n.Detail == "" {
				if b, err := fs.ReadFile(texts, dir+strings.ReplaceAll(n.Path(), " ", "-")+".txt"); err == nil {
					n.Detail = strings.TrimSuffix(string(b), "\n")
					if n.Path() == defaultCommand {
						n.Detail += "\n" + exitStatusText(exits)
					}
				}
			}
			return next(nil)
		})
	})
}

// exitStatusText is the exit statuses, one a line.
func exitStatusText(exits []ExitStatus) string {
	var b strings.Builder
	for _, s := range exits {
		codes := fmt.Sprint(s.Codes[0])
		for _, c := range s.Codes[1:] {
			codes += "/" + fmt.Sprint(c)
		}
		fmt.Fprintf(&b, "  %-12s %s\n", codes, s.Meaning)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
