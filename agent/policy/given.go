package policy

import (
	"context"
	"fmt"
)

// Given is a policy as the flags and the settings files give it.
type Given struct {
	Allow, Deny []string // rules, as --allow and --deny write them
	// AllowFile and DenyFile are the settings files the rules came from; "" for the flags.
	AllowFile, DenyFile string
	Mode                Mode
	ReadOnly            bool
	Writes              func(tool string) bool // the tools besides write, edit and bash that ReadOnly refuses
	Cwd                 string
	Ask                 func(context.Context, string) (bool, error)
}

// Build parses the rules into the policy of a run, each naming where it was given; nil when
// nothing is restricted. A rule that does not parse is an error naming its flag.
func (g Given) Build() (*Policy, error) {
	if len(g.Allow) == 0 && len(g.Deny) == 0 && !g.ReadOnly && g.Mode == ModeAllow {
		return nil, nil
	}
	p := &Policy{Mode: g.Mode, ReadOnly: g.ReadOnly, Writes: g.Writes, Cwd: g.Cwd, Ask: g.Ask}
	for _, set := range []struct {
		flag, key, file string
		rules           []string
		to              *[]Rule
	}{{"--allow", "permissions.allow", g.AllowFile, g.Allow, &p.Allow}, {"--deny", "permissions.deny", g.DenyFile, g.Deny, &p.Deny}} {
		for _, s := range set.rules {
			r, err := ParseRule(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", set.flag, err)
			}
			r.Source = fmt.Sprintf("%s '%s'", set.flag, r)
			if set.file != "" {
				r.Source = fmt.Sprintf("%s '%s' of %s", set.key, r, set.file)
			}
			*set.to = append(*set.to, r)
		}
	}
	return p, nil
}
