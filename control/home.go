package control

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/basecontext/base-context/agent/tools"
)

// Home is base-context's own folder: $BASE_CONTEXT_HOME, else ~/.base-context. It holds the
// settings, models.json, the saved sessions, the run registry and the tools' full outputs.
type Home string

// HomeOf is the home the environment getenv names. Without one (no HOME), it is a private
// folder of the temporary directory, never the working directory, where sessions would end
// up committed with the project: a --no-session run registers there, and what keeps
// sessions refuses to start (HasHome).
func HomeOf(getenv func(string) string) Home {
	if h := getenv("BASE_CONTEXT_HOME"); h != "" {
		return Home(h)
	}
	if home := userHome(getenv); home != "" {
		return Home(filepath.Join(home, ".base-context"))
	}
	return Home(filepath.Join(os.TempDir(), fmt.Sprintf("base-context-%d", os.Getuid())))
}

// HasHome reports whether getenv names a home folder of the user's.
func HasHome(getenv func(string) string) bool {
	return getenv("BASE_CONTEXT_HOME") != "" || userHome(getenv) != ""
}

// userHome is the user's home folder, "" when it is unknown.
func userHome(getenv func(string) string) string {
	if runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		return getenv("HOME") // what os.UserHomeDir reads, through the injected environment
	}
	home, _ := os.UserHomeDir()
	return home
}

// Sessions is where sessions are saved unless --session-dir says otherwise.
func (h Home) Sessions() string { return filepath.Join(string(h), "sessions") }

// Registry is the folder of the run registry.
func (h Home) Registry() string { return filepath.Join(string(h), "run") }

// Logs is the folder of the logs of the processes a run starts (MCP servers' stderr).
func (h Home) Logs() string { return filepath.Join(string(h), "logs") }

// Models is the user's models file.
func (h Home) Models() string { return filepath.Join(string(h), "models.json") }

// The full outputs of truncated tool results are kept per session in <home>/outputs/<id>:
// `sessions rm` removes them with the session, and files not written for KeepEnded are
// pruned, as the streams of ended resident runs are.

// Outputs is the folder of session id's full outputs.
func (h Home) Outputs(id string) string { return filepath.Join(string(h), "outputs", id) }

// PruneOutputs removes the full outputs nobody has written for KeepEnded.
func (h Home) PruneOutputs() {
	tools.PruneOutputs(filepath.Join(string(h), "outputs"), time.Now().Add(-KeepEnded))
}

// WorkDir is the directory a run works in: dir (relative to the process's working
// directory), else the process's own. An error that is not the process's is dir's.
func WorkDir(dir string) (string, error) {
	wd, err := os.Getwd()
	if err != nil || dir == "" {
		return wd, err
	}
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(wd, abs)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", &DirError{err}
	}
	if !st.IsDir() {
		return "", &DirError{fmt.Errorf("%s is not a directory", dir)}
	}
	return filepath.Clean(abs), nil
}

// DirError is why the directory given to WorkDir cannot be worked in.
type DirError struct{ Err error }

func (e *DirError) Error() string { return e.Err.Error() }
func (e *DirError) Unwrap() error { return e.Err }
