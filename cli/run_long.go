package cli

import (
	"fmt"
	"slices"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/internal/exitcode"
)

// checkLimitsGiven refuses limits given that are not positive and finite (`--max-turns 0`).
func checkLimitsGiven(kctx *kong.Context) error {
	for _, p := range kctx.Path {
		if p.Flag != nil && slices.Contains(agent.LimitFlags, p.Flag.Name) {
			if err := agent.CheckLimit(p.Flag.Value.Target.Interface()); err != nil {
				return exitcode.New(exitcode.Usage, fmt.Sprintf("--%s %s", p.Flag.Name, err))
			}
		}
	}
	return nil
}
