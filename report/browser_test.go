package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium is the browser the tests open reports in: $BASE_CONTEXT_CHROMIUM, else Debian's.
func chromium(t *testing.T) string {
	path := os.Getenv("BASE_CONTEXT_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(path); err != nil {
		t.Skipf("no Chromium at %s (install Debian's chromium package, or set BASE_CONTEXT_CHROMIUM): %v", path, err)
	}
	return path
}

// browser starts a headless Chromium, with the flags that keep it off a closed network.
func browser(t *testing.T) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 1400))
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(alloc)
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// watched is what a page did besides rendering: console errors, exceptions, dialogs, and
// requests for anything but the page itself and data: URLs.
type watched struct {
	mu       sync.Mutex
	problems []string
}

func (w *watched) add(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

func watch(t *testing.T, ctx context.Context, pageURL string) *watched {
	w := &watched{}
	dialogs := make(chan struct{}, 16)
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == "error" || e.Type == "warning" {
				w.add("console %s", e.Type)
			}
		case *runtime.EventExceptionThrown:
			w.add("exception: %s", e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				w.add("log %s: %s", e.Entry.Level, e.Entry.Text)
			}
		case *page.EventJavascriptDialogOpening:
			w.add("a dialog: %s", e.Message)
			select {
			case dialogs <- struct{}{}:
			default:
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; u != pageURL && !strings.HasPrefix(u, "data:") {
				w.add("a request for %s", u)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() { // a dialog would hold the page: dismiss it (outside the listener)
		for {
			select {
			case <-ctx.Done():
				return
			case <-dialogs:
				chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{})
			}
		}
	}()
	return w
}

// pageFacts is what the rendered page shows.
type pageFacts struct {
	Verdict, Cost, Exit string
	ToolCalls           int
	Pwned               bool
	ToolsBarShown       bool
}

const factsScript = `({
  Verdict: (document.getElementById('verdict')||{}).textContent||'',
  Cost: (document.getElementById('cost')||{}).textContent||'',
  Exit: (document.getElementById('exit-status')||{}).textContent||'',
  ToolCalls: document.querySelectorAll('#transcript .toolcall').length,
  Pwned: typeof window.pwned !== 'undefined',
  ToolsBarShown: getComputedStyle(document.getElementById('tools-bar')).display !== 'none'
})`

// open renders the report file in the browser, with JavaScript on or off, and keeps a
// screenshot beside the CI's other artifacts.
func open(t *testing.T, ctx context.Context, file string, scripts bool) (pageFacts, *watched) {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	tab, cancelTime := context.WithTimeout(tab, 60*time.Second)
	defer cancelTime()
	url := "file://" + file
	if err := chromedp.Do(tab); err != nil { // the tab, before listening to it
		t.Fatal(err)
	}
	w := watch(t, tab, url)
	setScripts := func(on bool) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on})
			return err
		})
	}
	enable := chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
		return err
	})
	err := chromedp.Do(tab, enable, setScripts(scripts), chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("#summary")),
		setScripts(true)) // to read the page, not to change it
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	facts, err := chromedp.Run(tab, chromedp.Evaluate[pageFacts](factsScript))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	shot, err := chromedp.Run(tab, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	dir := filepath.Join(os.TempDir(), "base-context-report-screenshots")
	if os.MkdirAll(dir, 0o755) == nil {
		name := filepath.Join(dir, strings.TrimSuffix(filepath.Base(file), ".html")+fmt.Sprintf("-js-%v.jpg", scripts))
		if os.WriteFile(name, shot, 0o644) == nil {
			t.Logf("screenshot: %s", name)
		}
	}
	return facts, w
}

// TestReportsInChromium opens reports in a real headless Chromium: the verdict, exit status
// and cost shown, every tool call present, the hostile strings inert, nothing loaded,
// nothing logged as an error; with JavaScript off the summary is there all the same.
func TestReportsInChromium(t *testing.T) {
	ctx := browser(t)
	dir := t.TempDir()
	cases := map[string]string{"hostile": hostile}
	files, _ := filepath.Glob("../testdata/reference/*.jsonl")
	for _, f := range files {
		if !strings.HasSuffix(f, ".session.jsonl") {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases[strings.TrimSuffix(filepath.Base(f), ".jsonl")] = string(b)
		}
	}
	for name, stream := range cases {
		html := render(t, stream, Options{Title: name})
		file := filepath.Join(dir, name+".html")
		if err := os.WriteFile(file, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		wantCalls := strings.Count(html, `<div class="toolcall"`)
		modes := []bool{true}
		if name == "hostile" || name == "b2_tools_parallel" {
			modes = append(modes, false) // JavaScript off: the page reads the same
		}
		for _, scripts := range modes {
			facts, w := open(t, ctx, file, scripts)
			if facts.Verdict == "" || facts.Exit == "" || !strings.HasPrefix(facts.Cost, "$") {
				t.Errorf("%s (scripts %v): verdict %q, exit %q, cost %q shown", name, scripts, facts.Verdict, facts.Exit, facts.Cost)
			}
			if facts.ToolCalls != wantCalls {
				t.Errorf("%s: %d tool calls rendered, want %d", name, facts.ToolCalls, wantCalls)
			}
			if facts.Pwned {
				t.Errorf("%s: a script from the stream ran", name)
			}
			if facts.ToolsBarShown != scripts {
				t.Errorf("%s: the search bar shown %v with scripts %v", name, facts.ToolsBarShown, scripts)
			}
			w.mu.Lock()
			for _, p := range w.problems {
				t.Errorf("%s (scripts %v): %s", name, scripts, p)
			}
			w.mu.Unlock()
		}
	}
}
