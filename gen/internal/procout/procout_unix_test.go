//go:build unix

package procout

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopKillsTheGroup: a process that ignores the signal is killed after
// the grace period, and so is the child it spawned, which shares its
// process group.
func TestStopKillsTheGroup(t *testing.T) {
	var out SyncBuffer
	cmd := exec.Command("sh", "-c", `trap "" TERM; sleep 60 & echo child $!; wait`)
	// Wait returns a second after the kill even if the child, holding the
	// output pipe, survived it.
	cmd.WaitDelay = time.Second
	rest, proc, err := Start(cmd, &out, "child ", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(rest)
	if err != nil {
		t.Fatalf("child pid %q: %v", rest, err)
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	err = proc.Stop(syscall.SIGTERM, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "was killed") {
		t.Errorf("Stop of a process that ignores SIGTERM: %v, want that it was killed", err)
	}
	// The killed child is gone once its new parent has reaped it.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(child, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the child %d outlived its group's kill", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
