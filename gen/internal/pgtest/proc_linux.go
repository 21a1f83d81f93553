package pgtest

import (
	"os"
	"os/exec"
	"syscall"
)

// supported reports whether pgtest runs here.
func supported() error { return nil }

// apply makes cmd run as the credential's user.
func (c *credential) apply(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if c != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: c.uid, Gid: c.gid, NoSetGroups: true}
	}
}

// configureProcess puts the server in its own process group, away from the
// terminal's signals, and has the kernel send it SIGQUIT (immediate
// shutdown, which also ends its children) if the test process dies
// without stopping it.
func configureProcess(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
}

// interrupt asks the server for a fast shutdown.
func interrupt(cmd *exec.Cmd) error {
	return cmd.Process.Signal(os.Interrupt)
}
