package agent

import "github.com/basecontext/base-context/codec"

// checkAnswer checks the answer the agent would stop with (Config.CheckAnswer): one that
// will not do queues the correction prompt as a follow-up, once per prompt; the caller
// judges the answer that follows it.
func (a *Agent) checkAnswer(final *codec.AssistantMessage) {
	if a.cfg.CheckAnswer == nil || a.use.corrected {
		return
	}
	if correction := a.cfg.CheckAnswer(AnswerText(final)); correction != "" {
		a.use.corrected = true
		a.FollowUp(correction)
	}
}
