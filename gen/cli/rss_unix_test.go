//go:build unix

package cli

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS returns the peak resident memory of an exited process, in KiB
// (getrusage's ru_maxrss is KiB on Linux and the BSDs, bytes on macOS).
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
