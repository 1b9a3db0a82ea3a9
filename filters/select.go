package filters

import (
	"fmt"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/similar"
)

// knownTypes are the event types of the spec. Others pass through the filters like any
// event, but a type named to select that none of these is probably a typo.
var knownTypes = []string{
	codec.TypeSession, codec.TypeAgentStart, codec.TypeAgentEnd, codec.TypeTurnStart, codec.TypeTurnEnd,
	codec.TypeMessageStart, codec.TypeMessageUpdate, codec.TypeMessageEnd,
	codec.TypeToolExecutionStart, codec.TypeToolExecutionUpdate, codec.TypeToolExecutionEnd,
	codec.TypeSessionActionUpdate, codec.TypeCompactionStart, codec.TypeCompactionEnd,
	codec.TypeAutoRetryStart, codec.TypeAutoRetryEnd, codec.TypeMCPServerStatus,
	codec.TypeSkillsLoaded, codec.TypeSkillActivated,
}

// UnknownTypeWarning says why t (a type, or a prefix ending in "*") selects no event type of
// the spec, naming the closest one; "" when it does select one.
func UnknownTypeWarning(t string) string {
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

// SplitTypes separates the leading arguments that read as event types from the files.
func SplitTypes(args []string) (types, files []string) {
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

// SplitLists splits comma-separated values, dropping empty ones.
func SplitLists(values []string) []string {
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
