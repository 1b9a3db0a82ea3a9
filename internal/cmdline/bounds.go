package cmdline

import (
	"fmt"
	"reflect"

	"github.com/alecthomas/kong"
)

// CheckBounds refuses the values of the flags in scope that their bound tag rules out:
// bound:"nonnegative" (a count or duration, where 0 is a choice) or bound:"positive". The
// values are those in effect, from the command line, the defaults or a settings file; a
// flag of another kind than a number or a duration has no bound.
func CheckBounds(kctx *kong.Context) error {
	for _, f := range kctx.Flags() {
		bound := f.Tag.Get("bound")
		if bound == "" {
			continue
		}
		var n float64
		switch v := f.Target; v.Kind() {
		case reflect.Int, reflect.Int64:
			n = float64(v.Int())
		case reflect.Float64:
			n = v.Float()
		default:
			continue
		}
		switch {
		case bound == "positive" && !(n > 0):
			return fmt.Errorf("--%s must be positive", f.Name)
		case bound == "nonnegative" && n < 0:
			return fmt.Errorf("--%s must not be negative", f.Name)
		}
	}
	return nil
}
