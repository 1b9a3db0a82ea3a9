package agent

import (
	"context"
	"encoding/json"

	"github.com/basecontext/base-context/codec"
)

// Permission decides whether a tool call may run; its error, when it refuses, is the error
// result the model gets. agent/policy implements it.
type Permission interface {
	Check(ctx context.Context, tool string, args json.RawMessage) error
}

// Hider is a Permission that also hides files from what grep, find and ls show (the files
// it denies reading); where the agent's tools are built, its Hidden becomes
// tools.Options.Hidden.
type Hider interface {
	Hidden(path string) bool
}

// permit asks the configured permission, if any, about a call.
func (a *Agent) permit(ctx context.Context, c *codec.ToolCall) error {
	if a.cfg.Permission == nil {
		return nil
	}
	return a.cfg.Permission.Check(ctx, c.Name, c.Arguments)
}
