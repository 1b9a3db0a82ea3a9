package signals

import "testing"

// A nil watch, a command's that has none, is never cancelled and has received nothing.
func TestNilWatch(t *testing.T) {
	var w *Watch
	if w.Context().Done() != nil || w.Received() != nil {
		t.Error("a nil watch is cancelled")
	}
	w.Stop()
}
