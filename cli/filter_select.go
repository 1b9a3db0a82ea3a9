package cli

import (
	"fmt"
	"github.com/basecontext/base-context/internal/similar"
	"os"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// SelectCmd is `filter select TYPE… [FILE…]`. Kong cannot hold two lists of positionals,
// so both arrive in Files and Run tells them apart: the leading arguments that read as
// event types are the types.
type SelectCmd struct {
	FilterIO
	Not      bool     `help:"Drop the events of the TYPEs named instead of keeping them."`
	Role     []string `placeholder:"ROLE" help:"Keep only the message events (message_start/update/end) of these roles: user, assistant, toolResult, … (repeat, or separate with commas)."`
	Tool     []string `placeholder:"NAME" help:"Keep only the tool execution events of these tools (repeat, or separate with commas)."`
	NoHeader bool     `help:"Drop the session header too (it is kept otherwise, whatever the types, unless --not names session)."`
}

// Run runs the filter.
func (c *SelectCmd) Run(streams *IO) error {
	types, files := splitTypes(c.Files)
	for _, t := range types {
		if _, err := os.Stat(t); err == nil {
			fmt.Fprintf(streams.Err, "warning: %q is read as an event type; write ./%s to read the file\n", t, t)
		}
	}
	for _, t := range splitLists(types) {
		if w := unknownTypeWarning(t); w != "" {
			fmt.Fprintf(streams.Err, "warning: %q: %s\n", t, w)
		}
	}
	c.Files = files
	return c.run(streams, stages.NewSelect(stages.SelectOptions{
		Types: splitLists(types), Not: c.Not, Roles: splitLists(c.Role), Tools: splitLists(c.Tool),
		NoHeader: c.NoHeader,
	}))
}

// knownTypes are the event types of the spec. Others pass through the filters like any
// event, but a type named to select that none of these is probably a typo.
var knownTypes = []string{
	codec.TypeSession, codec.TypeAgentStart, codec.TypeAgentEnd, codec.TypeTurnStart, codec.TypeTurnEnd,
	codec.TypeMessageStart, codec.TypeMessageUpdate, codec.TypeMessageEnd,
	codec.TypeToolExecutionStart, codec.TypeToolExecutionUpdate, codec.TypeToolExecutionEnd,
	codec.TypeSessionActionUpdate, codec.TypeCompactionStart, codec.TypeCompactionEnd,
	codec.TypeAutoRetryStart, codec.TypeAutoRetryEnd,
}

// unknownTypeWarning says why t (a type, or a prefix ending in "*") selects no event type of
// the spec, naming the closest one; "" when it does select one.
func unknownTypeWarning(t string) string {
	if prefix, ok := strings.CutSuffix(t, "*"); ok {
		for _, k := range knownTypes {
			if strings.HasPrefix(k, prefix) {
				return ""
			}
		}
		return "matches no known event type"
	}
	best, bestDist := "", 3
	for _, k := range knownTypes {
		if k == t {
			return ""
		}
		if d := similar.Distance(t, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return "unknown event type"
	}
	return fmt.Sprintf("unknown event type (did you mean %s?)", best)
}

// splitTypes separates the leading arguments that read as event types from the files.
func splitTypes(args []string) (types, files []string) {
	for i, a := range args {
		if !isTypeList(a) {
			return args[:i], args[i:]
		}
	}
	return args, nil
}

// isTypeList reports whether a is one or more comma-separated event type names, each of
// letters, digits and "_", optionally ending in "*".
func isTypeList(a string) bool {
	for _, name := range strings.Split(a, ",") {
		name = strings.TrimSuffix(name, "*")
		if name == "" {
			return false
		}
		for _, r := range name {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

// splitLists splits comma-separated values, dropping empty ones.
func splitLists(values []string) []string {
	var out []string
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
