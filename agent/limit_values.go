package agent

import (
	"fmt"
	"math"
	"reflect"
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
