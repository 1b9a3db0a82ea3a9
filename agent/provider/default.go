package provider

import _ "embed"

// defaultScript is what the scripted provider plays when no script is given, so that the
// agent runs offline on a fresh machine: it lists the working directory and answers.
//
//go:embed default-script.json
var defaultScript []byte

// DefaultScript returns the embedded script.
func DefaultScript() (*Script, error) { return ParseScript(defaultScript) }
