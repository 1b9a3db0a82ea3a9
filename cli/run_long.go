package cli

import (
	"fmt"
	"slices"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/internal/exitcode"
)

// checkGiven refuses the limits given on the command line that are not positive and
// finite: `--max-cost 0`, `--max-cost NaN`, `--max-turns 0`, `--max-time 0s`.
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
