package cli

import (
	"context"
	"fmt"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/policy"
)

// PolicyFlags bound what the tools may do. RunCmd embeds them.
type PolicyFlags struct {
	Allow          []string `placeholder:"RULE" sep:"none" help:"Allow calls matching RULE: TOOL or TOOL(PATTERN), e.g. 'bash(go test *)', 'write(src/**)' (repeatable)."`
	Deny           []string `placeholder:"RULE" sep:"none" help:"Refuse calls matching RULE; deny wins over allow (repeatable)."`
	PermissionMode string   `enum:"allow,ask,deny" default:"allow" help:"Calls no rule allows: allow (run them), deny (refuse them), ask (ask the client in --mode rpc; deny elsewhere)."`
	ReadOnly       bool     `help:"Refuse write, edit and bash."`
}

// permission builds the policy of the run, nil when nothing is restricted. ask asks the
// client about a call (--permission-mode ask); nil when there is no client. sources say
// where the settings came from: the rules of a settings file name it.
func (f *PolicyFlags) permission(cwd string, sources settingSources, ask func(context.Context, string) (bool, error)) (agent.Permission, error) {
	if len(f.Allow) == 0 && len(f.Deny) == 0 && !f.ReadOnly && f.PermissionMode == string(policy.ModeAllow) {
		return nil, nil
	}
	p := &policy.Policy{Mode: policy.Mode(f.PermissionMode), ReadOnly: f.ReadOnly, Cwd: cwd, Ask: ask}
	for _, set := range []struct {
		flag, key string
		rules     []string
		to        *[]policy.Rule
	}{{"--allow", "permissions.allow", f.Allow, &p.Allow}, {"--deny", "permissions.deny", f.Deny, &p.Deny}} {
		for _, s := range set.rules {
			r, err := policy.ParseRule(s)
			if err != nil {
				return nil, Fail(ExitUsage, fmt.Sprintf("%s: %v", set.flag, err))
			}
			r.Source = fmt.Sprintf("%s '%s'", set.flag, r)
			if file := sources[set.key]; file != "" && file != "flag" {
				r.Source = fmt.Sprintf("%s '%s' of %s", set.key, r, file)
			}
			*set.to = append(*set.to, r)
		}
	}
	return p, nil
}
