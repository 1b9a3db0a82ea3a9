package codec

import (
	"strconv"
	"strings"
)

// PathStep is one step of a path into a JSON value: a member, or an array element.
type PathStep struct {
	Key   string // the member's key
	Index int    // the element's index; -1 for a member
}

// KeyStep is the step to the member key; IndexStep the step to element i.
func KeyStep(key string) PathStep { return PathStep{Key: key, Index: -1} }
func IndexStep(i int) PathStep    { return PathStep{Index: i} }

// Path names a place in a JSON value for messages: keys joined by dots, element indexes in
// brackets, as `message.content[0].text`; "" for the value itself.
type Path []PathStep

func (p Path) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.Index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}
