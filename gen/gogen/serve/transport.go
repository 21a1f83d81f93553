package serve

import (
	"context"
	"crypto/sha256"
)

// RequestHash is the Invocation.RequestHash of a call of tool (its name, not
// an alias) with the JSON arguments args, exactly as the callback route
// computes it: two calls have the same hash when JSON.parse reads their
// args as deep-equal values (see requestHash). Another transport over the
// same Store (the generated MCP package) uses it, so that a call made
// through one transport and retried through the other, with the same
// session and tool_call_id, is recognised as the same call and executed
// once. Args that are not one JSON object nested at most MaxArgsDepth deep
// are hashed as their bytes.
func RequestHash(tool string, args []byte) string {
	sum, ok := digestObject(args, MaxArgsDepth)
	if !ok {
		sum = sha256.Sum256(args)
	}
	return requestHash(tool, sum)
}

// CheckSessionID returns what is wrong with a session id under the
// callback route's limits (1 to MaxSessionIDLength bytes of Unicode text
// without control characters), or "". Another transport checks its ids
// with it and CheckToolCallID before the Store sees them, so that both
// transports refuse the same ids whatever the Store.
func CheckSessionID(id string) string {
	return checkID("the session id", id, MaxSessionIDLength, "MaxSessionIDLength")
}

// CheckToolCallID returns what is wrong with a tool_call_id under the
// callback route's limits (1 to MaxToolCallIDLength bytes of Unicode text
// without control characters), or "".
func CheckToolCallID(id string) string {
	return checkID("tool_call_id", id, MaxToolCallIDLength, "MaxToolCallIDLength")
}

// StoreCounter counts, for another transport's CallEvent, the store
// operations of one call (retries included) and the last store error it
// met, as the callback route counts its own.
type StoreCounter struct{ st storeStats }

// CountStore returns ctx carrying a new StoreCounter: MemoryStore and
// SQLStore count the operations made with that context (or one derived
// from it) on it.
func CountStore(ctx context.Context) (context.Context, *StoreCounter) {
	c := &StoreCounter{}
	return withStoreStats(ctx, &c.st), c
}

// Note records a store error the transport met itself (a Store that does
// not count its own operations still has its errors seen).
func (c *StoreCounter) Note(err error) { c.st.note(err) }

// Attempts is the number of store operations counted.
func (c *StoreCounter) Attempts() int { return int(c.st.attempts.Load()) }

// Err is the last store error counted or noted, or nil.
func (c *StoreCounter) Err() error {
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	return c.st.err
}
