// Package cputime tells benchmarks the processor time their process has
// used: on a machine shared with other work, the CPU an operation costs
// varies less than its wall time.
package cputime
