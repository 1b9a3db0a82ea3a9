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

// ToolImagesIntro introduces the images of tool results in the user message that carries
// them, for protocols whose tool results hold text only.
const ToolImagesIntro = "Attached image(s) from the tool result(s) above:"

// eachContextMessage calls fn with each message as the wire protocols see it (AsUserMessage,
// the messages it leaves out skipped), and afterResults before each message that ends a run
// of tool results: where protocols whose tool results hold text only put their images.
func eachContextMessage(msgs []codec.Message, afterResults func(), fn func(codec.Message)) {
	for _, m := range msgs {
		m = AsUserMessage(m)
		if m == nil {
			continue
		}
		if _, ok := m.(*codec.ToolResultMessage); !ok {
			afterResults()
		}
		fn(m)
	}
	afterResults()
}

// toolResultParts splits a tool result into its text (blocks joined by newlines) and its
// images, for protocols whose tool results hold text only.
func toolResultParts(m *codec.ToolResultMessage) (string, []*codec.ImageContent) {
	var text []string
	var images []*codec.ImageContent
	for _, c := range m.Content {
		switch c := c.(type) {
		case *codec.TextContent:
			text = append(text, c.Text)
		case *codec.ImageContent:
			images = append(images, c)
		}
	}
	return strings.Join(text, "\n"), images
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
