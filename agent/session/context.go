package session

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/basecontext/base-context/codec"
)

// TypeCompaction is the entry a compaction leaves: the summary that stands in for the
// messages before the first kept one.
//
//	{"type":"compaction",…,"summary":…,"firstKeptEntryId":…,"tokensBefore":…,"details":{"readFiles":[…],"modifiedFiles":[…]}}
const TypeCompaction = "compaction"

// CompactionFields are the members of a compaction entry, for Store.AppendEntry.
func CompactionFields(summary, firstKeptEntryID string, tokensBefore int64, details json.RawMessage) []byte {
	b := []byte(`{"summary":`)
	b = codec.AppendString(b, summary)
	b = append(b, `,"firstKeptEntryId":`...)
	b = codec.AppendString(b, firstKeptEntryID)
	b = append(b, `,"tokensBefore":`...)
	b = strconv.AppendInt(b, tokensBefore, 10)
	if len(details) > 0 {
		b = append(b, `,"details":`...)
		b = append(b, details...)
	}
	return append(b, '}')
}

// Context is the conversation a resumed session continues from: the messages on the chain,
// with the latest compaction applied (its summary in place of the messages it replaced).
func (l *Loaded) Context() []codec.Message {
	msgs, _ := l.context()
	return msgs
}

// ContextEntryIDs returns the entry id of each message of Context, in order; the
// compaction summary, which is no message entry, has "".
func (l *Loaded) ContextEntryIDs() []string {
	_, ids := l.context()
	return ids
}

// context applies the latest compaction on the chain: its summary first, then the message
// entries from its first kept entry on (those before the compaction entry, then those
// after it). Without a compaction, or when its first kept entry is not on the chain, the
// messages are the chain's messages.
func (l *Loaded) context() ([]codec.Message, []string) {
	var msgs []codec.Message
	var ids []string
	summary, from := l.start()
	if summary != nil {
		msgs, ids = append(msgs, summary), append(ids, "")
	}
	for _, e := range l.Chain[from:] {
		if e.Type == TypeMessage {
			msgs = append(msgs, e.Message)
			ids = append(ids, e.ID)
		}
	}
	return msgs, ids
}

// start is where the context begins: the latest compaction on the chain, as the summary
// that stands in for the messages it replaced, and the chain index of its first kept entry;
// nil and 0 without a compaction, or when its first kept entry is not on the chain.
func (l *Loaded) start() (*codec.CompactionSummaryMessage, int) {
	at := -1 // chain index of the latest compaction
	for i := len(l.Chain) - 1; i >= 0; i-- {
		if l.Chain[i].Type == TypeCompaction {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, 0
	}
	c := gjson.ParseBytes(l.Chain[at].Raw)
	first := c.Get("firstKeptEntryId").Str
	for i := 0; i < at; i++ {
		if l.Chain[i].ID == first {
			ts := int64(0)
			if t, err := time.Parse(time.RFC3339Nano, l.Chain[at].Timestamp); err == nil {
				ts = t.UnixMilli()
			}
			return &codec.CompactionSummaryMessage{Summary: c.Get("summary").Str,
				TokensBefore: c.Get("tokensBefore").Int(), Timestamp: ts}, i
		}
	}
	return nil, 0
}
