package rpc

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/skills"
	"github.com/tidwall/gjson"
)

// The protocol's one description: each command's arguments and each response's data are Go
// structs described with codec's tags (codec/describe.go), in key order. A command is decoded
// from its declaration (codec.Decode) and the JSON Schema of rpc mode's lines (JSONSchema,
// `base-context schema --rpc`) is made from the same declarations.

// commandSpec is one command: what it takes, what its response's data holds, and its handler.
type commandSpec struct {
	name string
	doc  string
	args *codec.Shape // nil: the command takes no arguments
	run  func(s *Server, c command) error
	// data is the shape of the response's data (nil: it has none); dataNull, it may be null.
	data     *codec.Shape
	dataNull bool
}

// takes is a command with the arguments A: they are decoded (and checked) from the command
// line before run gets them; a problem is the command's error response.
func takes[A any](name, doc string, run func(s *Server, c command, args *A)) commandSpec {
	return commandSpec{name: name, doc: doc, args: codec.Describe((*A)(nil)), run: func(s *Server, c command) error {
		args, err := decodeArgs[A](c.v)
		if err != nil {
			return err
		}
		run(s, c, args)
		return nil
	}}
}

// plain is a command without arguments.
func plain(name, doc string, run func(s *Server, c command)) commandSpec {
	return commandSpec{name: name, doc: doc, run: func(s *Server, c command) error { run(s, c); return nil }}
}

// answers says the response's data holds a D (a nil pointer to it); orNull, it may be null.
func (c commandSpec) answers(data any, orNull bool) commandSpec {
	c.data, c.dataNull = codec.Describe(data), orNull
	return c
}

// decodeArgs decodes the arguments A of the command v.
func decodeArgs[A any](v gjson.Result) (*A, error) {
	args := new(A)
	if err := codec.Decode(v, args); err != nil {
		return nil, argumentError(err)
	}
	return args, nil
}

// argumentError says what is wrong with an argument, in the protocol's words.
func argumentError(err error) error {
	var me *codec.MemberError
	if !errors.As(err, &me) {
		return err
	}
	m, name := me.Member, me.Member.Key
	switch me.Problem {
	case codec.ProblemMissing:
		return fmt.Errorf("missing %q (%s)", name, wanted(m))
	case codec.ProblemKind:
		return fmt.Errorf("%q must be %s, got %s", name, wanted(m), kind(me.Value))
	case codec.ProblemEnum:
		if len(m.Enum) == 2 {
			return fmt.Errorf("%q must be %q or %q, got %q", name, m.Enum[0], m.Enum[1], me.Value.Str)
		}
		return fmt.Errorf("%q must be one of %s, got %q", name, strings.Join(m.Enum, ", "), me.Value.Str)
	case codec.ProblemVariant:
		return fmt.Errorf("%q[%d]: expected %s block, got %q", name, me.Index, article(strings.Join(m.Allowed, " or ")), me.Tag)
	}
	return fmt.Errorf("%q: %v", name, me.Err)
}

// wanted names what a member must hold: "a string", "true or false", "an array of image blocks".
func wanted(m *codec.ShapeMember) string {
	switch m.Kind {
	case codec.KindAny:
		return "any JSON value"
	case codec.KindBoolean:
		return "true or false"
	case codec.KindArray:
		if m.Allowed != nil {
			return "an array of " + strings.Join(m.Allowed, " or ") + " blocks"
		}
	}
	return article(m.Kind.String())
}

func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// The arguments of the commands.
type (
	messageArgs struct {
		Message string          `json:"message" doc:"the text of the user message"`
		Images  []codec.Content `json:"images,omitempty" blocks:"image" doc:"images sent with the text (not while the agent streams)"`
	}
	promptArgs struct {
		Message           string          `json:"message" doc:"the text of the user message"`
		Images            []codec.Content `json:"images,omitempty" blocks:"image" doc:"images sent with the text"`
		StreamingBehavior string          `json:"streamingBehavior,omitempty" enum:"steer,followUp" doc:"while a run streams: queue the prompt as a steering message or a follow-up (without it the prompt is refused)"`
	}
	setModelArgs struct {
		Provider string `json:"provider"`
		ModelID  string `json:"modelId"`
	}
	thinkingLevelArgs struct {
		Level string `json:"level" enum:"off,minimal,low,medium,high,xhigh"`
	}
	queueModeArgs struct {
		Mode string `json:"mode" enum:"all,one-at-a-time"`
	}
	switchArgs struct {
		Enabled bool `json:"enabled"`
	}
	compactArgs struct {
		CustomInstructions string `json:"customInstructions,omitempty" doc:"what the summary should keep"`
	}
	bashArgs struct {
		Command string `json:"command" doc:"a shell command line, not empty"`
	}
	newSessionArgs struct {
		ParentSession string `json:"parentSession,omitempty" doc:"recorded as the new header's parentSession"`
	}
	switchSessionArgs struct {
		SessionPath string `json:"sessionPath" doc:"a session file, or a session id (prefix) of the session directory"`
	}
	forkArgs struct {
		EntryID string `json:"entryId" doc:"the entry id of a user message (get_fork_messages)"`
	}
	sessionNameArgs struct {
		Name string `json:"name"`
	}
	sandboxArgs struct {
		Mode string `json:"mode" enum:"off,best-effort,workspace-write,read-only" doc:"at least as strict as the present mode"`
	}
	// dialogAnswer is an extension_ui_response: the client's answer to a dialog request.
	dialogAnswer struct {
		ID        string `json:"id" doc:"the id of the extension_ui_request answered"`
		Confirmed bool   `json:"confirmed,omitempty" doc:"confirm: yes"`
		Value     string `json:"value,omitempty" doc:"select: the option chosen; input: the text entered"`
		Cancelled bool   `json:"cancelled,omitempty" doc:"the dialog was dismissed: a no"`
	}
)

// thinkingLevels in the order cycle_thinking_level goes through them, described at the first
// use (see commandList).
var thinkingLevels = sync.OnceValue(func() []string {
	return codec.Describe((*thinkingLevelArgs)(nil)).Member("level").Enum
})

// The data of the responses.
type (
	modelData struct {
		ID            string   `json:"id"`
		Name          string   `json:"name"`
		API           string   `json:"api"`
		Provider      string   `json:"provider"`
		BaseURL       string   `json:"baseUrl"`
		Reasoning     bool     `json:"reasoning"`
		Input         []string `json:"input"`
		Cost          costData `json:"cost" doc:"dollars per million tokens"`
		ContextWindow int64    `json:"contextWindow"`
		MaxTokens     int64    `json:"maxTokens"`
	}
	costData struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cacheRead"`
		CacheWrite float64 `json:"cacheWrite"`
	}
	stateData struct {
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
		// The MCP servers of the process, as their mcp_server_status events said at start.
		MCPServers []*codec.MCPServerStatus `json:"mcpServers,omitempty" doc:"the MCP servers and how their start went"`
		Sandbox    string                   `json:"sandbox" doc:"the tools' sandbox mode (--sandbox): off, best-effort, workspace-write or read-only"`
	}
	messagesData struct {
		Messages []codec.Message `json:"messages" doc:"as message_end shows them"`
	}
	cycleModelData struct {
		Model         *modelData `json:"model"`
		ThinkingLevel string     `json:"thinkingLevel"`
		IsScoped      bool       `json:"isScoped"`
	}
	modelsData struct {
		Models []*modelData `json:"models"`
	}
	levelData struct {
		Level string `json:"level"`
	}
	compactData struct {
		Summary          string `json:"summary"`
		FirstKeptEntryID string `json:"firstKeptEntryId"`
		TokensBefore     int64  `json:"tokensBefore"`
		Details          any    `json:"details"`
	}
	bashData struct {
		Output         string `json:"output"`
		ExitCode       *int64 `json:"exitCode,omitempty"`
		Cancelled      bool   `json:"cancelled"`
		Truncated      bool   `json:"truncated"`
		FullOutputPath string `json:"fullOutputPath,omitempty"`
	}
	statsData struct {
		SessionFile       string        `json:"sessionFile,omitempty"`
		SessionID         string        `json:"sessionId"`
		UserMessages      int           `json:"userMessages"`
		AssistantMessages int           `json:"assistantMessages"`
		ToolCalls         int           `json:"toolCalls"`
		ToolResults       int           `json:"toolResults"`
		TotalMessages     int           `json:"totalMessages"`
		Tokens            tokensData    `json:"tokens"`
		Cost              float64       `json:"cost"`
		ContextUsage      *contextUsage `json:"contextUsage,omitempty"`
	}
	tokensData struct {
		Input      int64 `json:"input"`
		Output     int64 `json:"output"`
		CacheRead  int64 `json:"cacheRead"`
		CacheWrite int64 `json:"cacheWrite"`
		Total      int64 `json:"total"`
	}
	contextUsage struct {
		Tokens        *int64   `json:"tokens" nullable:"true" doc:"null until a response has measured the context"`
		ContextWindow int64    `json:"contextWindow"`
		Percent       *float64 `json:"percent" nullable:"true"`
	}
	cancelledData struct {
		Cancelled bool `json:"cancelled"`
	}
	forkData struct {
		Text      string `json:"text" doc:"the text of the user message forked before"`
		Cancelled bool   `json:"cancelled"`
	}
	forkMessagesData struct {
		Messages []forkable `json:"messages"`
	}
	forkable struct {
		EntryID string `json:"entryId"`
		Text    string `json:"text"`
	}
	textData struct {
		Text *string `json:"text" nullable:"true" doc:"null before any answer"`
	}
	commandsData struct {
		Commands []skills.Command `json:"commands" doc:"the prompt templates, then the skills (docs/skills.md)"`
	}
)
