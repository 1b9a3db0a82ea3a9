package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
)

// chunkLog wraps a provider and records, in one log with the agent's emits and flushes, where
// each provider chunk begins.
type chunkLog struct {
	provider.Provider
	mu  *sync.Mutex
	log *[]string
}

func (p *chunkLog) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) error {
	return p.Provider.Stream(ctx, req, func(e provider.Event) {
		p.mu.Lock()
		*p.log = append(*p.log, "chunk")
		p.mu.Unlock()
		emit(e)
	})
}

// The agent flushes its output once after the events of each provider chunk that made any
// (never in the middle of one), and after each event it emits outside a chunk, so that an
// output writer that batches shows every chunk as it arrives with as few writes as the
// chunks allow.
func TestFlushAfterEachChunkNotEachEvent(t *testing.T) {
	var mu sync.Mutex
	var log []string
	ag, _, s := testAgent(t, `{"responses":[{"text":["Hel","lo ","world"],"thinking":["hm"]}]}`, Config{})
	ag.cfg.Provider = &chunkLog{Provider: s, mu: &mu, log: &log}
	ag.cfg.Emit = func(e codec.Event) error {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, e.EventType())
		return nil
	}
	ag.cfg.Flush = func() error {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, "flush")
		return nil
	}
	ag.Prompt(context.Background(), userText("go"))

	joined := strings.Join(log, " ")
	chunks, flushes, events := 0, 0, 0
	inChunk, sinceFlush := false, 0
	for i, entry := range log {
		switch entry {
		case "chunk":
			if inChunk && sinceFlush > 0 {
				t.Fatalf("entry %d: a chunk's events were not flushed before the next chunk: %s", i, joined)
			}
			chunks++
			inChunk, sinceFlush = true, 0
		case "flush":
			flushes++
			if sinceFlush == 0 {
				t.Fatalf("entry %d: a flush with nothing new: %s", i, joined)
			}
			inChunk, sinceFlush = false, 0
		default:
			events++
			sinceFlush++
			if !inChunk && i+1 < len(log) && log[i+1] != "flush" {
				t.Fatalf("entry %d: %s outside a chunk not flushed at once: %s", i, entry, joined)
			}
		}
	}
	if sinceFlush > 0 {
		t.Fatalf("the last events were not flushed: %s", joined)
	}
	if chunks < 5 || flushes > events {
		t.Fatalf("%d chunks, %d events, %d flushes: %s", chunks, events, flushes, joined)
	}
}
