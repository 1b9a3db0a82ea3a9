package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/sandbox"
	"github.com/tidwall/gjson"
)

// errStreaming refuses what cannot be done while a run streams.
var errStreaming = errors.New("the agent is streaming: wait for agent_end or abort first")

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
		name := c.typ // a command whose only fault is a duplicate key other than "type"
		if name == "" {
			name = "unknown"
		}
		s.respond(c, name, nil, err)
		return
	}
	defer func() {
		// Nothing a client sends may end the process or lose the session.
		if r := recover(); r != nil {
			s.host.Warn(fmt.Sprintf("rpc: line %d: %s failed: %v", n, c.typ, r))
			s.respond(c, c.typ, nil, fmt.Errorf("internal error: %v", r))
		}
	}()
	spec, ok := commands()[c.typ]
	if !ok {
		if c.typ == dialogAnswerCommand {
			if !s.Dialogs.resolve(c.v) {
				s.host.Warn(fmt.Sprintf("rpc: line %d: extension_ui_response for no pending dialog (id %q)", n, c.v.Get("id").Str))
			}
			return
		}
		s.respond(c, c.typ, nil, fmt.Errorf("unknown command type %q", c.typ))
		return
	}
	if err := spec.run(s, c); err != nil {
		s.respond(c, c.typ, nil, err)
	}
}

// commandList is the protocol's commands, in the order docs/rpc.md and the schema list them.
// They are made at their first use, with commands: describing every command's arguments and
// answers is work that a process serving no rpc client (a filter, a run) need not do.
var commandList = sync.OnceValue(func() []commandSpec {
	return []commandSpec{
		takes("prompt", "Sends a prompt; the response comes before the run's events.", (*Server).prompt),
		takes("steer", "A message delivered at the next turn boundary (when idle, it starts a run).",
			func(s *Server, c command, a *messageArgs) { s.queue(c, a, true) }),
		takes("follow_up", "A message run when the agent would stop (when idle, at once).",
			func(s *Server, c command, a *messageArgs) { s.queue(c, a, false) }),
		plain("abort", "Aborts the run; answered once it has ended.", (*Server).cmdAbort),
		takes("new_session", "Starts a new session; its header follows.", (*Server).newSession).answers((*cancelledData)(nil), false),
		plain("get_state", "The session's state.", (*Server).getState).answers((*stateData)(nil), false),
		plain("get_messages", "The conversation's messages.", (*Server).getMessages).answers((*messagesData)(nil), false),
		takes("set_model", "Chooses the model of the next run.", (*Server).setModel).answers((*modelData)(nil), false),
		plain("cycle_model", "Goes to the next model (null with one model available).", (*Server).cycleModel).answers((*cycleModelData)(nil), true),
		plain("get_available_models", "The models the client may choose.", (*Server).availableModels).answers((*modelsData)(nil), false),
		takes("set_thinking_level", "Sets the thinking level.", (*Server).setThinkingLevel),
		plain("cycle_thinking_level", "Goes to the next thinking level (null for a model without reasoning).", (*Server).cycleThinkingLevel).answers((*levelData)(nil), true),
		takes("set_steering_mode", "How many steering messages a turn boundary delivers.",
			func(s *Server, c command, a *queueModeArgs) { s.setQueueMode(c, a, &s.steeringMode) }),
		takes("set_follow_up_mode", "How many follow-ups a run takes.",
			func(s *Server, c command, a *queueModeArgs) { s.setQueueMode(c, a, &s.followUpMode) }),
		takes("compact", "Summarises the older messages; answered when done.", (*Server).compact).answers((*compactData)(nil), false),
		takes("set_auto_compaction", "Turns automatic compaction on or off.",
			func(s *Server, c command, a *switchArgs) {
				s.setSwitch(c, func(set *settings) { set.autoCompaction = a.Enabled })
			}),
		takes("set_auto_retry", "Turns retries of transient provider failures on or off.",
			func(s *Server, c command, a *switchArgs) {
				s.setSwitch(c, func(set *settings) { set.autoRetry = a.Enabled })
			}),
		plain("abort_retry", "Ends the pause before a retry, and the run with the failure.", (*Server).abortRetry),
		takes("bash", "Runs a command for the user; answered when it ends.", (*Server).bash).answers((*bashData)(nil), false),
		plain("abort_bash", "Ends the running bash command.", (*Server).cmdAbortBash),
		plain("get_session_stats", "Message, token and cost counts of the session.", (*Server).sessionStats).answers((*statsData)(nil), false),
		takes("switch_session", "Continues a saved session; its header follows.", (*Server).switchSession).answers((*cancelledData)(nil), false),
		takes("fork", "A new session with the conversation before a user message.", (*Server).fork).answers((*forkData)(nil), false),
		plain("clone", "A new session with the whole conversation.", (*Server).clone).answers((*cancelledData)(nil), false),
		plain("get_fork_messages", "The user messages a fork may start before.", (*Server).forkMessages).answers((*forkMessagesData)(nil), false),
		plain("get_last_assistant_text", "The text of the last answer.", (*Server).lastAssistantText).answers((*textData)(nil), false),
		takes("set_session_name", "Names the session.", (*Server).setSessionName),
		takes("set_sandbox", "Makes the tools' sandbox stricter (off < best-effort < workspace-write < read-only); a looser mode is refused.", (*Server).setSandbox),
		plain("get_commands", "The commands a prompt may start with.", (*Server).getCommands).answers((*commandsData)(nil), false),
		plain("export_html", "Not supported.", func(s *Server, c command) {
			s.respond(c, c.typ, nil, errors.New("export_html is not supported: use `base-context sessions show` for the messages"))
		}),
	}
})

// dialogAnswerCommand answers a dialog request; it gets no response.
const dialogAnswerCommand = "extension_ui_response"

// commands are the commands of commandList by name.
var commands = sync.OnceValue(func() map[string]*commandSpec {
	list := commandList()
	byName := make(map[string]*commandSpec, len(list))
	for i := range list {
		byName[list[i].name] = &list[i]
	}
	return byName
})

// newUserMessage builds the user message of a prompt, steer or follow-up.
func newUserMessage(text string, images []codec.Content) (*codec.UserMessage, error) {
	for i, b := range images {
		if img := b.(*codec.ImageContent); img.Data == "" || img.MimeType == "" {
			return nil, fmt.Errorf(`"images"[%d]: an image needs "data" (base64) and "mimeType"`, i)
		}
	}
	blocks := append([]codec.Content{&codec.TextContent{Text: text}}, images...)
	return &codec.UserMessage{Blocks: blocks, Timestamp: time.Now().UnixMilli()}, nil
}

func (s *Server) prompt(c command, a *promptArgs) {
	msg, err := newUserMessage(s.host.Skills().Expand(a.Message), a.Images)
	if err != nil {
		s.respond(c, c.typ, nil, err)
		return
	}
	if s.tryRun(s.accepted(c), promptWork(msg)) {
		return
	}
	if a.StreamingBehavior == "" {
		s.respond(c, c.typ, nil, errors.New(`the agent is streaming: give "streamingBehavior" ("steer" or "followUp") to queue the message, or abort first`))
		return
	}
	s.offer(c, msg, a.StreamingBehavior == "steer")
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
func (s *Server) queue(c command, a *messageArgs, steer bool) {
	msg, err := newUserMessage(s.host.Skills().Expand(a.Message), a.Images)
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
	return s.deliver(steer, &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: s.host.Skills().Expand(text)}},
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

// model is a model as the protocol shows it.
func (s *Server) model(m ModelInfo) *modelData {
	return &modelData{ID: m.ID, Name: m.Name, API: m.API, Provider: m.Provider, BaseURL: m.BaseURL,
		Reasoning: m.Reasoning, Input: []string{"text", "image"},
		Cost:          costData{m.Cost.Input, m.Cost.Output, m.Cost.CacheRead, m.Cost.CacheWrite},
		ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens}
}

func (s *Server) getState(c command) {
	s.mu.Lock()
	s.awaitEndingRunLocked()
	set, sess, ag, streaming, name := s.set, s.sess, s.ag, s.streaming, s.name
	s.mu.Unlock()
	s.obs.Lock()
	compacting, count := s.compacting, len(s.mirror)
	s.obs.Unlock()
	steer, follow := ag.Queued()
	var servers []*codec.MCPServerStatus
	if h, ok := s.host.(interface {
		MCPServers() []*codec.MCPServerStatus
	}); ok {
		servers = h.MCPServers()
	}
	s.respond(c, c.typ, marshal(stateData{
		Model: s.model(ModelInfo{set.model, s.host.BaseURL(set.model.Provider)}), ThinkingLevel: set.thinking,
		IsStreaming: streaming, IsCompacting: compacting, SteeringMode: s.steeringMode, FollowUpMode: s.followUpMode,
		SessionFile: sess.File, SessionID: sess.Header.ID, SessionName: name,
		AutoCompactionEnabled: set.autoCompaction, MessageCount: count, PendingMessageCount: len(steer) + len(follow),
		MCPServers: servers,
		Sandbox:    s.host.Sandbox().Mode().String(),
	}), nil)
}

// setSandbox makes the sandbox of the tools stricter; the next command the tools start runs
// under it. A looser mode, or one this kernel cannot enforce, is refused.
func (s *Server) setSandbox(c command, a *sandboxArgs) {
	mode, err := sandbox.ParseMode(a.Mode)
	if err == nil {
		if sb := s.host.Sandbox(); sb == nil {
			err = errors.New("this server has no sandbox to make stricter")
		} else {
			err = sb.Tighten(mode)
		}
	}
	s.respond(c, c.typ, nil, err)
}

func (s *Server) getMessages(c command) {
	s.respond(c, c.typ, appendMessages(nil, s.messages()), nil)
}

func (s *Server) setModel(c command, a *setModelArgs) {
	prov, id := a.Provider, a.ModelID
	m, p, err := s.host.ResolveModel(prov, id)
	if err != nil {
		//lint:ignore ST1005 the upstream RPC protocol's error text, which its clients may match
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
	s.respond(c, c.typ, marshal(cycleModelData{s.model(ModelInfo{m, next.BaseURL}), thinking, false}), nil)
}

func (s *Server) availableModels(c command) {
	models := s.host.Models()
	out := make([]*modelData, len(models))
	for i, m := range models {
		out[i] = s.model(m)
	}
	s.respond(c, c.typ, marshal(modelsData{out}), nil)
}

func (s *Server) setThinkingLevel(c command, a *thinkingLevelArgs) {
	s.change(func(set *settings) { set.thinking = a.Level })
	s.respond(c, c.typ, nil, nil)
}

func (s *Server) cycleThinkingLevel(c command) {
	s.mu.Lock()
	if !s.set.model.Reasoning {
		s.mu.Unlock()
		s.respond(c, c.typ, []byte("null"), nil)
		return
	}
	levels := thinkingLevels()
	next := levels[0]
	for i, l := range levels {
		if l == s.set.thinking {
			next = levels[(i+1)%len(levels)]
		}
	}
	s.set.thinking = next
	s.syncLocked()
	s.mu.Unlock()
	s.respond(c, c.typ, marshal(levelData{next}), nil)
}

// setQueueMode sets a queue mode ("all" or "one-at-a-time") from the command's "mode".
func (s *Server) setQueueMode(c command, a *queueModeArgs, mode *string) {
	*mode = a.Mode
	s.applyQueueModes()
	s.respond(c, c.typ, nil, nil)
}

// applyQueueModes gives the agent the client's queue modes; they hold for the running
// prompt too.
func (s *Server) applyQueueModes() {
	s.mu.Lock()
	ag := s.ag
	s.mu.Unlock()
	ag.SetQueueModes(s.steeringMode == "all", s.followUpMode == "all")
}

// setSwitch turns a setting on or off.
func (s *Server) setSwitch(c command, set func(*settings)) {
	s.change(set)
	s.respond(c, c.typ, nil, nil)
}

// change applies f to the settings the next run uses (to the agent at once when idle).
func (s *Server) change(f func(*settings)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.set)
	s.syncLocked()
}

// compact summarises the older messages; the response comes when it is done.
func (s *Server) compact(c command, a *compactArgs) {
	s.obs.Lock()
	s.compaction = nil
	s.obs.Unlock()
	started := s.tryRun(nil, func(ctx context.Context, ag *agent.Agent) {
		err := ag.Compact(ctx, a.CustomInstructions)
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
		var details any = struct{}{}
		if len(r.Details) > 0 {
			details = r.Details
		}
		s.respond(c, c.typ, marshal(compactData{r.Summary, r.FirstKeptEntryID, r.TokensBefore, details}), nil)
	})
	if !started {
		s.respond(c, c.typ, nil, errStreaming)
	}
}

// bash runs a command for the user; its output joins the context as a bashExecution
// message, which the model sees with the next prompt. The response comes when it ends.
func (s *Server) bash(c command, a *bashArgs) {
	cmdline := a.Command
	var err error
	if strings.TrimSpace(cmdline) == "" {
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
		s.respond(c, c.typ, marshal(bashData{m.Output, m.ExitCode, m.Cancelled, m.Truncated, m.FullOutputPath}), nil)
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
			text := b.String()
			s.respond(c, c.typ, marshal(textData{&text}), nil)
			return
		}
	}
	s.respond(c, c.typ, marshal(textData{}), nil)
}

// setSessionName names the session; the name is saved as a session_info entry, so that a
// session switched to or forked keeps it.
func (s *Server) setSessionName(c command, a *sessionNameArgs) {
	name := strings.TrimSpace(a.Name)
	s.mu.Lock()
	s.name = name
	store := s.sess.Store
	s.mu.Unlock()
	_, err := store.AppendEntry(sessionInfo, marshal(struct {
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

// getCommands lists the commands a prompt may start with, as the upstream: the prompt
// templates (/name), then the skills (/skill:name); base-context has no extensions.
func (s *Server) getCommands(c command) {
	s.respond(c, c.typ, marshal(commandsData{Commands: s.host.Skills().Commands()}), nil)
}
