package policy

import (
	"context"

	"github.com/basecontext/base-context/internal/exitcode"
)

// PolicyFlags bound what the tools may do (kong tags; the command line embeds them).
type PolicyFlags struct {
	Allow          []string `placeholder:"RULE" sep:"none" help:"Allow calls matching RULE: TOOL or TOOL(PATTERN), e.g. 'bash(go test *)', 'write(src/**)' (repeatable)."`
	Deny           []string `placeholder:"RULE" sep:"none" help:"Refuse calls matching RULE; deny wins over allow (repeatable)."`
	PermissionMode string   `enum:"allow,ask,deny" default:"allow" help:"Calls no rule allows: allow (run them), deny (refuse them), ask (ask the client in --mode rpc; deny elsewhere)."`
	ReadOnly       bool     `help:"Refuse write, edit, bash and the MCP tools not annotated readOnlyHint."`
}

// Policy builds the run's policy in cwd, nil when nothing is restricted. files name the
// settings files that gave the allow and deny rules ("" for none), for the messages; writes
// names the other tools --read-only refuses; ask asks the client about a call
// (--permission-mode ask), nil when there is none. A bad rule is a usage error.
func (f *PolicyFlags) Policy(cwd string, files [2]string, writes func(string) bool, ask func(context.Context, string) (bool, error)) (*Policy, error) {
	p, err := Given{Allow: f.Allow, Deny: f.Deny, AllowFile: files[0], DenyFile: files[1],
		Mode: Mode(f.PermissionMode), ReadOnly: f.ReadOnly, Writes: writes, Cwd: cwd, Ask: ask}.Build()
	return p, exitcode.Wrap(exitcode.Usage, err)
}
