//go:build !linux

package pgtest

import "os/exec"

// Debian's layout, which binDir looks for, is Linux's: elsewhere the tests
// skip (or fail in CI) before a server starts, and this only lets pgtest
// compile.

func (c *credential) apply(cmd *exec.Cmd) {}
