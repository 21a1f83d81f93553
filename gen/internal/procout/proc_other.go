//go:build !unix

package procout

import (
	"os/exec"
	"syscall"
)

// setGroup does nothing where process groups are not available.
func setGroup(cmd *exec.Cmd) {}

// signalGroup kills the process, whatever sig is: without process groups
// there is no gentler signal to send to it and its children.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) { _ = cmd.Process.Kill() }
