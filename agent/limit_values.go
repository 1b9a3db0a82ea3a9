package agent

import (
	"fmt"
	"math"
	"reflect"

	"github.com/basecontext/base-context/agent/provider"
)

// CheckLimit says what is wrong with a limit's value (a count, a token budget, a duration, a
// cost), nil when it is positive and finite: 0 would not mean "no limit" but the default of
// an autonomous run, or no limit at all, and NaN never compares.
func CheckLimit(v any) error {
	ok := false
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64: // time.Duration too
		ok = rv.Int() > 0
	case reflect.Float32, reflect.Float64:
		ok = rv.Float() > 0 && !math.IsInf(rv.Float(), 0)
	}
	if !ok {
		return fmt.Errorf("must be a positive number, not %v (leave the limit out for none)", v)
	}
	return nil
}

// CheckBudget refuses a cost limit the model's prices cannot reach: without prices every
// call costs $0 and the budget would never stop the run. 0 is no budget.
func CheckBudget(maxCost float64, m provider.Model) error {
	if maxCost == 0 || m.Cost != (provider.Prices{}) {
		return nil
	}
	return fmt.Errorf("model %s/%s has no prices, so its calls cost nothing and the budget would never be reached; "+
		"give its prices in models.json (\"cost\": {\"input\": …, \"output\": …}, dollars per million tokens)", m.Provider, m.ID)
}
