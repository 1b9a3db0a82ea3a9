package provider_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/provider/mockserver"
)

// A server that goes silent, after its headers or after a chunk, ends the response with a
// transient error naming the stream-idle timeout, over every wire protocol; so does one that
// accepts the connection and never answers.
func TestStreamIdleTimeout(t *testing.T) {
	const idle = 200 * time.Millisecond
	protocols := []struct {
		name string
		make func(ep provider.Endpoint, url string) provider.Provider
		req  provider.Request
	}{
		{"completions", func(ep provider.Endpoint, url string) provider.Provider {
			ep.BaseURL = url + "/v1"
			return provider.NewOpenAICompletions(ep)
		}, completionsRequest()},
		{"responses", func(ep provider.Endpoint, url string) provider.Provider {
			ep.BaseURL = url + "/v1"
			return provider.NewOpenAIResponses(ep)
		}, responsesRequest()},
		{"anthropic", func(ep provider.Endpoint, url string) provider.Provider {
			ep.BaseURL = url
			return provider.NewAnthropic(ep)
		}, anthropicRequest()},
		{"gemini", func(ep provider.Endpoint, url string) provider.Provider {
			ep.BaseURL = url + "/v1beta"
			return provider.NewGemini(ep)
		}, geminiRequest()},
	}
	silent, err := mockserver.Silent()
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	for _, p := range protocols {
		for _, entry := range []string{"", `{"text":["a","b"],"stall_after":0}`, `{"text":["a","b"],"stall_after":1}`} {
			url := silent.URL
			if entry != "" {
				s, _ := loadScript(t, []byte(`{"responses":[`+entry+`]}`))
				srv := mockserver.New(s)
				defer srv.Close()
				url = srv.URL
			}
			// The test's own deadline only turns a hang into a failure.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, err := playEvents(ctx, p.make(provider.Endpoint{APIKey: "k", StreamIdleTimeout: idle}, url), p.req)
			cancel()
			var perr *provider.Error
			if !errors.As(err, &perr) || !perr.Retryable || !strings.Contains(perr.Message, "no data from the server for 200ms (--stream-idle-timeout)") {
				t.Errorf("%s %q: got %T %v, want a transient error naming the timeout", p.name, entry, err, err)
			}
		}
	}
}
