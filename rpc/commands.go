package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	"github.com/tidwall/gjson"
)

// errStreaming refuses what cannot be done while a run streams.
var errStreaming = errors.New("the agent is streaming: wait for agent_end or abort first")

// thinkingLevels in the order cycle_thinking_level goes through them.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// handle answers one line. Every command gets exactly one response (prompt, compact and bash
// once they are accepted or done), except extension_ui_response, which answers a dialog.
func (s *Server) handle(line []byte, n int) {
	c, err := decodeCommand(line)
	var pe *parseError
	if errors.As(err, &pe) {
		pe.msg = strings.Replace(pe.msg, "Failed to parse command", fmt.Sprintf("Failed to parse command on line %d", n), 1)
		s.respond(command{}, "parse", nil, pe)
		return
	}
	if err != nil {
		s.respond(c, "unknown", nil, err)
		return
	}
	defer func() {
		// Nothing a client sends may end the process or lose the session.
		if r := recover(); r != nil {
			s.host.Warn(fmt.Sprintf("rpc: line %d: %s failed: %v", n, c.typ, r))
			s.respond(c, c.typ, nil, fmt.Errorf("internal error: %v", r))
		}
	}()
	h, ok := handlers[c.typ]
	if !ok {
		if c.typ == "extension_ui_response" {
			if !s.Dialogs.resolve(c.v) {
				s.host.Warn(fmt.Sprintf("rpc: line %d: extension_ui_response for no pending dialog (id %q)", n, c.v.Get("id").Str))
			}
			return
		}
		s.respond(c, c.typ, nil, fmt.Errorf("unknown command type %q", c.typ))
		return
	}
	h(s, c)
}

type handler func(s *Server, c command)

var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"prompt":                  (*Server).prompt,
		"steer":                   func(s *Server, c command) { s.queue(c, true) },
		"follow_up":               func(s *Server, c command) { s.queue(c, false) },
		"abort":                   (*Server).cmdAbort,
		"get_state":               (*Server).getState,
		"get_messages":            (*Server).getMessages,
		"set_model":               (*Server).setModel,
		"cycle_model":             (*Server).cycleModel,
		"get_available_models":    (*Server).availableModels,
		"set_thinking_level":      (*Server).setThinkingLevel,
		"cycle_thinking_level":    (*Server).cycleThinkingLevel,
		"set_steering_mode":       (*Server).setSteeringMode,
		"set_follow_up_mode":      (*Server).setFollowUpMode,
		"compact":                 (*Server).compact,
		"set_auto_compaction":     (*Server).setAutoCompaction,
		"set_auto_retry":          (*Server).setAutoRetry,
		"abort_retry":             (*Server).abortRetry,
		"bash":                    (*Server).bash,
		"abort_bash":              (*Server).cmdAbortBash,
		"get_session_stats":       (*Server).sessionStats,
		"new_session":             (*Server).newSession,
		"switch_session":          (*Server).switchSession,
		"fork":                    (*Server).fork,
		"clone":                   (*Server).clone,
		"get_fork_messages":       (*Server).forkMessages,
		"get_last_assistant_text": (*Server).lastAssistantText,
		"set_session_name":        (*Server).setSessionName,
		"get_commands":            (*Server).getCommands,
		"export_html": func(s *Server, c command) {
			s.respond(c, c.typ, nil, errors.New("export_html is not supported: use `base-context sessions show` for the messages"))
		},
	}
}

// userMessage builds the user message of a prompt, steer or follow-up.
func (c command) userMessage() (*codec.UserMessage, error) {
	text, err := c.str("message", true)
	if err != nil {
		return nil, err
	}
	images, err := c.images()
	if err != nil {
		return nil, err
	}
	blocks := append([]codec.Content{&codec.TextContent{Text: text}}, images...)
	return &codec.UserMessage{Blocks: blocks, Timestamp: time.Now().UnixMilli()}, nil
}

func (s *Server) prompt(c command) {
	msg, err := c.userMessage()
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	behavior, err := c.str("streamingBehavior", false)
	if err == nil && behavior != "" && behavior != "steer" && behavior != "followUp" {
		err = fmt.Errorf(`"streamingBehavior" must be "steer" or "followUp", got %q`, behavior)
	}
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	if s.tryRun(s.accepted(c), promptWork(msg)) {
		return
	}
	if behavior == "" {
		s.respond(c, c.typ, nil, errors.New(`the agent is streaming: give "streamingBehavior" ("steer" or "followUp") to queue the message, or abort first`))
		return
	}
	s.offer(c, msg, behavior == "steer")
}

// accepted is the success response of c, for tryRun.
func (s *Server) accepted(c command) func() {
	return func() { s.respond(c, c.typ, nil, nil) }
}

// promptWork runs a prompt.
func promptWork(msg *codec.UserMessage) func(context.Context, *agent.Agent) {
	return func(ctx context.Context, ag *agent.Agent) { ag.Prompt(ctx, msg) }
}

// queue is steer and follow_up: while a run streams the message waits in the agent's queue;
// when none does, it starts a run of its own (there is nothing to wait for).
func (s *Server) queue(c command, steer bool) {
	msg, err := c.userMessage()
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	if !s.tryRun(s.accepted(c), promptWork(msg)) {
		s.offer(c, msg, steer)
	}
}

// offer queues msg into the running prompt. A run that has decided to end refuses it; the
// message then starts the next run, so it is never lost.
func (s *Server) offer(c command, msg *codec.UserMessage, steer bool) {
	if len(msg.Blocks) > 1 {
		s.respond(c, c.typ, nil, errors.New("images cannot be queued while the agent streams: send them with a prompt once it is idle"))
		return
	}
	s.respond(c, c.typ, nil, s.deliver(steer, msg))
}

// deliver queues msg into the running prompt, or starts a run with it when none is going.
func (s *Server) deliver(steer bool, msg *codec.UserMessage) error {
	text := msg.Blocks[0].(*codec.TextContent).Text
	for {
		if s.tryRun(nil, promptWork(msg)) {
			return nil
		}
		s.mu.Lock()
		ag := s.ag
		s.mu.Unlock()
		err := ag.Offer(steer, text)
		if !errors.Is(err, agent.ErrQueueEnded) {
			return err
		}
		<-s.runEnded() // the run is ending: the message opens the next one
	}
}

// Deliver is `base-context send` to this process: a steering message or a follow-up for the
// running prompt, or, when the agent is idle, a prompt of its own. Safe from any goroutine.
func (s *Server) Deliver(steer bool, text string) error {
	return s.deliver(steer, &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: text}},
		Timestamp: time.Now().UnixMilli()})
}

func (s *Server) cmdAbort(c command) {
	s.abort()
	s.respond(c, c.typ, nil, nil)
}

func (s *Server) abortRetry(c command) {
	s.obs.Lock()
	retrying := s.retrying
	s.obs.Unlock()
	if retrying {
		s.abort() // the pause before the retry ends, and with it the run, in error
	}
	s.respond(c, c.typ, nil, nil)
}

// modelData is a model as the protocol shows it.
type modelData struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	API           string   `json:"api"`
	Provider      string   `json:"provider"`
	BaseURL       string   `json:"baseUrl"`
	Reasoning     bool     `json:"reasoning"`
	Input         []string `json:"input"`
	Cost          costData `json:"cost"`
	ContextWindow int64    `json:"contextWindow"`
	MaxTokens     int64    `json:"maxTokens"`
}

type costData struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

func (s *Server) model(m ModelInfo) *modelData {
	return &modelData{ID: m.ID, Name: m.Name, API: m.API, Provider: m.Provider, BaseURL: m.BaseURL,
		Reasoning: m.Reasoning, Input: []string{"text", "image"},
		Cost:          costData{m.Cost.Input, m.Cost.Output, m.Cost.CacheRead, m.Cost.CacheWrite},
		ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens}
}

func (s *Server) getState(c command) {
	s.mu.Lock()
	set, sess, ag, streaming, name := s.set, s.sess, s.ag, s.streaming, s.name
	s.mu.Unlock()
	s.obs.Lock()
	compacting, count := s.compacting, len(s.mirror)
	s.obs.Unlock()
	steer, follow := ag.Queued()
	type state struct {
		Model                 *modelData `json:"model"`
		ThinkingLevel         string     `json:"thinkingLevel"`
		IsStreaming           bool       `json:"isStreaming"`
		IsCompacting          bool       `json:"isCompacting"`
		SteeringMode          string     `json:"steeringMode"`
		FollowUpMode          string     `json:"followUpMode"`
		SessionFile           string     `json:"sessionFile,omitempty"`
		SessionID             string     `json:"sessionId"`
		SessionName           string     `json:"sessionName,omitempty"`
		AutoCompactionEnabled bool       `json:"autoCompactionEnabled"`
		MessageCount          int        `json:"messageCount"`
		PendingMessageCount   int        `json:"pendingMessageCount"`
	}
	s.respond(c, c.typ, marshal(state{
		Model: s.model(ModelInfo{set.model, s.host.BaseURL(set.model.Provider)}), ThinkingLevel: set.thinking,
		IsStreaming: streaming, IsCompacting: compacting, SteeringMode: s.steeringMode, FollowUpMode: s.followUpMode,
		SessionFile: sess.File, SessionID: sess.Header.ID, SessionName: name,
		AutoCompactionEnabled: set.autoCompaction, MessageCount: count, PendingMessageCount: len(steer) + len(follow),
	}), nil)
}

func (s *Server) getMessages(c command) {
	s.respond(c, c.typ, appendMessages(nil, s.messages()), nil)
}

func (s *Server) setModel(c command) {
	prov, err := c.str("provider", true)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	id, err := c.str("modelId", true)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	m, p, err := s.host.ResolveModel(prov, id)
	if err != nil {
		s.respond(c, c.typ, nil, fmt.Errorf("Model not found: %s/%s: %v", prov, id, err))
		return
	}
	s.change(func(set *settings) { set.model, set.prov = m, p })
	s.respond(c, c.typ, marshal(s.model(ModelInfo{m, s.host.BaseURL(m.Provider)})), nil)
}

func (s *Server) cycleModel(c command) {
	models := s.host.Models()
	s.mu.Lock()
	cur, thinking := s.set.model, s.set.thinking
	s.mu.Unlock()
	if len(models) < 2 {
		s.respond(c, c.typ, []byte("null"), nil)
		return
	}
	next := models[0]
	for i, m := range models {
		if m.Provider == cur.Provider && m.ID == cur.ID {
			next = models[(i+1)%len(models)]
			break
		}
	}
	m, p, err := s.host.ResolveModel(next.Provider, next.ID)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	s.change(func(set *settings) { set.model, set.prov = m, p })
	s.respond(c, c.typ, marshal(struct {
		Model         *modelData `json:"model"`
		ThinkingLevel string     `json:"thinkingLevel"`
		IsScoped      bool       `json:"isScoped"`
	}{s.model(ModelInfo{m, next.BaseURL}), thinking, false}), nil)
}

func (s *Server) availableModels(c command) {
	models := s.host.Models()
	out := make([]*modelData, len(models))
	for i, m := range models {
		out[i] = s.model(m)
	}
	s.respond(c, c.typ, marshal(struct {
		Models []*modelData `json:"models"`
	}{out}), nil)
}

func (s *Server) setThinkingLevel(c command) {
	level, err := c.oneOf("level", thinkingLevels...)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	s.change(func(set *settings) { set.thinking = level })
	s.respond(c, c.typ, nil, nil)
}

func (s *Server) cycleThinkingLevel(c command) {
	s.mu.Lock()
	if !s.set.model.Reasoning {
		s.mu.Unlock()
		s.respond(c, c.typ, []byte("null"), nil)
		return
	}
	next := thinkingLevels[0]
	for i, l := range thinkingLevels {
		if l == s.set.thinking {
			next = thinkingLevels[(i+1)%len(thinkingLevels)]
		}
	}
	s.set.thinking = next
	s.syncLocked()
	s.mu.Unlock()
	s.respond(c, c.typ, marshal(struct {
		Level string `json:"level"`
	}{next}), nil)
}

func (s *Server) setSteeringMode(c command) { s.setQueueMode(c, &s.steeringMode) }

func (s *Server) setFollowUpMode(c command) { s.setQueueMode(c, &s.followUpMode) }

// setQueueMode sets a queue mode ("all" or "one-at-a-time") from the command's "mode".
func (s *Server) setQueueMode(c command, mode *string) {
	m, err := c.oneOf("mode", "all", "one-at-a-time")
	if err == nil {
		*mode = m
		s.applyQueueModes()
	}
	s.respond(c, c.typ, nil, err)
}

// applyQueueModes gives the agent the client's queue modes; they hold for the running
// prompt too.
func (s *Server) applyQueueModes() {
	s.mu.Lock()
	ag := s.ag
	s.mu.Unlock()
	ag.SetQueueModes(s.steeringMode == "all", s.followUpMode == "all")
}

func (s *Server) setAutoCompaction(c command) {
	s.setSwitch(c, func(set *settings) *bool { return &set.autoCompaction })
}

func (s *Server) setAutoRetry(c command) {
	s.setSwitch(c, func(set *settings) *bool { return &set.autoRetry })
}

// setSwitch sets the setting field names to the command's "enabled".
func (s *Server) setSwitch(c command, field func(*settings) *bool) {
	on, err := c.boolean("enabled")
	if err == nil {
		s.change(func(set *settings) { *field(set) = on })
	}
	s.respond(c, c.typ, nil, err)
}

// change applies f to the settings the next run uses (to the agent at once when idle).
func (s *Server) change(f func(*settings)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.set)
	s.syncLocked()
}

// compact summarises the older messages; the response comes when it is done.
func (s *Server) compact(c command) {
	instructions, err := c.str("customInstructions", false)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	s.obs.Lock()
	s.compaction = nil
	s.obs.Unlock()
	started := s.tryRun(nil, func(ctx context.Context, ag *agent.Agent) {
		err := ag.Compact(ctx, instructions)
		s.obs.Lock()
		r := s.compaction
		s.obs.Unlock()
		if err == nil && r == nil {
			err = errors.New("the compaction produced no result")
		}
		if err != nil {
			s.respond(c, c.typ, nil, err)
			return
		}
		type result struct {
			Summary          string `json:"summary"`
			FirstKeptEntryID string `json:"firstKeptEntryId"`
			TokensBefore     int64  `json:"tokensBefore"`
			Details          any    `json:"details"`
		}
		var details any = struct{}{}
		if len(r.Details) > 0 {
			details = r.Details
		}
		s.respond(c, c.typ, marshal(result{r.Summary, r.FirstKeptEntryID, r.TokensBefore, details}), nil)
	})
	if !started {
		s.respond(c, c.typ, nil, errStreaming)
	}
}

// bash runs a command for the user; its output joins the context as a bashExecution
// message, which the model sees with the next prompt. The response comes when it ends.
func (s *Server) bash(c command) {
	cmdline, err := c.str("command", true)
	if err == nil && strings.TrimSpace(cmdline) == "" {
		err = errors.New(`"command" is empty`)
	}
	s.bashMu.Lock()
	busy := s.bashDone != nil
	s.bashMu.Unlock()
	if err == nil && busy {
		err = errors.New("a bash command is already running: abort_bash first")
	}
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	ts, err := tools.Select(tools.Options{Cwd: s.host.Cwd()}, []string{"bash"})
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	s.mu.Lock()
	ctx, cancel := context.WithCancel(s.sessCtx)
	s.mu.Unlock()
	done := make(chan struct{})
	s.bashMu.Lock()
	s.bashCancel, s.bashDone = cancel, done
	s.bashMu.Unlock()
	go func() {
		defer func() {
			cancel()
			s.bashMu.Lock()
			s.bashCancel, s.bashDone = nil, nil
			s.bashMu.Unlock()
			close(done)
		}()
		args := marshal(map[string]string{"command": cmdline})
		res, err := ts[0].Execute(ctx, args, nil)
		if err != nil && ctx.Err() == nil {
			s.respond(c, c.typ, nil, err)
			return
		}
		if err != nil {
			res = tools.Result{Status: "Command aborted"} // aborted before it started
		}
		m := bashMessage(cmdline, res, ctx.Err() != nil)
		s.mu.Lock()
		s.pending = append(s.pending, m)
		s.syncLocked() // now, or when the running prompt ends
		s.mu.Unlock()
		s.obs.Lock()
		s.mirror = append(s.mirror, m)
		s.obs.Unlock()
		type result struct {
			Output         string `json:"output"`
			ExitCode       *int64 `json:"exitCode,omitempty"`
			Cancelled      bool   `json:"cancelled"`
			Truncated      bool   `json:"truncated"`
			FullOutputPath string `json:"fullOutputPath,omitempty"`
		}
		s.respond(c, c.typ, marshal(result{m.Output, m.ExitCode, m.Cancelled, m.Truncated, m.FullOutputPath}), nil)
	}()
}

func (s *Server) cmdAbortBash(c command) {
	s.abortBash()
	s.respond(c, c.typ, nil, nil)
}

func (s *Server) lastAssistantText(c command) {
	msgs := s.messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, ok := msgs[i].(*codec.AssistantMessage); ok {
			var b strings.Builder
			for _, c := range m.Content {
				if t, ok := c.(*codec.TextContent); ok {
					b.WriteString(t.Text)
				}
			}
			s.respond(c, c.typ, marshal(struct {
				Text string `json:"text"`
			}{b.String()}), nil)
			return
		}
	}
	s.respond(c, c.typ, []byte(`{"text":null}`), nil)
}

// setSessionName names the session; the name is saved as a session_info entry, so that a
// session switched to or forked keeps it.
func (s *Server) setSessionName(c command) {
	name, err := c.str("name", true)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	name = strings.TrimSpace(name)
	s.mu.Lock()
	s.name = name
	store := s.sess.Store
	s.mu.Unlock()
	_, err = store.AppendEntry(sessionInfo, marshal(struct {
		Name string `json:"name"`
	}{name}))
	s.respond(c, c.typ, nil, err)
}

// sessionInfo is the session entry that records the session's name.
const sessionInfo = "session_info"

// sessionName is the name the latest session_info entry gives.
func sessionName(entries []session.Entry) string {
	name := ""
	for _, e := range entries {
		if e.Type == sessionInfo {
			name = gjson.GetBytes(e.Raw, "name").Str
		}
	}
	return name
}

// getCommands lists the commands a prompt may start with: base-context has no extensions,
// templates or skills; /compact is handled by the agent itself.
func (s *Server) getCommands(c command) {
	s.respond(c, c.typ, []byte(`{"commands":[]}`), nil)
}
