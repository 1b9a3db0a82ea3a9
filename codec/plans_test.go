package codec

import (
	"os"
	"os/exec"
	"testing"
)

// The plans are made at the first use of any, not when the package is initialised: a
// command that codes no event does not pay for them. Checked in a fresh process (this test
// binary run again for this test alone), where nothing has coded yet.
func TestPlansMadeAtFirstUse(t *testing.T) {
	if os.Getenv("CODEC_PLANS_CHILD") == "1" {
		if plans.header != nil {
			t.Fatal("the plans were made when the package was initialised")
		}
		if got := string((&TurnStart{}).AppendJSON(nil)); got != `{"type":"turn_start"}` {
			t.Fatalf("first encoding: %s", got)
		}
		if plans.header == nil || plans.events[TypeTurnStart] == nil {
			t.Fatal("the plans were not made at the first encoding")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlansMadeAtFirstUse$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CODEC_PLANS_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
