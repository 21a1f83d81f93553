//go:build !linux

package pgtest

import "os/exec"

// Debian's layout, which binDir looks for, is Linux's: elsewhere the tests
// skip (or fail in CI) before a server starts, and these only let pgtest
// compile.

func (c *credential) apply(cmd *exec.Cmd) {}

func configureProcess(cmd *exec.Cmd) {}
