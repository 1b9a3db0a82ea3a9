package runner

import (
	"os"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/internal/exitcode"
)

// Ending is how a run of the command line ended: its outcome, whether a `stop` request or a
// stop signal (sig, nil: none) cut it.
type Ending struct {
	Outcome          agent.Outcome
	StoppedByRequest bool
	Signal           os.Signal
}

// Answer is what text mode prints of the run, with the error the command exits with: nil
// with the final text of a completed run (with an output schema, only its JSON value). The
// order of the checks is the order of the reasons: a session that could not be saved or a
// stream that could not be written (1), a stop request (1), a stop signal (129, 130, 143),
// gates that failed or never ran (4), a failed compaction (1), a limit (3), a failed run
// (1), a required skill never activated (4), an answer that does not match the schema (1).
func (e Ending) Answer(p *Plan) (string, error) {
	o := e.Outcome
	switch {
	case o.SaveErr != nil:
		return "", exitcode.New(exitcode.Failure, o.SaveErr.Error())
	case o.Err != nil:
		return "", o.Err
	case e.StoppedByRequest && o.Failed():
		return "", exitcode.New(exitcode.Failure, "stopped by request")
	case e.Signal != nil:
		if err := exitcode.SignalError(e.Signal); err != nil {
			return "", err
		}
	}
	switch {
	case o.Gates != nil && !o.Gates.Passed:
		return "", exitcode.New(exitcode.Gate, o.GateFailure())
	case o.CompactionErr != nil:
		return "", exitcode.New(exitcode.Failure, "compaction failed: "+o.CompactionErr.Error())
	case o.Limit != nil:
		return "", exitcode.New(exitcode.Limit, o.Limit.Error())
	case o.Failed():
		return "", exitcode.New(exitcode.Failure, o.FailureReason())
	}
	if err := p.Skills.Require(); err != nil {
		return "", err // 4, as a gate: --require-skill never activated
	}
	text, err := p.Schema.Answer(agent.AnswerText(o.Final))
	if err != nil {
		return "", exitcode.New(exitcode.Failure, "the answer does not match --output-schema: "+err.Error())
	}
	return text, nil
}
