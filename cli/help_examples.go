package cli

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
)

// The long help (--help) of the commands that have no file of their own for it: what they
// do beyond the one line, and examples. Filters keep theirs next to their code.

// Help is the long help of run, which is also the top of `base-context --help`.
func (c *RunCmd) Help() string {
	return `Examples:

  base-context "List files"                                    # the answer (offline: the built-in script)
  base-context --mode json "List files" | jq -c .type          # the event stream
  base-context --model anthropic/claude-sonnet-4-5 "Fix the failing test"
  git diff | base-context -p "Review this diff"                # stdin joins the prompt
  base-context "Summarise this" @notes.md                      # @FILE inlines a file
  base-context --resume 0198a3b4-7c1e "Now run the linter too" # see 'sessions list'
  base-context -- sessions are a good idea                     # after --, every word is prompt

Exit status:
` + exitStatusText()
}

// exitStatusText is the exit statuses, one a line.
func exitStatusText() string {
	var b strings.Builder
	for _, s := range exitStatuses {
		codes := fmt.Sprint(s.Codes[0])
		for _, c := range s.Codes[1:] {
			codes += "/" + fmt.Sprint(c)
		}
		fmt.Fprintf(&b, "  %-12s %s\n", codes, s.Meaning)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Run prints the help of sessions when no subcommand is named, as filter does.
func (c *SessionsCmd) Run(k *kong.Context) error { return groupHelp(k, c) }

// Help is the long help of `filter`.
func (c *FilterCmd) Help() string {
	return `Examples:

  base-context --mode json "List files" | base-context filter deltas
  base-context filter select message_end run.jsonl
  base-context filter verdict run.jsonl; echo "exit $?"`
}

// Help is the long help of `models`.
func (c *ModelsCmd) Help() string {
	return `Examples:

  base-context models
  base-context models --json | jq -r 'select(.keyAvailable) | "\(.provider)/\(.id)"'`
}

// Help is the long help of `sessions`.
func (c *SessionsCmd) Help() string {
	return `Examples:

  base-context sessions list
  base-context sessions show 0198a3b4-7c1e | jq -r .role`
}

// Help is the long help of `sessions list`.
func (c *SessionsListCmd) Help() string {
	return `The ID column is the shortest prefix (8 characters or more) that tells the session apart
from every other one saved: pass it to --resume, sessions show or sessions rm. TITLE is the
first prompt.

Examples:

  base-context sessions list
  base-context sessions list --all --json | jq -r .id`
}

// Help is the long help of `sessions show`.
func (c *SessionsShowCmd) Help() string {
	return `Examples:

  base-context sessions show 0198a3b4-7c1e | jq -r 'select(.role == "assistant") | .content[0].text'
  base-context sessions show --events 0198a3b4-7c1e | base-context filter text`
}

// Help is the long help of `sessions rm`.
func (c *SessionsRmCmd) Help() string {
	return `Examples:

  base-context sessions rm 0198a3b4-7c1e`
}

// Help is the long help of `list`.
func (c *ListCmd) Help() string {
	return `Examples:

  base-context list
  base-context list --json | jq -r .id`
}

// Help is the long help of `stop`.
func (c *StopCmd) Help() string {
	return `Examples:

  base-context stop 0198a3b4-7c1e`
}

// Help is the long help of `send`.
func (c *SendCmd) Help() string {
	return `Examples:

  base-context send 0198a3b4-7c1e "Also update the tests"
  base-context send --follow-up 0198a3b4-7c1e "Then summarise what changed"`
}

// Help is the long help of `attach`.
func (c *AttachCmd) Help() string {
	return `Examples:

  id=$(base-context --mode json --detach "Refactor the parser" | head -n 1 | jq -r .id)
  base-context attach "$id" | jq -c 'select(.type == "message_end")'`
}

// Help is the long help of `compact`.
func (c *CompactCmd) Help() string {
	return `Examples:

  base-context compact 0198a3b4-7c1e
  base-context compact 0198a3b4-7c1e "Keep the decisions about the parser"`
}

// Help is the long help of `help`.
func (c *HelpCmd) Help() string {
	return `Examples:

  base-context help
  base-context help sessions list`
}

// Help is the long help of `version`.
func (c *VersionCmd) Help() string {
	return `Examples:

  base-context version
  base-context --version`
}

// Help is the long help of `completion`.
func (c *CompletionCmd) Help() string {
	return `Examples:

  source <(base-context completion bash)                 # in ~/.bashrc
  source <(base-context completion zsh)                  # in ~/.zshrc
  base-context completion fish | source                  # in ~/.config/fish/config.fish`
}
