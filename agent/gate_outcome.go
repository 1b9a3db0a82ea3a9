package agent

import "fmt"

// GateFailure says why the gates did not pass: how the last one failed, and what ended the
// run if it was not the gates themselves. It is for an outcome whose Gates did not pass.
func (o Outcome) GateFailure() string {
	why := ""
	switch {
	case o.Limit != nil:
		why = o.Limit.Error()
	case o.CompactionErr != nil:
		why = "compaction failed: " + o.CompactionErr.Error()
	case o.Failed() && o.Final != nil && o.Final.ErrorMessage != "":
		why = "the run failed: " + o.FailureReason()
	case o.Failed():
		why = o.FailureReason()
	}
	g := o.Gates
	if !g.Ran {
		if why == "" {
			return "the gates did not run"
		}
		return "the gates did not run: " + why
	}
	msg := fmt.Sprintf("gate %q failed: %s", g.Command, g.Status)
	switch {
	case why != "":
		msg += "; then " + why
	case g.Retries == 1:
		msg += " (after 1 retry)"
	case g.Retries > 1:
		msg += fmt.Sprintf(" (after %d retries)", g.Retries)
	}
	return msg
}

// FailureReason says why a failed run ended: the error of its final message, else that it
// ended without an answer.
func (o Outcome) FailureReason() string {
	if o.Final != nil && o.Final.ErrorMessage != "" {
		return o.Final.ErrorMessage
	}
	return "the run ended without an answer"
}
