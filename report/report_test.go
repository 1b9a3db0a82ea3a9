package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// render runs the report over stream.
func render(t testing.TB, stream string, opts Options) string {
	t.Helper()
	var out bytes.Buffer
	if _, err := stages.RunSink([]stages.Input{{Name: "test", Reader: strings.NewReader(stream)}}, codec.NewLineWriter(io.Discard), New(&out, opts), stages.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

const hostile = `{"type":"session","version":3,"id":"s-</title><script>alert(1)</script>","timestamp":"2026-12-02T23:14:23.802Z","cwd":"/tmp/<b>x</b>"}
{"type":"agent_start"}
{"type":"turn_start"}
{"type":"message_start","message":{"role":"user","content":[{"type":"text","text":"<script>window.pwned=1</script> </script><img src=x onerror=alert(1)>"}],"timestamp":1796253263500}}
{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"<script>window.pwned=1</script> </script><img src=x onerror=alert(1)>"}],"timestamp":1796253263500}}
{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"See [this](javascript:alert(1)) and <script>window.pwned=2</script> <a href=\"javascript:alert(2)\">x</a> ![i](javascript:alert(3))"},{"type":"toolCall","id":"call_\"><script>","name":"bash","arguments":{"command":"echo '<script>window.pwned=3</script>'"}}],"api":"script","provider":"script","model":"<i>m</i>","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.25}},"stopReason":"toolUse","timestamp":1796253263600}}
{"type":"tool_execution_start","toolCallId":"call_\"><script>","toolName":"bash","args":{"command":"x"}}
{"type":"tool_execution_end","toolCallId":"call_\"><script>","toolName":"bash","result":{"content":[{"type":"text","text":"</pre></details><script>window.pwned=4</script>"}]},"isError":true}
{"type":"message_end","message":{"role":"toolResult","toolCallId":"call_\"><script>","toolName":"bash","content":[{"type":"text","text":"</pre></details><script>window.pwned=4</script>"},{"type":"image","data":"\"><script>","mimeType":"text/html"}],"isError":true,"timestamp":1796253263700}}
{"type":"agent_end","messages":[]}
`

// TestStreamStringsAreInert: nothing from the stream becomes markup, a script or a link
// that runs code; the only script is the page's own.
func TestStreamStringsAreInert(t *testing.T) {
	page := render(t, hostile, Options{})
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("%d <script elements, want the page's own only", n)
	}
	for _, bad := range []string{"javascript:", "<img src=x", "<b>x</b>", "<i>m</i>", `src="data:text/html`} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if tag := regexp.MustCompile(`<[^>]*\bon[a-z]+=`).FindString(page); tag != "" {
		t.Errorf("an event handler in a tag: %s", tag)
	}
	for _, want := range []string{"&lt;script&gt;window.pwned=1&lt;/script&gt;", "&lt;/pre&gt;&lt;/details&gt;", "an image (text/html) not embedded"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestSummary: the verdict, the exit status, the cost and the problems are in the page itself.
func TestSummary(t *testing.T) {
	page := render(t, hostile, Options{Title: "a <title>"})
	for _, want := range []string{
		`<title>a &lt;title&gt;</title>`,
		`id="verdict">Completed</span> exit status <strong id="exit-status">0</strong>`,
		`<dd id="cost">$0.2500</dd>`,
		`<dd id="tokens">10 in · 5 out`,
		`<h2>Problems (1)</h2>`,
		`>tool error</a>: bash: &lt;/pre&gt;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestPolicyHashesMatch: the page's style and script are the ones its policy allows, and
// the policy allows nothing to load.
func TestPolicyHashesMatch(t *testing.T) {
	page := render(t, "", Options{})
	styleText := between(page, "<style>", "</style>")
	scriptText := between(page, "<script>", "</script>")
	if !strings.Contains(policy, hash(styleText)) || !strings.Contains(policy, hash(scriptText)) {
		t.Error("the policy does not allow the page's own style and script")
	}
	if !strings.Contains(policy, "default-src 'none'") || strings.Contains(policy, "unsafe") {
		t.Errorf("policy %q", policy)
	}
}

func between(s, from, to string) string {
	_, s, _ = strings.Cut(s, from)
	s, _, _ = strings.Cut(s, to)
	return s
}

// TestCutAndBudget: an output past --max-embed is cut with a mark saying how much.
func TestCutAndBudget(t *testing.T) {
	big := strings.Repeat("é", 3000) // 6000 bytes
	stream := `{"type":"message_end","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"` + big + `"}],"isError":false,"timestamp":1}}` + "\n"
	page := render(t, stream, Options{MaxEmbed: 1001})
	if !strings.Contains(page, `<p class="cut">cut 5 KB</p>`) {
		t.Errorf("no cut mark: %s", between(page, "<details", "</details>"))
	}
	if strings.Count(page, "é") != 500 {
		t.Errorf("%d characters kept, want 500 (1000 bytes, cut at a character)", strings.Count(page, "é"))
	}
}

// TestEditAsDiff: an edit call shows its lines removed and added, the unchanged ones plain.
func TestEditAsDiff(t *testing.T) {
	stream := `{"type":"message_end","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"edit","arguments":{"path":"a.go","edits":[{"oldText":"a\nb\nc\n","newText":"a\nB\nc\nd\n"}]}}],"api":"script","provider":"script","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1}}` + "\n"
	diff := between(render(t, stream, Options{}), `<pre class="diff">`, `</pre>`)
	if want := "  a\n<del>- b</del><ins>+ B</ins>  c\n<ins>+ d</ins>"; diff != want {
		t.Errorf("diff\n%q\nwant\n%q", diff, want)
	}
}

// TestReferenceStreamsRender: every reference stream, in both forms, makes a page whose
// tool calls and verdict match the stream's.
func TestReferenceStreamsRender(t *testing.T) {
	files, _ := filepath.Glob("../testdata/reference/*.jsonl")
	ran := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".session.jsonl") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ran++
		var verdict bytes.Buffer
		v := stages.NewVerdict(&verdict, stages.VerdictOptions{})
		stages.RunSink([]stages.Input{{Reader: bytes.NewReader(b)}}, codec.NewLineWriter(io.Discard), v, stages.RunOptions{})
		page := render(t, string(b), Options{})
		if want := `id="verdict">` + verdictLabel(v.Summary().Status) + `<`; !strings.Contains(page, want) {
			t.Errorf("%s: the page lacks %s", f, want)
		}
		for _, id := range regexp.MustCompile(`"type":"tool_execution_start","toolCallId":"([^"]+)"`).FindAllStringSubmatch(string(b), -1) {
			if !strings.Contains(page, `id="t-`+id[1]+`"`) {
				t.Errorf("%s: tool call %s missing", f, id[1])
			}
		}
		if !strings.HasSuffix(page, "</html>\n") {
			t.Errorf("%s: the page does not end", f)
		}
	}
	if ran == 0 {
		t.Fatal("no reference streams")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"100": 100, "32KB": 32 << 10, "2 MB": 2 << 20, "1kib": 1024} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1.5MB", "10GB", "x"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// TestRunsMarked: concatenated runs get a section each; a later run of the same session
// (a resume) says so.
func TestRunsMarked(t *testing.T) {
	header := `{"type":"session","version":3,"id":"s1","timestamp":"2026-12-02T23:14:23.802Z","cwd":"/w"}` + "\n"
	other := strings.Replace(header, "s1", "s2", 1)
	page := render(t, header+other+header, Options{})
	if strings.Count(page, `class="run-start"`) != 3 || strings.Count(page, "(resumed)") != 1 || !strings.Contains(page, "<dt>Runs</dt><dd>3 (concatenated streams)</dd>") {
		t.Errorf("runs not marked: %s", page)
	}
}
