// Command base-context is a coding agent whose interface is a JSON-lines event stream.
package main

import (
	"os"

	"github.com/basecontext/base-context/cli"
)

func main() { os.Exit(cli.Main()) }
