package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/basecontext/base-context/codec"
)

// AsUserMessage is how a message the wire protocols have no role for reaches the model: a
// command the user ran, an extension's message, a summary of a branch or of compacted
// history become user messages. Messages the protocols speak (user, assistant, toolResult)
// are returned as they are; nil means the message stays out of the context.
func AsUserMessage(m codec.Message) codec.Message {
	text := func(s string, ts int64) codec.Message {
		return &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: s}}, Timestamp: ts}
	}
	switch m := m.(type) {
	case *codec.BashExecutionMessage:
		if m.ExcludeFromContext != nil && *m.ExcludeFromContext {
			return nil
		}
		return text(bashText(m), m.Timestamp)
	case *codec.CustomMessage:
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			if s == "" {
				return nil
			}
			return text(s, m.Timestamp)
		}
		blocks, err := codec.ParseContents(m.Content)
		if err != nil || len(blocks) == 0 {
			return nil
		}
		return &codec.UserMessage{Blocks: blocks, Timestamp: m.Timestamp}
	case *codec.BranchSummaryMessage:
		return text("This conversation came back from another branch of work, summarised here:\n\n<summary>\n"+
			m.Summary+"\n</summary>", m.Timestamp)
	case *codec.CompactionSummaryMessage:
		return text("The earlier part of this session was condensed into the summary below to fit the context window.\n\n<summary>\n"+
			m.Summary+"\n</summary>", m.Timestamp)
	}
	return m
}

func bashText(m *codec.BashExecutionMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "I ran the command `%s`.\n", m.Command)
	if m.Output != "" {
		fmt.Fprintf(&b, "Output:\n```\n%s\n```", strings.TrimRight(m.Output, "\n"))
	} else {
		b.WriteString("It printed nothing.")
	}
	switch {
	case m.Cancelled:
		b.WriteString("\nThe command was cancelled.")
	case m.ExitCode != nil && *m.ExitCode != 0:
		fmt.Fprintf(&b, "\nCommand exited with code %d", *m.ExitCode)
	}
	if m.Truncated && m.FullOutputPath != "" {
		fmt.Fprintf(&b, "\nThe output was truncated; the full output is in %s", m.FullOutputPath)
	}
	return b.String()
}
