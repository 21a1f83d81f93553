package pgtest

import (
	"os/exec"
	"syscall"
)

// apply makes cmd run as the credential's user.
func (c *credential) apply(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if c != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: c.uid, Gid: c.gid, NoSetGroups: true}
	}
}

// configureProcess has the kernel send the server SIGQUIT (immediate
// shutdown, which also ends its children) if the test process dies
// without stopping it.
func configureProcess(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
}
