package stages

import (
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/exitcode"
)

// Verdict statuses: how the run that wrote a stream ended, by the completion rules of
// docs/stream.md ("Exit status"), each with its exit status (VerdictSummary.ExitCode).
const (
	VerdictCompleted   = "completed"   // 0
	VerdictFailed      = "failed"      // 1
	VerdictLimit       = "limit"       // 3
	VerdictGate        = "gate"        // 4
	VerdictHangup      = "hangup"      // 129
	VerdictInterrupted = "interrupted" // 130
	VerdictTerminated  = "terminated"  // 143
)

// VerdictExit maps a verdict status to the exit status of the run.
var VerdictExit = map[string]int{
	VerdictCompleted:   exitcode.OK,
	VerdictFailed:      exitcode.Failure,
	VerdictLimit:       exitcode.Limit,
	VerdictGate:        exitcode.Gate,
	VerdictHangup:      exitcode.Hangup,
	VerdictInterrupted: exitcode.Interrupted,
	VerdictTerminated:  exitcode.Terminated,
}

// VerdictOptions is what the stream cannot say by itself.
type VerdictOptions struct {
	// Gated says the run was configured with gates: one that never ran is not a passed gate.
	// (Gate runs in the stream, tool executions named "gate", say so too.)
	Gated bool
	// RunError, when set, returns the reason of the run's last `error: <reason>` line on
	// stderr ("" if none); it is called once the stream has ended. Limits and signals show
	// only there: "<limit> reached (<used>/<max>)", "hangup", "interrupted", "terminated".
	RunError func() string
}

// Verdict reads a recorded stream, in either form, and decides how its run ended: the
// status its process should have exited with and a summary of what it did. It is a sink:
// `filter verdict` ends in it, and Text asks it whether to write the answer. At the end of
// the stream it writes the summary as one JSON line (Summary gives it as a value).
type Verdict struct {
	opts      VerdictOptions
	w         io.Writer // where Close writes the summary line
	lines     int
	sessionID string
	updated   bool // the last line was a message_update, which changes only lines

	runs, agentEnds int
	runOpen         bool
	turns           int

	// The terminal assistant message: the last one that ended. An assistant message that
	// started and did not end clears it (the stream was cut inside it).
	stopReason, errorMessage string
	hasTerminal              bool
	// cycleFailure is the failure that ended the last agent run, until a retry takes it
	// back; unrecovered is the first failure that nothing took back.
	cycleFailure *runFailure
	unrecovered  *runFailure

	retries      int
	retryPending bool // auto_retry_start, and no run yet

	compactions, compactionsOK int
	compactionOpen             bool
	compactionError            string
	compactionFailed           bool

	tools     []toolCount // in order of first call
	openTools map[string]bool

	gatesSeen bool
	gateRound []bool // isError of each gate run since the last assistant message began

	queued int64
	usage  usageTotals

	skills   []string // the skills activated (skill_activated), in order; nil without skills
	required []string // skills_loaded's: the skills the run must activate

	final *VerdictSummary // decided by Close
}

type runFailure struct{ stopReason, errorMessage string }

type toolCount struct {
	name                   string
	calls, errors, refused int
	sandboxed              int
}

type usageTotals struct {
	input, output, cacheRead, cacheWrite, totalTokens int64
	cost                                              [5]float64 // input, output, cacheRead, cacheWrite, total
}

// NewVerdict returns the verdict sink, writing its summary line to w.
func NewVerdict(w io.Writer, opts VerdictOptions) *Verdict {
	return &Verdict{opts: opts, w: w, openTools: map[string]bool{}}
}

var (
	verdictMessageKeys = []string{"message"}
	verdictToolKeys    = []string{"toolCallId", "toolName", "isError", "result"}
	verdictHeaderKeys  = []string{"id"}
	verdictResultKeys  = []string{"result", "errorMessage", "willRetry"}
	verdictActionKeys  = []string{"actions"}
	assistantKeys      = []string{"role", "stopReason", "errorMessage", "usage"}
	usageKeys          = []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
	costKeys           = []string{"input", "output", "cacheRead", "cacheWrite", "total"}
)

func (v *Verdict) Consume(f *Frame) error {
	v.lines++
	v.updated = f.Type() == codec.TypeMessageUpdate
	switch f.Type() {
	case codec.TypeSession:
		if v.sessionID == "" {
			var m [1]codec.Member
			f.members(verdictHeaderKeys, m[:])
			v.sessionID = m[0].Str(f.Line())
		}
	case codec.TypeAgentStart:
		v.runs++
		v.runOpen, v.retryPending = true, false
		v.settle() // a failure no retry took back stands, whatever later runs do
	case codec.TypeAgentEnd:
		v.agentEnds++
		v.runOpen = false
		if v.hasTerminal && failedStop(v.stopReason) {
			v.cycleFailure = &runFailure{v.stopReason, v.errorMessage}
		}
	case codec.TypeTurnStart:
		v.turns++
	case codec.TypeMessageStart:
		if role, _ := v.message(f); role == "assistant" {
			v.hasTerminal = false
			v.gateRound = v.gateRound[:0] // the agent went on working: earlier gates are stale
		}
	case codec.TypeMessageEnd:
		if role, msg := v.message(f); role == "assistant" {
			v.assistantEnd(msg)
		}
	case codec.TypeToolExecutionStart, codec.TypeToolExecutionEnd:
		v.toolExecution(f)
	case codec.TypeAutoRetryStart:
		v.retries++
		v.retryPending = true
		v.cycleFailure = nil // being retried: not the final word
	case codec.TypeAutoRetryEnd:
		v.retryPending = false
	case codec.TypeCompactionStart:
		v.compactionOpen = true
	case codec.TypeCompactionEnd:
		v.compactionEnd(f)
	case codec.TypeSessionActionUpdate:
		var m [1]codec.Member
		f.members(verdictActionKeys, m[:])
		actions := m[0].Raw(f.Line())
		if len(actions) > 0 && actions[0] == '{' {
			v.queued = codec.Find(actions, "queuedCount").Int(actions)
		}
	case codec.TypeSkillsLoaded, codec.TypeSkillActivated:
		v.skill(f)
	}
	return nil
}

// NextDeltas: an update counts as a line, and is otherwise nothing to a verdict.
func (v *Verdict) NextDeltas() NextDeltas {
	if v.updated {
		return DropDeltas
	}
	return PushDeltas
}

func (v *Verdict) SkippedDeltas(run DeltaRun) error {
	v.lines += run.Lines
	return nil
}

// Close decides the verdict and writes the summary line.
func (v *Verdict) Close() error {
	s := v.Summary()
	v.final = &s
	_, err := v.w.Write(append(s.AppendJSON(make([]byte, 0, 512)), '\n'))
	return err
}

// settle records the last run's failure as unrecovered: no retry followed it.
func (v *Verdict) settle() {
	if v.cycleFailure != nil && v.unrecovered == nil {
		v.unrecovered = v.cycleFailure
	}
	v.cycleFailure = nil
}

func failedStop(s string) bool { return s == codec.StopReasonError || s == codec.StopReasonAborted }

// message returns the role and encoded message of a message_start or message_end.
func (v *Verdict) message(f *Frame) (role string, msg []byte) {
	var m [1]codec.Member
	f.members(verdictMessageKeys, m[:])
	msg = m[0].Raw(f.Line())
	if len(msg) == 0 || msg[0] != '{' {
		return "", nil
	}
	return codec.Find(msg, "role").Str(msg), msg
}

func (v *Verdict) assistantEnd(msg []byte) {
	var m [4]codec.Member
	codec.FindEach(msg, assistantKeys, m[:])
	v.stopReason, v.errorMessage, v.hasTerminal = m[1].Str(msg), m[2].Str(msg), true
	usage := m[3].Raw(msg)
	if len(usage) == 0 || usage[0] != '{' {
		return
	}
	var u [6]codec.Member
	codec.FindEach(usage, usageKeys, u[:])
	v.usage.input += u[0].Int(usage)
	v.usage.output += u[1].Int(usage)
	v.usage.cacheRead += u[2].Int(usage)
	v.usage.cacheWrite += u[3].Int(usage)
	v.usage.totalTokens += u[4].Int(usage)
	cost := u[5].Raw(usage)
	if len(cost) == 0 || cost[0] != '{' {
		return
	}
	var c [5]codec.Member
	codec.FindEach(cost, costKeys, c[:])
	for i := range c {
		if n, err := strconv.ParseFloat(string(c[i].Raw(cost)), 64); err == nil {
			v.usage.cost[i] += n
		}
	}
}

func (v *Verdict) toolExecution(f *Frame) {
	var m [4]codec.Member
	f.members(verdictToolKeys, m[:])
	line := f.Line()
	id, name := m[0].Str(line), m[1].Str(line)
	t := v.tool(name)
	if f.Type() == codec.TypeToolExecutionStart {
		t.calls++
		v.openTools[id] = true
		return
	}
	if !v.openTools[id] {
		t.calls++ // its start was cut off: still a call
	}
	delete(v.openTools, id)
	isError := string(m[2].Raw(line)) == "true"
	if isError {
		t.errors++
		if m[3].Exists() {
			policy, sandbox := refusal(m[3].Raw(line))
			if policy {
				t.refused++
			}
			if sandbox {
				t.sandboxed++
			}
		}
	}
	if name == "gate" {
		v.gatesSeen = true
		v.gateRound = append(v.gateRound, isError)
	}
}

func (v *Verdict) tool(name string) *toolCount {
	for i := range v.tools {
		if v.tools[i].name == name {
			return &v.tools[i]
		}
	}
	v.tools = append(v.tools, toolCount{name: name})
	return &v.tools[len(v.tools)-1]
}

func (v *Verdict) compactionEnd(f *Frame) {
	v.compactionOpen = false
	v.compactions++
	var m [3]codec.Member
	f.members(verdictResultKeys, m[:])
	line := f.Line()
	if result := m[0].Raw(line); len(result) > 0 && result[0] == '{' {
		v.compactionsOK++
		if string(m[2].Raw(line)) == "true" {
			v.cycleFailure = nil // an overflow: the failed request runs again, compacted
		}
		return
	}
	// No result: the compaction failed (or was aborted), which fails the run.
	if !v.compactionFailed {
		v.compactionFailed = true
		v.compactionError = m[1].Str(line)
	}
}

// VerdictSummary is the verdict on one stream.
type VerdictSummary struct {
	Status       string
	Reason       string // why the status is not completed
	StopReason   string // of the terminal assistant message
	ErrorMessage string
	SessionID    string
	Truncated    bool // the stream ended mid-run
	Turns        int
	Tools        []VerdictTool
	Retries      int
	Compactions  int
	Usage        codec.Usage
	Skills       []string // the skills activated; nil when the run had none loaded
}

// ExitCode is the status the run's process should have exited with.
func (s VerdictSummary) ExitCode() int { return VerdictExit[s.Status] }

// VerdictTool counts the executions of one tool.
type VerdictTool struct {
	Name          string
	Calls, Errors int
	Refused       int // errors that are the permission policy's refusals
	Sandboxed     int // errors the sandbox refused (--sandbox)
}

// refusal reports whether a tool result (its encoded value) is a refusal of the permission
// policy (its first text says so) or holds one of the sandbox (its first text names it: the
// whole error of write and edit, a note in bash's output).
func refusal(result []byte) (policy, sandbox bool) {
	var first []byte
	codec.EachElem(codec.Find(result, "content").Raw(result), func(_ int, elem []byte) bool {
		first = elem
		return false
	})
	if first == nil {
		return false, false
	}
	text := codec.Find(first, "text").Str(first)
	return strings.HasPrefix(text, codec.PermissionDeniedPrefix), strings.Contains(text, codec.SandboxDeniedMarker)
}

// Summary returns the verdict: the one Close decided, or else one on what has been pushed
// so far.
func (v *Verdict) Summary() VerdictSummary {
	if v.final != nil {
		return *v.final
	}
	v.settle()
	c := v.usage.cost
	s := VerdictSummary{
		SessionID: v.sessionID, Turns: v.turns, Retries: v.retries, Compactions: v.compactions,
		Usage: codec.Usage{Input: v.usage.input, Output: v.usage.output, CacheRead: v.usage.cacheRead,
			CacheWrite: v.usage.cacheWrite, TotalTokens: v.usage.totalTokens,
			Cost: codec.Cost{Input: dollars(c[0]), Output: dollars(c[1]), CacheRead: dollars(c[2]),
				CacheWrite: dollars(c[3]), Total: dollars(c[4])}},
	}
	s.Skills = v.skills
	for _, t := range v.tools {
		s.Tools = append(s.Tools, VerdictTool{Name: t.name, Calls: t.calls, Errors: t.errors, Refused: t.refused, Sandboxed: t.sandboxed})
	}
	if v.hasTerminal {
		s.StopReason, s.ErrorMessage = v.stopReason, v.errorMessage
	}
	s.Truncated, s.Reason = v.truncation()
	s.Status, s.Reason = v.decide(s.Truncated, s.Reason)
	return s
}

// dollars rounds a sum of costs to 12 decimals: enough for any price per token, and the
// summary reads 0.3 rather than 0.30000000000000004.
func dollars(x float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 12, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// truncation says whether the stream ended mid-run, and why.
func (v *Verdict) truncation() (bool, string) {
	switch {
	case v.lines == 0:
		return true, "the stream is empty"
	case v.runOpen:
		return true, "the stream ended inside an agent run (no agent_end)"
	case v.retryPending:
		return true, "the stream ended after auto_retry_start, before the retry ran"
	case len(v.openTools) > 0:
		return true, "the stream ended while a tool was running"
	case v.compactionOpen:
		return true, "the stream ended during a compaction"
	case v.agentEnds == 0 && v.compactionsOK == 0:
		return true, "the stream holds no agent run"
	}
	return false, ""
}

// decide applies the completion rules, most specific cause first: a signal; a stream cut
// short; gates; a limit; a failed run or compaction; prompts left queued; any other
// reported error.
func (v *Verdict) decide(truncated bool, cut string) (status, reason string) {
	runErr := ""
	if v.opts.RunError != nil {
		runErr = v.opts.RunError()
	}
	switch runErr {
	case "hangup":
		return VerdictHangup, "hung up (SIGHUP)"
	case "interrupted":
		return VerdictInterrupted, "interrupted (SIGINT)"
	case "terminated":
		return VerdictTerminated, "terminated (SIGTERM)"
	}
	if truncated {
		return VerdictFailed, cut
	}
	if v.opts.Gated || v.gatesSeen {
		switch {
		case len(v.gateRound) == 0:
			return VerdictGate, "no gate ran after the agent's last message (a gate that has not run is not a passed gate)"
		case containsTrue(v.gateRound):
			return VerdictGate, "a gate failed in the last gate run"
		}
	}
	// A limit named on stderr decides over a failure, as the exit status (3) does: --max-time
	// interrupts what the run waits on, so the run it stops ends aborted (or its compaction,
	// or its retry's pause), and that is the limit's doing.
	if strings.Contains(runErr, " reached (") {
		return VerdictLimit, runErr
	}
	if f := v.unrecovered; f != nil {
		what := "ended in error"
		if f.stopReason == codec.StopReasonAborted {
			what = "was aborted"
		}
		if f.errorMessage != "" {
			return VerdictFailed, "the run " + what + ": " + f.errorMessage
		}
		return VerdictFailed, "the run " + what
	}
	if v.compactionFailed {
		if v.compactionError != "" {
			return VerdictFailed, "compaction failed: " + v.compactionError
		}
		return VerdictFailed, "compaction failed"
	}
	if v.runs > 0 && !v.hasTerminal {
		return VerdictFailed, "the run ended without an assistant message"
	}
	// A terminal toolUse is completed: the exit table of docs/stream.md names stop, length and
	// toolUse alike. A limit that stopped the run after a turn of tool calls shows only in the
	// run's stderr (RunError), as every limit does.
	switch {
	case v.queued > 0:
		return VerdictLimit, "the run stopped before it finished: " + strconv.FormatInt(v.queued, 10) + " queued prompt(s) never ran"
	case len(v.missingSkills()) > 0:
		return VerdictGate, "required skill never activated: " + strings.Join(v.missingSkills(), ", ")
	case runErr != "":
		return VerdictFailed, runErr
	}
	return VerdictCompleted, ""
}

func containsTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// AppendJSON appends the summary as one JSON object (without a line feed).
func (s *VerdictSummary) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = codec.AppendMember(dst, "status", true)
	dst = codec.AppendString(dst, s.Status)
	if s.Reason != "" {
		dst = codec.AppendMember(dst, "reason", false)
		dst = codec.AppendString(dst, s.Reason)
	}
	if s.StopReason != "" {
		dst = codec.AppendMember(dst, "stopReason", false)
		dst = codec.AppendString(dst, s.StopReason)
	}
	if s.ErrorMessage != "" {
		dst = codec.AppendMember(dst, "errorMessage", false)
		dst = codec.AppendString(dst, s.ErrorMessage)
	}
	if s.SessionID != "" {
		dst = codec.AppendMember(dst, "sessionId", false)
		dst = codec.AppendString(dst, s.SessionID)
	}
	dst = codec.AppendMember(dst, "truncated", false)
	dst = codec.AppendBool(dst, s.Truncated)
	dst = codec.AppendMember(dst, "turns", false)
	dst = codec.AppendInt(dst, int64(s.Turns))
	dst = codec.AppendMember(dst, "toolCalls", false)
	dst = append(dst, '{')
	for i, t := range s.Tools {
		dst = codec.AppendMember(dst, t.Name, i == 0)
		dst = append(dst, `{"calls":`...)
		dst = codec.AppendInt(dst, int64(t.Calls))
		dst = append(dst, `,"errors":`...)
		dst = codec.AppendInt(dst, int64(t.Errors))
		if t.Refused > 0 {
			dst = append(dst, `,"refused":`...)
			dst = codec.AppendInt(dst, int64(t.Refused))
		}
		if t.Sandboxed > 0 {
			dst = append(dst, `,"sandboxed":`...)
			dst = codec.AppendInt(dst, int64(t.Sandboxed))
		}
		dst = append(dst, '}')
	}
	dst = append(dst, '}')
	dst = codec.AppendMember(dst, "retries", false)
	dst = codec.AppendInt(dst, int64(s.Retries))
	dst = codec.AppendMember(dst, "compactions", false)
	dst = codec.AppendInt(dst, int64(s.Compactions))
	dst = codec.AppendMember(dst, "usage", false)
	dst = s.Usage.AppendJSON(dst)
	if s.Skills != nil {
		dst = codec.AppendMember(dst, "skillsUsed", false)
		dst = append(dst, '[')
		for i, name := range s.Skills {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = codec.AppendString(dst, name)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

var verdictSkillKeys = []string{"name", "required"}

// skill counts a skill's activation; skills_loaded makes the summary list the skills used,
// none included, and says which ones the run must activate.
func (v *Verdict) skill(f *Frame) {
	if v.skills == nil {
		v.skills = []string{}
	}
	var m [2]codec.Member
	f.members(verdictSkillKeys, m[:])
	line := f.Line()
	if f.Type() == codec.TypeSkillsLoaded {
		var required []string
		if json.Unmarshal(m[1].Raw(line), &required) == nil { // a rare line: no need for speed
			v.required = append(v.required, required...)
		}
		return
	}
	if name := m[0].Str(line); name != "" && !slices.Contains(v.skills, name) {
		v.skills = append(v.skills, name)
	}
}

// missingSkills are the required skills the run never activated.
func (v *Verdict) missingSkills() []string {
	var missing []string
	for _, name := range v.required {
		if !slices.Contains(v.skills, name) && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	return missing
}
