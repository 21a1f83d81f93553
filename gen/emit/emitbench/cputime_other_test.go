//go:build !unix

package emitbench_test

import "time"

// cpuTime returns 0 where the platform has no getrusage: BenchmarkEmitters
// then reports no cpu-ns/op.
func cpuTime() time.Duration { return 0 }
