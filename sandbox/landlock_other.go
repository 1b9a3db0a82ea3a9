//go:build !linux

package sandbox

// restrict: there is no Landlock here; Kernel.Require refuses the modes that need it.
func restrict(Spec, int) error { return nil }
