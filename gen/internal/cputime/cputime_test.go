package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestUsedGrows: spinning for 50 ms of wall time adds processor time, and
// no more than the wall time per CPU.
func TestUsedGrows(t *testing.T) {
	c0, t0 := Used(), time.Now()
	if c0 == 0 {
		t.Skip("the platform does not tell the process's CPU time")
	}
	n := 0
	for time.Since(t0) < 50*time.Millisecond {
		n++
	}
	used, wall := Used()-c0, time.Since(t0)
	if used <= 0 {
		t.Errorf("spinning for %v used %v of CPU (n=%d), want more than 0", wall, used, n)
	}
	if limit := wall * time.Duration(runtime.NumCPU()+1); used > limit {
		t.Errorf("spinning for %v used %v of CPU, more than %v", wall, used, limit)
	}
}
