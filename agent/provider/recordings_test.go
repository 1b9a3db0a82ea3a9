package provider_test

// Real provider streams (testdata/recordings, with their sources in its README), replayed
// over HTTP through each protocol's provider: what comes out must be what the recording
// holds.

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/provider/mockserver"
	"github.com/basecontext/base-context/codec"
)

const recordingsDir = "../../testdata/recordings"

var recordedSignature = regexp.MustCompile(`"thoughtSignature":"([^"]+)"`)

// recordingModel has round prices, so that costs are easy to check by hand: $1 input, $10
// output, $0.10 cache read, $1.25 cache write per million tokens.
var recordingModel = provider.Model{ID: "recorded", Provider: "recorded", MaxTokens: 8192, Reasoning: true,
	Cost: provider.Prices{Input: 1, Output: 10, CacheRead: 0.1, CacheWrite: 1.25}}

// recording is what one recorded body must amount to: the rendered events (see
// renderRecording) and the warnings. status is the HTTP status the body was recorded with
// (0: 200, streamed).
type recording struct {
	status   int
	want     string
	warnings []string
}

// recordings, by protocol directory and file.
var recordings = map[string]map[string]recording{
	provider.APIOpenAICompletions: {
		"openai-gpt-4.1-nano-text.sse": {want: `meta(chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0) text("**Holiday Name:** Harmony Day\n\n**Date:** Celebrated annually"…"uman experiences and mutual respect." [1730 bytes in 300 deltas]) ` +
			`done(stop 16/300/0/0=316 3016.00µ$)`},
		"azure-model-router-text.sse": {want: `meta(chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt) text("Capital of Denmark." in 4 deltas) done(stop 15/78/0/0=93 795.00µ$)`},
		"deepseek-reasoner-tool-call.sse": {want: `meta(cca85624-4056-401f-b220-d77601d1f70d) ` +
			`thinking("The user is asking for the weather in San Francisco. I need "…"on parameter set to \"San Francisco\"." [191 bytes in 39 deltas] sig=reasoning_content) ` +
			`toolCall(call_00_ioIn7yN9p1ZOMNpDLwd4MgAF weather {"location": "San Francisco"}) done(toolUse 19/83/320/0=422 881.00µ$)`},
		"moonshot-kimi-text.sse": {want: `meta(chatcmpl-stream) thinking("Thinking aloud. " in 2 deltas sig=reasoning_content) text("Hello!" in 2 deltas) done(stop 9/12/0/0=21 129.00µ$)`},
		// Issue 17, item 1: thinking and text as content arrays, not JSON pasted into the answer.
		"mistral-magistral-content-array.sse": {want: `meta(a4e29c5b82f94d67b23e108a7c9df6e1) thinking("The user is asking for 2+2. This is basic arithmetic. 2+2=4." in 2 deltas) ` +
			`text("2 + 2 = 4" in 1 deltas) done(stop 10/46/0/0=56 470.00µ$)`},
		"mistral-small-tool-call.sse": {want: `meta(b3999b8c93e04e11bcbff7bcab829667) toolCall(gSIMJiOkT weather {"location": "San Francisco"}) done(toolUse 124/22/0/0=146 344.00µ$)`},
		"groq-tool-call.sse":          {want: `meta(chatcmpl-b610d559-f156-4aca-8827-24b4fe6af54f) toolCall(tk85n1k4m weather {}) done(toolUse 210/15/0/0=225 360.00µ$)`},
		// xAI counts reasoning tokens apart from completion_tokens (total = prompt +
		// completion + reasoning): output adds them.
		"xai-grok-3-mini-reasoning-tool-call.sse": {want: `meta(7027d986-3c59-a37a-9a5f-50713e01c8a6) ` +
			`thinking("First, the user is asking about the weather in San Francisco"…" now, this is the logical next step." [1069 bytes in 227 deltas] sig=reasoning_content) ` +
			`toolCall(call_79382389 weather {"location":"San Francisco"}) done(toolUse 1/253/306/0=560 2561.60µ$)`},
		// Item 2: prompt_tokens without the cached tokens, told apart by total_tokens.
		"constructed-usage-prompt-without-cache.sse": {want: `meta(chatcmpl-7f1c2a9e) text("The test passes now." in 2 deltas) done(stop 14/9/4094/0=4117 513.40µ$)`},
		// Item 4: the usage of a failed response is kept, with its cost.
		"constructed-openrouter-error-with-usage.sse": {want: `meta(gen-1767225600-Xq3bLm0Zr8aPfQk2TnVw) text("Looking at the failing test" in 2 deltas) ` +
			`usage(5120/6/0/0=5126 5180.00µ$) error("502: Provider returned error" final)`},
		// Item 5: a failed response's thinking block keeps its signature.
		"constructed-openrouter-error-after-reasoning.sse": {want: `meta(cca85624-4056-401f-b220-d77601d1f70d) thinking("The user is asking for" in 5 deltas sig=reasoning_content) ` +
			`error("server_error: Provider disconnected" retryable)`},
		// Item 6: the answer is kept, the missing usage said on stderr.
		"constructed-openai-finish-without-usage.sse": {want: `meta(chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0) text("**Holiday Name:** Harmony Day\n\n**Date:** Celebrated annually"…"uman experiences and mutual respect." [1730 bytes in 300 deltas]) done(stop)`,
			warnings: []string{"response chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0 of recorded came without usage (the stream stopped after its finish reason, before the usage chunk and [DONE]): its tokens and cost are unknown and counted as 0"}},
	},
	provider.APIOpenAIResponses: {
		"azure-responses-text.sse": {want: `meta(resp_02ce8deeb6197db200698c5196e9588197a572bbea62d38cd1) text("Hello" in 1 deltas sig=msg_02ce8deeb619…[54]) ` +
			`done(stop 11/11/0/0=22 121.00µ$)`},
		"azure-responses-tool-call.sse": {want: `meta(resp_04041325ab8ae30400698c519fb7fc81979972618138fc336d) ` +
			`toolCall(call_H5DxLSFnsGhiROnUiDHmgyc8|fc_04041325ab8ae30400698c51c5468c8197a395f18875a5339f weather {"location":"San Francisco"}) done(toolUse 45/24/0/0=69 285.00µ$)`},
		"openai-gpt-5-nano-insufficient-quota.sse": {want: `meta(resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424) ` +
			`error("insufficient_quota: You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors." final)`},
	},
	provider.APIAnthropicMessages: {
		"anthropic-sonnet-4-5-text.sse": {want: `meta(msg_01QC4g3HwBThD4BaNtBckFDJ) usage(12/1/0/0=13 22.00µ$) ` +
			`text("Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?" in 6 deltas) done(stop 12/30/0/0=42 312.00µ$)`},
		"anthropic-tool-no-args.sse": {want: `meta(msg_01GE2RKp1VYsPzdFs3sS9z5S) usage(565/7/0/0=572 635.00µ$) ` +
			`text("I'll update the issue list for you." in 2 deltas) toolCall(toolu_01QE1WLsSVp5hy5Q3GmGTmjP updateIssueList ) done(toolUse 565/48/0/0=613 1045.00µ$)`},
		// Item 3: a refusal keeps the provider's category and explanation.
		"anthropic-refusal-stop-details.sse": {want: `meta(msg_01RefusalStreamAbcdefghijk) usage(18/1/0/0=19 28.00µ$) usage(18/5/0/0=23 68.00µ$) ` +
			`error("refusal: cyber: This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy." final)`},
	},
	provider.APIGemini: {
		"gemini-3-pro-text.sse": {want: `meta(bH6LaZW8Fp_3nsEPqtaSwQ4) text("There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y" in 2 deltas sig=EqsFCqgFAb4+9vvt…[916]) ` +
			`done(stop 9/208/0/0=217 2089.00µ$)`},
		"gemini-3-pro-reasoning.sse": {want: `meta(M3iLaY-AI7zTxN8P3Piw4Qg) text("There are **3** \"r\"s in strawberry.\n\nSt**r**awbe**rr**y" in 2 deltas sig=EpAICo0IAb4+9vuk…[1392]) ` +
			`done(stop 9/325/0/0=334 3259.00µ$)`},
		"gemini-3-pro-tool-call.sse": {want: `meta(QHiLaa6LBrb8vdIPoNztsAg) toolCall(call_QHiLaa6LBrb8vdIPoNztsAg_1 weather {"location":"San Francisco"} sig=EpEgCo4gAb4+9vvW…[5488]) ` +
			`done(toolUse 29/819/0/0=848 8219.00µ$)`},
		"gemini-tool-call-signature.sse": {want: `meta(b36LacjwM668nsEP2tbsgQQ) toolCall(call_b36LacjwM668nsEP2tbsgQQ_1 weather {"location":"San Francisco"} sig=EqUCCqICAb4+9vsh…[396]) ` +
			`done(toolUse 29/60/0/0=89 629.00µ$)`},
		"gemini-3.7-flash-prompt-blocked.sse": {want: `meta(EXCPatOAKMrQjMcPteHVmQo) usage(9/0/0/0=9 9.00µ$) ` +
			`error("PROHIBITED_CONTENT: the prompt was blocked by the provider's safety filters" final)`},
		"gemini-429-retry-info.json": {status: 429, want: `error("429 RESOURCE_EXHAUSTED: You exceeded your current quota, please check your plan." retryable after=34.4s)`},
		"gemini-2.5-flash-400.json":  {status: 400, want: `error("400 INVALID_ARGUMENT: Penalty is not enabled for models/gemini-2.5-flash" final)`},
		"constructed-gemini-parallel-calls-cached.sse": {want: `meta(c0nStRuCtEdPaRaLlEl1) thinking("I'll check both files." in 1 deltas) ` +
			`toolCall(call_c0nStRuCtEdPaRaLlEl1_1 read {"path":"go.mod"} sig=Q29uc3RydWN0ZWQgc2lnbmF0dXJlIDE=) toolCall(call_c0nStRuCtEdPaRaLlEl1_2 read {"path":"README.md"}) ` +
			`done(toolUse 34/84/4096/0=4214 1283.60µ$)`},
		"constructed-gemini-safety-finish.sse": {want: `meta(c0nStRuCtEdSaFeTy001) text("Here is how" in 1 deltas) usage(21/3/0/0=24 51.00µ$) ` +
			`error("SAFETY: blocked for HARM_CATEGORY_DANGEROUS_CONTENT" final)`},
		"constructed-gemini-stream-error.sse": {want: `meta(c0nStRuCtEdErRoR0001) text("The first" in 1 deltas) usage(12/2/0/0=14 32.00µ$) ` +
			`error("UNAVAILABLE: The model is overloaded. Please try again later." retryable)`},
	},
}

// replayRecording serves body with status to the protocol's provider and plays one request.
func replayRecording(t *testing.T, api string, status int, body []byte) ([]provider.Event, []string, error) {
	t.Helper()
	srv := httptest.NewServer(mockserver.Recording(body, status))
	t.Cleanup(srv.Close)
	var warnings []string
	ep := provider.Endpoint{BaseURL: srv.URL, APIKey: "k", Warn: func(msg string) { warnings = append(warnings, msg) }}
	if api == provider.APIOpenAICompletions {
		ep.BaseURL += "/v1"
	}
	p, err := provider.ForAPI(api, ep)
	if err != nil {
		t.Fatal(err)
	}
	req := completionsRequest()
	req.Model = recordingModel
	req.Model.API = api
	evs, err := playEvents(context.Background(), p, req)
	return evs, warnings, err
}

func TestRecordings(t *testing.T) {
	for api, files := range recordings {
		found, _ := filepath.Glob(filepath.Join(recordingsDir, api, "*"))
		var names []string
		for _, f := range found {
			names = append(names, filepath.Base(f))
		}
		sort.Strings(names)
		if len(names) != len(files) {
			t.Errorf("%s holds %d recordings (%s), the table %d: every recording is checked", api, len(names), strings.Join(names, ", "), len(files))
		}
		for name, rec := range files {
			t.Run(api+"/"+name, func(t *testing.T) {
				body, err := os.ReadFile(filepath.Join(recordingsDir, api, name))
				if err != nil {
					t.Fatal(err)
				}
				evs, warnings, err := replayRecording(t, api, rec.status, body)
				completionsCollect(t, evs, err) // well formed
				if got := renderRecording(evs, err); got != rec.want {
					t.Errorf("\n got %s\nwant %s", got, rec.want)
				}
				if strings.Join(warnings, "\n") != strings.Join(rec.warnings, "\n") {
					t.Errorf("warnings %q, want %q", warnings, rec.warnings)
				}
				// Every thoughtSignature of a Gemini recording comes out exactly as it was
				// sent: it goes back to the server unchanged.
				sigs := map[string]bool{}
				for _, e := range evs {
					if e.Kind == provider.BlockEnd && e.Signature != "" {
						sigs[e.Signature] = true
					}
				}
				for _, m := range recordedSignature.FindAllSubmatch(body, -1) {
					if !sigs[string(m[1])] {
						t.Errorf("signature %.20s… of the recording is not in the events", m[1])
					}
				}
			})
		}
	}
}

// renderRecording renders what a response amounts to, block by block: its text (quoted;
// a long one as its start and end with its length), how many deltas brought it, its
// signature (a long one as its start and length); usage reported on the way (what a failed
// response keeps), the finish with usage and cost, or the error.
func renderRecording(evs []provider.Event, err error) string {
	type block struct {
		kind, id, name, sig string
		text                strings.Builder
		deltas              int
	}
	var out []string
	blocks := map[int]*block{}
	var order []int
	flushed := map[int]bool{}
	flush := func(upTo int) {
		for _, n := range order {
			if flushed[n] || n > upTo {
				continue
			}
			flushed[n] = true
			b := blocks[n]
			text := b.text.String()
			switch b.kind {
			case "toolCall":
				s := fmt.Sprintf("toolCall(%s %s %s", b.id, b.name, text)
				if b.sig != "" {
					s += " sig=" + shortSig(b.sig)
				}
				out = append(out, s+")")
			default:
				s := b.kind + "(" + shortText(text, b.deltas)
				if b.sig != "" {
					s += " sig=" + shortSig(b.sig)
				}
				out = append(out, s+")")
			}
		}
	}
	usage := func(prefix string, u codec.Usage) string {
		return fmt.Sprintf("%s%d/%d/%d/%d=%d %.2fµ$)", prefix, u.Input, u.Output, u.CacheRead, u.CacheWrite, u.TotalTokens, u.Cost.Total*1e6)
	}
	for _, e := range evs {
		switch e.Kind {
		case provider.Metadata:
			if e.ResponseID != "" {
				out = append(out, "meta("+e.ResponseID+")")
			}
			if e.HasUsage {
				flush(1 << 30)
				out = append(out, usage("usage(", e.Usage))
			}
		case provider.BlockStart:
			blocks[e.Block] = &block{kind: e.BlockKind, id: e.ToolCallID, name: e.ToolName}
			order = append(order, e.Block)
		case provider.BlockDelta:
			blocks[e.Block].text.WriteString(e.Delta)
			blocks[e.Block].deltas++
		case provider.BlockEnd:
			blocks[e.Block].sig = e.Signature
		case provider.Done:
			flush(1 << 30)
			if e.HasUsage {
				out = append(out, usage("done("+e.StopReason+" ", e.Usage))
			} else {
				out = append(out, "done("+e.StopReason+")")
			}
		}
	}
	flush(1 << 30)
	if err != nil {
		var pe *provider.Error
		if errors.As(err, &pe) {
			s := fmt.Sprintf("error(%q ", pe.Error())
			if pe.Retryable {
				s += "retryable"
			} else {
				s += "final"
			}
			if pe.RetryAfter > 0 {
				s += " after=" + pe.RetryAfter.String()
			}
			out = append(out, s+")")
		} else {
			out = append(out, fmt.Sprintf("error(%T %v)", err, err))
		}
	}
	return strings.Join(out, " ")
}

func shortText(s string, deltas int) string {
	if len(s) <= 120 {
		return fmt.Sprintf("%q in %d deltas", s, deltas)
	}
	q := fmt.Sprintf("%q", s[:60])
	end := fmt.Sprintf("%q", s[len(s)-36:])
	return fmt.Sprintf("%s…%s [%d bytes in %d deltas]", q, end, len(s), deltas)
}

func shortSig(s string) string {
	if len(s) <= 40 {
		return s
	}
	return fmt.Sprintf("%s…[%d]", s[:16], len(s))
}
