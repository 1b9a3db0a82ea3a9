package cli

// StatusFlags control the status line of text mode on stderr.
type StatusFlags struct {
	Verbose bool `group:"output" xor:"status-line" help:"Show progress on stderr (model calls, tools, retries, compaction) even when stderr is not a terminal, and in JSON mode; one line per change when stderr is not a terminal."`
	Quiet   bool `group:"output" xor:"status-line" help:"No status line on stderr, even when it is a terminal."`
}
