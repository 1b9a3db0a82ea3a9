
// abort_bash ends a running bash command (cancelled, no exit code); abort_retry ends the
// pause before a retry, and with it the run, in the provider's error.
func TestRPCAbortBashAndRetry(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, map[string]any{"status": 503, "message": "busy"})
	p := startRPC(t, dir, "--no-session", "--script", script, "--retry-base-delay", "10m")
	p.next()
	p.send(`{"id":"b","type":"bash","command":"echo started; sleep 60"}`)
	// The command has started once get_state is answered after it; then abort it.
	p.call("s", map[string]any{"type": "get_state"})
	p.send(`{"id":"ab","type":"abort_bash"}`)
	bash := p.response("b")
	if !bash.Get("data.cancelled").Bool() || bash.Get("data.exitCode").Exists() {
		t.Errorf("aborted bash: %s", bash.Raw)
	}
	p.response("ab")

	p.call("p", map[string]any{"type": "prompt", "message": "Try"})
	p.event("auto_retry_start")
	p.send(`{"id":"ar","type":"abort_retry"}`)
	var retryEnd gjson.Result
	p.until(func(v gjson.Result) bool {
		if v.Get("type").Str == "auto_retry_end" {
			retryEnd = v
		}
		return v.Get("id").Str == "ar"
	})
	if !retryEnd.Exists() || retryEnd.Get("success").Bool() {
		t.Errorf("no failed auto_retry_end before abort_retry's response: %s", retryEnd.Raw)
	}
	if st := p.call("s2", map[string]any{"type": "get_state"}); st.Get("data.isStreaming").Bool() {
		t.Errorf("still streaming: %s", st.Raw)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}
