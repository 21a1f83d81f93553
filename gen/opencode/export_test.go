package opencode

// SetDebugHook makes the executors' readers report their decisions to f;
// nil stops it. Set it before any executor starts.
func SetDebugHook(f func(format string, args ...any)) { debugHook = f }
