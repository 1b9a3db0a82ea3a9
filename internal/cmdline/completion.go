package cmdline

import (
	"strings"

	"github.com/alecthomas/kong"
)

// CompletionScripts are the completion scripts of bash, zsh and fish. They ask the binary itself for candidates (`base-context __complete WORD…`), so they
// always match the commands and flags of the version installed.
var CompletionScripts = map[string]string{
	"bash": `# base-context completion for bash: source <(base-context completion bash)
_base_context() {
  local IFS=$'\n'
  COMPREPLY=($(base-context __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _base_context base-context
`,
	"zsh": `#compdef base-context
# base-context completion for zsh: source <(base-context completion zsh)
_base_context() {
  local -a candidates
  candidates=("${(@f)$(base-context __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n ${candidates[1]} ]]; then
    compadd -a candidates
  else
    _files
  fi
}
compdef _base_context base-context
`,
	"fish": `# base-context completion for fish: base-context completion fish | source
function __base_context_complete
    set -l tokens (commandline -opc) (commandline -ct)
    base-context __complete $tokens[2..-1] 2>/dev/null
end
complete -c base-context -a '(__base_context_complete)'
`,
}

// Completions are the candidates for the last of words: the values of an enum flag just
// before it, flags when it starts with "-", else the subcommands of the command named so far.
// Before any command is named the run flags apply too, defaultCommand being the one kong runs when none is named.
func Completions(app *kong.Application, words []string, defaultCommand string) []string {
	current := ""
	if len(words) > 0 {
		current, words = words[len(words)-1], words[:len(words)-1]
	}
	node := app.Node
	for _, w := range words {
		for _, child := range node.Children {
			if child.Name == w && !child.Hidden {
				node = child
				break
			}
		}
	}
	flagNodes := []*kong.Node{node}
	if node == app.Node {
		for _, child := range node.Children {
			if child.Name == defaultCommand {
				flagNodes = append(flagNodes, child)
			}
		}
	}
	var flags []*kong.Flag
	for _, n := range flagNodes {
		for _, group := range n.AllFlags(true) {
			flags = append(flags, group...)
		}
	}
	var cands []string
	if len(words) > 0 {
		prev := words[len(words)-1]
		for _, f := range flags {
			if prev == "--"+f.Name && f.Enum != "" {
				return withPrefix(strings.Split(f.Enum, ","), current)
			}
		}
	}
	if strings.HasPrefix(current, "-") {
		seen := map[string]bool{}
		for _, f := range flags {
			if name := "--" + f.Name; !seen[name] {
				seen[name] = true
				cands = append(cands, name)
			}
		}
		return withPrefix(cands, current)
	}
	for _, child := range node.Children {
		if !child.Hidden {
			cands = append(cands, child.Name)
		}
	}
	return withPrefix(cands, current)
}

func withPrefix(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, strings.TrimSpace(prefix)) {
			out = append(out, c)
		}
	}
	return out
}
