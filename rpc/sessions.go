package rpc

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	"github.com/tidwall/gjson"
)

// bashMessage records a command the user ran as the bashExecution message (docs/stream.md).
func bashMessage(command string, res tools.Result, cancelled bool) *codec.BashExecutionMessage {
	m := &codec.BashExecutionMessage{Command: command, Timestamp: time.Now().UnixMilli(), Output: res.Output}
	switch {
	case res.Status == "":
		var zero int64
		m.ExitCode = &zero
	case cancelled || res.Status == "Command aborted":
		m.Cancelled = true
	default:
		var code int64
		if _, err := fmt.Sscanf(res.Status, "Command exited with code %d", &code); err == nil {
			m.ExitCode = &code
		}
	}
	if len(res.Details) > 0 {
		d := gjson.ParseBytes(res.Details)
		m.Truncated = d.Get("truncation").IsObject()
		m.FullOutputPath = d.Get("fullOutputPath").Str
	}
	return m
}

func (s *Server) sessionStats(c command) {
	msgs := s.messages()
	s.mu.Lock()
	sess, model := s.sess, s.set.model
	s.mu.Unlock()
	st := statsData{SessionFile: sess.File, SessionID: sess.Header.ID, TotalMessages: len(msgs)}
	var last *codec.Usage // the usage of the latest response that measured the context
	for _, m := range msgs {
		switch m := m.(type) {
		case *codec.UserMessage:
			st.UserMessages++
		case *codec.AssistantMessage:
			st.AssistantMessages++
			st.ToolCalls += len(m.ToolCalls())
			u := m.Usage
			st.Tokens.Input += u.Input
			st.Tokens.Output += u.Output
			st.Tokens.CacheRead += u.CacheRead
			st.Tokens.CacheWrite += u.CacheWrite
			st.Tokens.Total += u.Input + u.Output + u.CacheRead + u.CacheWrite
			st.Cost += u.Cost.Total
			if m.StopReason != codec.StopReasonError && m.StopReason != codec.StopReasonAborted {
				last = &m.Usage
			}
		case *codec.ToolResultMessage:
			st.ToolResults++
		case *codec.CompactionSummaryMessage:
			last = nil // no response has measured the context since it was compacted
		}
	}
	if model.ContextWindow > 0 {
		st.ContextUsage = &contextUsage{ContextWindow: model.ContextWindow}
		if last != nil {
			n := last.Input + last.Output + last.CacheRead + last.CacheWrite
			pct := float64(n) * 100 / float64(model.ContextWindow)
			st.ContextUsage.Tokens, st.ContextUsage.Percent = &n, &pct
		}
	}
	s.respond(c, c.typ, marshal(st), nil)
}

// replace makes next the current session, closing the one before.
func (s *Server) replace(next *Session) error {
	if err := s.closeSession(0, ""); err != nil {
		s.host.Warn("rpc: closing the session: " + err.Error())
	}
	s.mu.Lock()
	s.runDone, s.runCancel = nil, nil
	s.mu.Unlock()
	s.open(s.procCtx, next)
	return nil
}

// idleForSession refuses a session change while a run or a bash command is going.
func (s *Server) idleForSession(c command) bool {
	s.bashMu.Lock()
	bash := s.bashDone != nil
	s.bashMu.Unlock()
	if s.isStreaming() || bash {
		s.respond(c, c.typ, nil, errStreaming)
		return false
	}
	return true
}

// cancelledFalse is the data of a session command that went ahead, encoded at the first use
// (encoding it when the package is initialised was the first JSON encoding of every start).
var cancelledFalse = sync.OnceValue(func() []byte { return marshal(cancelledData{}) })

func (s *Server) newSession(c command, a *newSessionArgs) {
	if !s.idleForSession(c) {
		return
	}
	next, err := s.host.NewSession(a.ParentSession)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	s.respond(c, c.typ, cancelledFalse(), s.replace(next))
}

func (s *Server) switchSession(c command, a *switchSessionArgs) {
	path := a.SessionPath
	if !s.idleForSession(c) {
		return
	}
	s.mu.Lock()
	cur := s.sess
	s.mu.Unlock()
	if path == cur.File || path == cur.Header.ID {
		s.respond(c, c.typ, nil, errors.New("that is the current session"))
		return
	}
	next, err := s.host.SwitchSession(path)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	s.respond(c, c.typ, cancelledFalse(), s.replace(next))
}

// userText is the text of a user message, its text blocks joined.
func userText(m *codec.UserMessage) string {
	if m.Blocks == nil {
		return m.Text
	}
	var b strings.Builder
	for _, c := range m.Blocks {
		if t, ok := c.(*codec.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// userEntries are the user messages of the current session's chain.
func (s *Server) userEntries() ([]session.Entry, error) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	entries, err := s.host.Entries(sess)
	if err != nil {
		return nil, err
	}
	var out []session.Entry
	for _, e := range entries {
		if _, ok := e.Message.(*codec.UserMessage); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *Server) forkMessages(c command) {
	entries, err := s.userEntries()
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	out := make([]forkable, len(entries))
	for i, e := range entries {
		out[i] = forkable{e.ID, userText(e.Message.(*codec.UserMessage))}
	}
	s.respond(c, c.typ, marshal(forkMessagesData{out}), nil)
}

// fork starts a new session from the conversation before one of the user's messages, and
// returns that message's text (for the client to edit and send again).
func (s *Server) fork(c command, a *forkArgs) {
	id := a.EntryID
	if !s.idleForSession(c) {
		return
	}
	entries, err := s.userEntries()
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	var text string
	found := false
	for _, e := range entries {
		if e.ID == id {
			text, found = userText(e.Message.(*codec.UserMessage)), true
		}
	}
	if !found {
		s.respond(c, c.typ, nil, fmt.Errorf("no user message with entry id %q (see get_fork_messages)", id))
		return
	}
	s.mu.Lock()
	cur := s.sess
	s.mu.Unlock()
	next, err := s.host.ForkSession(cur, id)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	err = s.replace(next)
	s.respond(c, c.typ, marshal(forkData{text, false}), err)
}

func (s *Server) clone(c command) {
	if !s.idleForSession(c) {
		return
	}
	s.mu.Lock()
	cur := s.sess
	s.mu.Unlock()
	next, err := s.host.ForkSession(cur, "")
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	s.respond(c, c.typ, cancelledFalse(), s.replace(next))
}
