package agent

import (
	"math"
	"testing"
	"time"
)

func TestCheckLimit(t *testing.T) {
	type duration time.Duration // as a settings file holds one
	for _, v := range []any{1, int64(80000), time.Second, duration(time.Minute), 0.01} {
		if err := CheckLimit(v); err != nil {
			t.Errorf("%v: %v", v, err)
		}
	}
	for _, v := range []any{0, -1, int64(0), time.Duration(0), duration(-time.Second), 0.0, -0.5, math.NaN(), math.Inf(1), "5"} {
		if err := CheckLimit(v); err == nil {
			t.Errorf("%v (%T) accepted", v, v)
		}
	}
}
