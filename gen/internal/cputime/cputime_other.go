//go:build !unix

package cputime

import "time"

// Used returns 0: the platform has no getrusage.
func Used() time.Duration { return 0 }
