package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/codec"
)

// CompactionSettings say when the context is compacted: older messages summarised by the
// model and replaced by the summary, recent ones kept whole.
type CompactionSettings struct {
	// Auto compacts when the context comes within Reserve tokens of the model's window
	// (reason threshold) and when the provider reports an overflow (reason overflow, then
	// the failed request runs again once). Manual compaction works either way.
	Auto bool
	// Reserve is the room kept free below the window for the next response; 0 picks
	// DefaultCompactionReserve, but at most a quarter of the window, so that a small local
	// model is not compacted at every turn.
	Reserve int64
	// Keep is about how many tokens of recent messages stay whole.
	Keep int64
}

// Defaults of the CLI's flags.
const (
	DefaultCompactionReserve = 16384
	DefaultCompactionKeep    = 20000
)

// Why a compaction ran (compaction_start.reason).
const (
	ReasonManual    = "manual"
	ReasonThreshold = "threshold"
	ReasonOverflow  = "overflow"
)

// compactCommandName is the prompt that asks for a compaction: "/compact [instructions]".
const compactCommandName = "/compact"

// Limits of the conversation text sent to the model for summarising: a tool result or
// argument list is cut to this many bytes there, so one huge output cannot make the summary
// request overflow in turn.
const summaryFieldBytes = 2000

const summarySystemPrompt = "You condense the history of a coding agent's session into a summary that the " +
	"agent continues from. The summary replaces the messages it covers, so anything it leaves out is lost. " +
	"Write plain, factual notes; no greetings, no commentary on the task of summarising."

const summaryRequest = `The part of the session to summarise is below, between <conversation> tags. The most recent messages are not in it: they stay as they are and follow your summary.

Write the summary under these headings:
## Goal: what the user asked for, with constraints and preferences.
## Done: what has been done so far: files read, created or changed, commands run and what they showed.
## Decisions: choices made and why.
## Open: errors not yet fixed, questions not yet answered.
## Next: the next steps, in order.

Keep file paths, function names, commands and error messages exact.`

// IsSessionCommand reports whether a prompt is a session command (/compact) rather than a
// message for the model.
func IsSessionCommand(m *codec.UserMessage) bool {
	_, ok := compactCommand(m)
	return ok
}

// compactCommand reports whether a prompt is "/compact [instructions]", and its
// instructions.
func compactCommand(m *codec.UserMessage) (instructions string, ok bool) {
	if m == nil {
		return "", false
	}
	text := m.Text
	if m.Blocks != nil {
		text = ""
		for _, c := range m.Blocks {
			t, isText := c.(*codec.TextContent)
			if !isText {
				return "", false
			}
			text += t.Text
		}
	}
	text = strings.TrimSpace(text)
	rest, found := strings.CutPrefix(text, compactCommandName)
	if !found || (rest != "" && !strings.ContainsAny(rest[:1], " \t\r\n")) {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// estimateTokens guesses the tokens of a message from its size: about four bytes a token,
// a fixed amount per image.
func estimateTokens(m codec.Message) int64 {
	const imageTokens = 1200
	var n, images int64
	blocks := func(cs []codec.Content) {
		for _, c := range cs {
			switch c := c.(type) {
			case *codec.TextContent:
				n += int64(len(c.Text))
			case *codec.ThinkingContent:
				n += int64(len(c.Thinking))
			case *codec.ToolCall:
				n += int64(len(c.Name) + len(c.Arguments))
			case *codec.ImageContent:
				images++
			}
		}
	}
	switch m := m.(type) {
	case *codec.UserMessage:
		n += int64(len(m.Text))
		blocks(m.Blocks)
	case *codec.AssistantMessage:
		blocks(m.Content)
	case *codec.ToolResultMessage:
		blocks(m.Content)
	case *codec.CompactionSummaryMessage:
		n += int64(len(m.Summary))
	default:
		n += int64(len(m.AppendJSON(nil)))
	}
	return (n+3)/4 + images*imageTokens
}

// contextTokens estimates the tokens of the next request's messages, with extra ones about
// to be added: the usage the provider reported for the last response (which counts its
// whole context), plus estimates of what came after it.
func (a *Agent) contextTokens(extra ...*codec.UserMessage) int64 {
	var total int64
	from := 0 // without a usable usage, every message is estimated
	for i := len(a.history) - 1; i >= a.usageFrom; i-- {
		if am, ok := a.history[i].(*codec.AssistantMessage); ok && am.Usage.TotalTokens > 0 {
			total, from = am.Usage.TotalTokens, i+1
			break
		}
	}
	for _, m := range a.history[from:] {
		total += estimateTokens(m)
	}
	for _, m := range extra {
		total += estimateTokens(m)
	}
	return total
}

// usageStart is where the usage of a resumed history's assistant messages measures the
// current context: after a compaction, only messages newer than its summary count (the
// ones it kept carry the usage of the longer context before it).
func usageStart(history []codec.Message) int {
	for i := len(history) - 1; i >= 0; i-- {
		summary, ok := history[i].(*codec.CompactionSummaryMessage)
		if !ok {
			continue
		}
		for j := i + 1; j < len(history); j++ {
			if am, ok := history[j].(*codec.AssistantMessage); ok && am.Timestamp > summary.Timestamp {
				return j
			}
		}
		return len(history)
	}
	return 0
}

// compactIfNeeded compacts when the context (with the messages about to be added) comes
// within the reserve of the model's window. With nothing that can be summarised it does
// nothing: the request goes out, and an overflow is handled when the provider reports it.
func (a *Agent) compactIfNeeded(ctx context.Context, extra ...*codec.UserMessage) error {
	c, window := a.cfg.Compaction, a.cfg.Model.ContextWindow
	reserve := c.Reserve
	if reserve <= 0 {
		reserve = min(DefaultCompactionReserve, window/4)
	}
	if !c.Auto || window <= 0 || a.contextTokens(extra...) <= window-reserve {
		return nil
	}
	if !a.canCompact() {
		return nil
	}
	return a.compact(ctx, ReasonThreshold, "", false)
}

// canCompact reports whether the context has older messages a compaction could summarise.
func (a *Agent) canCompact() bool {
	_, err := a.cutPoint()
	return err == nil
}

// Compact summarises the older part of the context now (reason manual), following the
// optional instructions. It returns why it failed; the stream has reported it already.
func (a *Agent) Compact(ctx context.Context, instructions string) error {
	return a.compact(ctx, ReasonManual, instructions, false)
}

// compact runs one compaction between compaction_start and compaction_end: it summarises
// the messages before the cut, saves a compaction entry and continues from the summary.
func (a *Agent) compact(ctx context.Context, reason, instructions string, willRetry bool) error {
	a.emit(&codec.CompactionStart{Reason: reason})
	end := &codec.CompactionEnd{Reason: reason}
	fail := func(err error) error {
		end.Aborted = ctx.Err() != nil
		end.ErrorMessage = err.Error()
		a.emit(end)
		return err
	}
	cut, err := a.cutPoint()
	if err != nil {
		return fail(err)
	}
	tokensBefore := a.contextTokens()
	summarised := a.history[:cut]
	summary, err := a.summarise(ctx, summarised, instructions)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		if limit := timeLimitHit(ctx); limit != nil {
			err = fmt.Errorf("compaction aborted: %w", limit)
		} else if ctx.Err() != nil {
			err = errors.New("compaction aborted")
		}
		return fail(err)
	}
	read, modified := touchedFiles(summarised)
	if len(read)+len(modified) > 0 {
		summary += filesNote(read, modified)
	}
	if a.cfg.Preserve != nil {
		summary += a.cfg.Preserve(summarised)
	}
	details, _ := json.Marshal(struct {
		ReadFiles     []string `json:"readFiles"`
		ModifiedFiles []string `json:"modifiedFiles"`
	}{read, modified})
	result := &codec.CompactionResult{Summary: summary, FirstKeptEntryID: a.ids[cut], TokensBefore: tokensBefore, Details: details}
	if err := a.saveCompaction(result); err != nil {
		return fail(err)
	}

	kept := slices.Clone(a.history[cut:])
	keptIDs := slices.Clone(a.ids[cut:])
	msg := &codec.CompactionSummaryMessage{Summary: summary, TokensBefore: tokensBefore, Timestamp: a.nowMs()}
	a.history = append([]codec.Message{msg}, kept...)
	a.ids = append([]string{""}, keptIDs...)
	a.usageFrom = len(a.history) // the kept messages' usage counted the longer context

	end.Result = result
	end.WillRetry = willRetry
	a.emit(end)
	return nil
}

// saveCompaction appends the compaction entry to the session.
func (a *Agent) saveCompaction(r *codec.CompactionResult) error {
	fields := session.CompactionFields(r.Summary, r.FirstKeptEntryID, r.TokensBefore, r.Details)
	return a.saveEntry(session.TypeCompaction, fields)
}

// cutPoint is the index of the first message kept: the latest place where about Keep
// tokens of recent messages follow, or, when the whole context is smaller than that, the
// latest place at all, so a compaction always summarises something. A cut never falls
// before a tool result (its call and result stay together) nor at the first message, and
// the first kept message must have a session entry id to be named by.
func (a *Agent) cutPoint() (int, error) {
	keep := a.cfg.Compaction.Keep
	var kept int64
	latest := -1
	for i := len(a.history) - 1; i >= 1; i-- {
		kept += estimateTokens(a.history[i])
		if _, isResult := a.history[i].(*codec.ToolResultMessage); isResult {
			continue
		}
		if a.cfg.Store != nil && a.ids[i] == "" {
			continue
		}
		if latest < 0 {
			latest = i
		}
		if kept >= keep {
			return i, nil
		}
	}
	if latest < 0 {
		return 0, errors.New("nothing to compact: the context has no older messages to summarise")
	}
	return latest, nil
}

// summarise asks the model for a summary of msgs.
func (a *Agent) summarise(ctx context.Context, msgs []codec.Message, instructions string) (string, error) {
	var prompt strings.Builder
	prompt.WriteString(summaryRequest)
	if instructions != "" {
		prompt.WriteString("\n\nThe user's instructions for this summary: ")
		prompt.WriteString(instructions)
	}
	prompt.WriteString("\n\n<conversation>\n")
	writeConversation(&prompt, msgs)
	prompt.WriteString("</conversation>")

	req := provider.Request{Model: a.cfg.Model, SystemPrompt: summarySystemPrompt,
		Messages: []codec.Message{&codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: prompt.String()}},
			Timestamp: a.nowMs()}}}
	var text strings.Builder
	textBlocks := map[int]bool{}
	err := a.cfg.Provider.Stream(ctx, req, func(e provider.Event) {
		switch e.Kind {
		case provider.BlockStart:
			textBlocks[e.Block] = e.BlockKind == "text"
		case provider.BlockDelta:
			if textBlocks[e.Block] {
				text.WriteString(e.Delta)
			}
		case provider.Done:
			if e.HasUsage {
				a.use.tokens += e.Usage.TotalTokens
				a.use.cost += e.Usage.Cost.Total
			}
		}
	})
	if err != nil {
		return "", fmt.Errorf("the summary request failed: %w", err)
	}
	summary := strings.TrimSpace(text.String())
	if summary == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return summary, nil
}

// writeConversation writes messages as the plain text the summary request quotes.
func writeConversation(b *strings.Builder, msgs []codec.Message) {
	for _, m := range msgs {
		switch m := m.(type) {
		case *codec.CompactionSummaryMessage:
			b.WriteString("[summary of the session before this point]\n")
			b.WriteString(m.Summary)
		case *codec.UserMessage:
			b.WriteString("[user]\n")
			b.WriteString(m.Text)
			writeBlocks(b, m.Blocks)
		case *codec.AssistantMessage:
			b.WriteString("[assistant]\n")
			writeBlocks(b, m.Content)
		case *codec.ToolResultMessage:
			fmt.Fprintf(b, "[%s result", m.ToolName)
			if m.IsError {
				b.WriteString(", failed")
			}
			b.WriteString("]\n")
			var out strings.Builder
			writeBlocks(&out, m.Content)
			b.WriteString(cut(out.String(), summaryFieldBytes))
		default:
			fmt.Fprintf(b, "[%s]\n%s", m.Role(), cut(string(m.AppendJSON(nil)), summaryFieldBytes))
		}
		b.WriteString("\n\n")
	}
}

func writeBlocks(b *strings.Builder, cs []codec.Content) {
	for _, c := range cs {
		switch c := c.(type) {
		case *codec.TextContent:
			b.WriteString(c.Text)
			b.WriteString("\n")
		case *codec.ToolCall:
			fmt.Fprintf(b, "(calls %s %s)\n", c.Name, cut(string(c.Arguments), summaryFieldBytes))
		case *codec.ImageContent:
			b.WriteString("(an image)\n")
		}
	}
}

// cut shortens s to at most n bytes at a rune boundary, saying how much was left out.
func cut(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:i], len(s)-i)
}

// touchedFiles lists the files the summarised messages read and changed, from the calls of
// the read, write and edit tools; a file both read and changed counts as changed. A
// summary at the start carries its own lists, merged in from its details.
func touchedFiles(msgs []codec.Message) (read, modified []string) {
	readSet, modSet := map[string]bool{}, map[string]bool{}
	for _, m := range msgs {
		switch m := m.(type) {
		case *codec.CompactionSummaryMessage:
			r, w := filesOfNote(m.Summary)
			for _, p := range r {
				readSet[p] = true
			}
			for _, p := range w {
				modSet[p] = true
			}
		case *codec.AssistantMessage:
			for _, c := range m.Content {
				call, ok := c.(*codec.ToolCall)
				if !ok {
					continue
				}
				var args struct {
					Path string `json:"path"`
				}
				if json.Unmarshal(call.Arguments, &args) != nil || args.Path == "" {
					continue
				}
				switch call.Name {
				case "read":
					readSet[args.Path] = true
				case "write", "edit":
					modSet[args.Path] = true
				}
			}
		}
	}
	for p := range modSet {
		delete(readSet, p)
		modified = append(modified, p)
	}
	for p := range readSet {
		read = append(read, p)
	}
	slices.Sort(read)
	slices.Sort(modified)
	if read == nil {
		read = []string{}
	}
	if modified == nil {
		modified = []string{}
	}
	return read, modified
}

// The file lists end the summary text, so the model sees them and a later compaction
// carries them on.
const (
	readFilesTag     = "<read-files>"
	modifiedFilesTag = "<modified-files>"
)

func filesNote(read, modified []string) string {
	var b strings.Builder
	for _, l := range []struct {
		tag   string
		files []string
	}{{readFilesTag, read}, {modifiedFilesTag, modified}} {
		if len(l.files) == 0 {
			continue
		}
		b.WriteString("\n\n" + l.tag + "\n")
		for _, f := range l.files {
			b.WriteString(f + "\n")
		}
		b.WriteString("</" + l.tag[1:])
	}
	return b.String()
}

// filesOfNote reads the file lists back from a summary's text.
func filesOfNote(summary string) (read, modified []string) {
	list := func(tag string) []string {
		_, after, ok := strings.Cut(summary, "\n"+tag+"\n")
		if !ok {
			return nil
		}
		body, _, _ := strings.Cut(after, "</"+tag[1:])
		var files []string
		for _, f := range strings.Split(body, "\n") {
			if f = strings.TrimSpace(f); f != "" {
				files = append(files, f)
			}
		}
		return files
	}
	return list(readFilesTag), list(modifiedFilesTag)
}
