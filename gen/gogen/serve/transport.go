package serve

// RequestHash is the Invocation.RequestHash of a call of tool (its name, not
// an alias) with the JSON arguments args, exactly as the callback route
// computes it. Another transport over the same Store (the generated MCP
// package) uses it, so that a call made through one transport and retried
// through the other, with the same session and tool_call_id, is recognised
// as the same call and executed once.
func RequestHash(tool string, args []byte) string { return requestHash(tool, args) }
