package pgtest

import (
	"os/exec"
	"syscall"
)

// apply makes cmd run as the credential's user, and has the kernel send
// it SIGQUIT (immediate shutdown, which also ends a server's children) if
// the test process dies without stopping it.
func (c *credential) apply(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGQUIT}
	if c != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: c.uid, Gid: c.gid, NoSetGroups: true}
	}
}
