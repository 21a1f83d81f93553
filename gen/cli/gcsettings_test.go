package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestEmitInResidentMemory: while the emitters run, the collector waits for
// the memory limit (what load left resident, at least minEmitMemory)
// instead of GOGC; afterwards the settings are as they were; and GOGC or
// GOMEMLIMIT in the environment leave them alone.
func TestEmitInResidentMemory(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(73)
	defer debug.SetGCPercent(before)
	beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(beforeLimit)

	sink := make([][]byte, 0, 1024)
	for range cap(sink) {
		sink = append(sink, make([]byte, 64<<10)) // 64 MiB live, so resident exceeds the floor
	}
	restore := emitInResidentMemory()
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(-1)
	if percent != -1 {
		t.Errorf("GOGC while emitting = %d, want -1 (off)", percent)
	}
	if limit < minEmitMemory || limit == math.MaxInt64 {
		t.Errorf("memory limit while emitting = %d, want resident memory, at least %d", limit, minEmitMemory)
	}
	if limit < 64<<20 {
		t.Errorf("memory limit %d is below the 64 MiB this test holds", limit)
	}
	sink = sink[:0]
	restore()
	if p := debug.SetGCPercent(73); p != 73 {
		t.Errorf("GOGC after emitting = %d, want 73 restored", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("memory limit after emitting = %d, want none restored", l)
	}

	t.Setenv("GOGC", "150")
	emitInResidentMemory()()
	if p := debug.SetGCPercent(73); p != 73 {
		t.Errorf("with GOGC set, GOGC was changed to %d", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("with GOGC set, the memory limit was changed to %d", l)
	}
}
