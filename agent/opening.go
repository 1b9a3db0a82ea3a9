package agent

import (
	"time"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
)

// Opening is the messages that open a run's first turn on a session: what the session's last
// run left undelivered, in the order it was sent, then the prompt. A session command
// (/compact) runs alone: the undelivered messages wait for the next resume.
func Opening(undelivered []session.Undelivered, prompt []codec.Content) []*codec.UserMessage {
	now := time.Now().UnixMilli()
	user := &codec.UserMessage{Blocks: prompt, Timestamp: now}
	if IsSessionCommand(user) {
		return []*codec.UserMessage{user}
	}
	msgs := make([]*codec.UserMessage, 0, len(undelivered)+1)
	for _, u := range undelivered {
		msgs = append(msgs, &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: u.Text}}, Timestamp: now})
	}
	return append(msgs, user)
}
