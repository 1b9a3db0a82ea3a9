package agent

import "testing"

// An autonomous run's limits: those given, and the defaults for the others.
func TestLimitsOrDefaults(t *testing.T) {
	got := Limits{MaxTurns: 5, MaxCost: 0.5}.OrDefaults()
	want := DefaultLimits
	want.MaxTurns, want.MaxCost = 5, 0.5
	if got != want {
		t.Errorf("OrDefaults = %+v, want %+v", got, want)
	}
}
