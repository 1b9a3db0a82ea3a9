package cli

import (
	"path/filepath"
	"time"

	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/control"
)

// The full outputs of truncated tool results are kept per session in <home>/outputs/<id>:
// `sessions rm` removes them with the session, and files not written for KeepEnded are
// pruned, as the streams of ended resident runs are.

// outputsRoot is the folder of the sessions' full-output folders.
func outputsRoot(streams *IO) string { return filepath.Join(homeDir(streams), "outputs") }

// outputsDir is the folder of session id's full outputs.
func outputsDir(streams *IO, id string) string { return filepath.Join(outputsRoot(streams), id) }

// pruneOutputs removes the full outputs nobody has written for KeepEnded.
func pruneOutputs(streams *IO) {
	tools.PruneOutputs(outputsRoot(streams), time.Now().Add(-control.KeepEnded))
}
