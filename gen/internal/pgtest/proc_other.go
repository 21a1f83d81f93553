//go:build !linux

package pgtest

import (
	"errors"
	"os/exec"
	"runtime"
)

// supported reports whether pgtest runs here: it relies on Linux process
// attributes and Debian's layout.
func supported() error {
	return errors.New("pgtest runs PostgreSQL on Linux only, not " + runtime.GOOS)
}

func (c *credential) apply(cmd *exec.Cmd) {}

func configureProcess(cmd *exec.Cmd) {}
