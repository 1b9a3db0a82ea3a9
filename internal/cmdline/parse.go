package cmdline

import "github.com/alecthomas/kong"

// Parse parses args as the command line of k, whose default command is defaultCommand: a
// first argument that looks like a mistyped command is refused (CheckCommandTypo), and flags
// may come among the positional arguments (Intersperse).
func Parse(k *kong.Kong, args []string, defaultCommand string) (*kong.Context, error) {
	if err := CheckCommandTypo(k.Model, args, defaultCommand); err != nil {
		return nil, err
	}
	return k.Parse(Intersperse(k.Model, args, defaultCommand))
}
