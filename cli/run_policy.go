package cli

import (
	"context"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/internal/runner"
	"github.com/basecontext/base-context/settings"
)

// permission builds the policy of the run (policy.PolicyFlags), nil when nothing is
// restricted. ask asks the client about a call; nil when there is no client.
func (c *RunCmd) permission(plan *runner.Plan, sources settings.Sources, ask func(context.Context, string) (bool, error)) (agent.Permission, error) {
	p, err := c.PolicyFlags.Policy(plan.Cwd, [2]string{sources.File("permissions.allow"), sources.File("permissions.deny")}, plan.MCPWrites, ask)
	if err != nil || p == nil {
		return nil, err // a nil *Policy is not a nil Permission
	}
	return p, nil
}
