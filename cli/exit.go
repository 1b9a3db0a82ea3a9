package cli

import (
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/signals"
)

// The exit statuses, their meanings and the error that carries one are package exitcode's
// (docs/running.md "Exit status"): a package that knows how its failure ends the process
// returns an exitcode.Error, and the commands here do too.

// signalErr is the error of a command ended by the signal w received, nil while none has.
func signalErr(w *signals.Watch) error { return exitcode.SignalError(w.Received()) }
