package cli

import (
	"context"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/policy"
	"github.com/basecontext/base-context/internal/runner"
	"github.com/basecontext/base-context/settings"
)

// PolicyFlags bound what the tools may do. RunCmd embeds them.
type PolicyFlags struct {
	Allow          []string `placeholder:"RULE" sep:"none" help:"Allow calls matching RULE: TOOL or TOOL(PATTERN), e.g. 'bash(go test *)', 'write(src/**)' (repeatable)."`
	Deny           []string `placeholder:"RULE" sep:"none" help:"Refuse calls matching RULE; deny wins over allow (repeatable)."`
	PermissionMode string   `enum:"allow,ask,deny" default:"allow" help:"Calls no rule allows: allow (run them), deny (refuse them), ask (ask the client in --mode rpc; deny elsewhere)."`
	ReadOnly       bool     `help:"Refuse write, edit, bash and the MCP tools not annotated readOnlyHint."`
}

// permission builds the policy of the run, nil when nothing is restricted. ask asks the
// client about a call (--permission-mode ask); nil when there is no client. sources say
// where the settings came from: the rules of a settings file name it.
func (f *PolicyFlags) permission(plan *runner.Plan, sources settings.Sources, ask func(context.Context, string) (bool, error)) (agent.Permission, error) {
	p, err := policy.Given{Allow: f.Allow, Deny: f.Deny, AllowFile: sources.File("permissions.allow"), DenyFile: sources.File("permissions.deny"),
		Mode: policy.Mode(f.PermissionMode), ReadOnly: f.ReadOnly, Writes: plan.MCPWrites, Cwd: plan.Cwd, Ask: ask}.Build()
	if err != nil || p == nil {
		return nil, Wrap(ExitUsage, err)
	}
	return p, nil
}
