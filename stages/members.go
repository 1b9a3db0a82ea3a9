package stages

import "github.com/basecontext/base-context/codec"

// The members the delta stages read, each list looked up in one pass over its object.
var (
	// updateKeys: the top level of message_start / message_update / message_end.
	updateKeys = []string{"type", "messageId", "assistantMessageEvent", "message"}
	// eventKeys: the nested assistantMessageEvent.
	eventKeys = []string{"type", "contentIndex", "delta", "content", "toolCall", "partial"}
)

// Indexes into the members found for eventKeys.
const (
	evType = iota
	evIndex
	evDelta
	evContent
	evToolCall
	evPartial
)

// nestedEvent is an encoded assistantMessageEvent with its members located.
type nestedEvent struct {
	raw []byte
	m   [6]codec.Member
}

// parseNestedEvent returns a value, not a pointer: it stays on the caller's stack, where a
// pointer would cost an allocation per line.
func parseNestedEvent(raw []byte) (n nestedEvent) {
	n.raw = raw
	codec.FindEach(raw, eventKeys, n.m[:])
	return n
}

func (n *nestedEvent) has(k int) bool            { return n.m[k].Exists() }
func (n *nestedEvent) get(k int) []byte          { return n.m[k].Raw(n.raw) }
func (n *nestedEvent) view(k int) string         { return n.m[k].View(n.raw) } // valid while raw is
func (n *nestedEvent) typ() string               { return eventType(n.raw, n.m[evType]) }
func (n *nestedEvent) member(k int) codec.Member { return n.m[k] }
func (n *nestedEvent) index() int64              { return n.m[evIndex].Int(n.raw) }
