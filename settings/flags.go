package settings

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// FlagValue converts a setting's value v to a flag's target type: a list becomes the comma
// list of a string flag (tools), a bool the on/off of a string flag (compaction), a Duration
// a time.Duration. enum, when not "", is the comma list of the values the flag allows.
func FlagValue(v any, target reflect.Type, enum string) (reflect.Value, error) {
	rv := reflect.ValueOf(v)
	switch x := v.(type) {
	case Duration:
		rv = reflect.ValueOf(time.Duration(x))
	case []string:
		if target.Kind() == reflect.String {
			rv = reflect.ValueOf(strings.Join(x, ","))
		}
	case bool:
		if target.Kind() == reflect.String {
			rv = reflect.ValueOf(map[bool]string{true: "on", false: "off"}[x])
		}
	}
	if !rv.Type().AssignableTo(target) {
		return reflect.Value{}, fmt.Errorf("expected %s", target)
	}
	if enum != "" {
		if allowed := strings.Split(enum, ","); !slices.Contains(allowed, rv.String()) {
			return reflect.Value{}, fmt.Errorf("%q is not one of %s", rv.String(), strings.Join(allowed, ", "))
		}
	}
	return rv, nil
}

// FileValue is a flag's value as the settings file of key takes it, the inverse of
// FlagValue: a list for tools, true or false for compaction.auto, a duration as text. A
// zero limit, which sets no limit, is nil.
func FileValue(key string, flag any) any {
	switch x := flag.(type) {
	case time.Duration:
		if x == 0 && strings.HasPrefix(key, "limits.") {
			return nil
		}
		return x.String()
	case string:
		switch {
		case key == "compaction.auto":
			return x != "off"
		case key == "tools":
			list := []string{}
			for _, n := range strings.Split(x, ",") {
				if n = strings.TrimSpace(n); n != "" {
					list = append(list, n)
				}
			}
			return list
		}
	case []string:
		if x == nil {
			return []string{}
		}
	}
	if strings.HasPrefix(key, "limits.") && reflect.ValueOf(flag).IsZero() {
		return nil
	}
	return flag
}
