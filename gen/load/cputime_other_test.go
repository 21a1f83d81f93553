//go:build !unix

package load_test

import "time"

// cpuTime returns 0 where the platform has no getrusage: BenchmarkVet then
// reports no x-cue-cpu.
func cpuTime() time.Duration { return 0 }
