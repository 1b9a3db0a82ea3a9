package agent

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
)

func TestOfferIsRefusedOnceThePromptHasEnded(t *testing.T) {
	ag, _, _ := testAgent(t, `{"responses":[{"text":"one"},{"text":"two"}]}`, Config{})
	// Before the prompt: accepted, delivered as a follow-up.
	if err := ag.Offer(false, "queued early"); err != nil {
		t.Fatalf("offer before the prompt: %v", err)
	}
	out := ag.Prompt(context.Background(), userText("go"))
	if messageText(out.Final) != "two" {
		t.Fatalf("final %q, want the follow-up's answer", messageText(out.Final))
	}
	// After it: nothing would take the message, so the sender is told.
	for _, steer := range []bool{true, false} {
		if err := ag.Offer(steer, "too late"); !errors.Is(err, ErrQueueEnded) {
			t.Fatalf("offer (steer %v) after the prompt: %v, want ErrQueueEnded", steer, err)
		}
	}
	if steer, follow := ag.Queued(); len(steer)+len(follow) != 0 {
		t.Fatalf("refused messages were queued: %v %v", steer, follow)
	}
}

// Every message Offer accepts while a prompt runs is delivered, however close to the
// prompt's end it arrives: the end is decided under the queue's lock. A sender offers a
// follow-up a little after each agent_end, some time around the prompt's decision to stop.
func TestEveryAcceptedOfferIsDelivered(t *testing.T) {
	const responses = 50
	script := `{"responses":[` + strings.Repeat(`{"text":"ok"},`, responses) + `{"text":"ok"}]}`
	for round := 0; round < 300; round++ {
		ag, rec, _ := testAgent(t, script, Config{})
		ends := make(chan struct{}, responses+1)
		emit := ag.cfg.Emit
		ag.cfg.Emit = func(e codec.Event) error {
			if _, ok := e.(*codec.AgentEnd); ok {
				ends <- struct{}{}
			}
			return emit(e)
		}
		accepted := make(chan int)
		go func() {
			n := 0
			for range ends {
				for i := rand.IntN(2000); i > 0; i-- { // land anywhere around the decision
					runtime.Gosched()
				}
				if n == responses-1 || ag.Offer(false, "more") != nil {
					break
				}
				n++
			}
			accepted <- n
		}()
		out := ag.Prompt(context.Background(), userText("go"))
		close(ends)
		n := <-accepted
		if out.Failed() {
			t.Fatalf("round %d: the run failed: %+v", round, out.Final)
		}
		delivered := 0
		for _, e := range eventsOf[*codec.MessageEnd](rec) {
			if u, ok := e.Message.(*codec.UserMessage); ok && messageText(u) == "more" {
				delivered++
			}
		}
		if delivered != n {
			t.Fatalf("round %d: %d messages accepted, %d delivered", round, n, delivered)
		}
	}
}
