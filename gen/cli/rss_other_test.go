//go:build !unix

package cli

import "os"

// peakRSS returns 0 where the platform does not report a process's peak
// resident memory through getrusage; the benchmark then reports 0 MB.
func peakRSS(*os.ProcessState) int64 { return 0 }
