package opencode

// SetDebug makes the executors c starts report their readers' decisions to
// f; call it before Start.
func SetDebug(c *Client, f func(format string, args ...any)) { c.debug = f }
