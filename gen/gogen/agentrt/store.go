package agentrt

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"time"
)

// Invocation identifies one tool call for a Store. The idempotency key is
// (SessionID, ToolCallID): a tool_call_id is only ever compared within its
// session, so one sandbox cannot read another session's results.
type Invocation struct {
	SessionID string
	// OrganizationID comes from the token's claims (recorded, not keyed).
	OrganizationID string
	// Tool is the tool's name (not the alias the caller used).
	Tool       string
	ToolCallID string
	// RequestHash identifies the call's content (tool and arguments); a
	// key reused with another hash is ErrConflict.
	RequestHash string
}

// ErrConflict is what Store.Claim returns when the tool_call_id was used
// before in the session for a call with other content.
var ErrConflict = errors.New("tool_call_id reused for a different call")

// Store makes tool calls idempotent by tool_call_id. Implementations must
// be safe for concurrent use.
type Store interface {
	// Claim either claims inv for execution — done is false, and the
	// caller must execute the call and then Complete it — or returns the
	// result of the execution of an earlier call with the same key (done
	// is true). While another call with the key executes, Claim waits for
	// it (until ctx ends). It returns ErrConflict for a key reused with
	// another RequestHash.
	Claim(ctx context.Context, inv Invocation) (res Result, done bool, err error)
	// Complete records the result of a claimed call and hands it to the
	// calls waiting for it. It returns within the store's own deadline; a
	// store that could not record res by then may keep it and record it
	// later (SQLStore does), and says so in its error.
	Complete(ctx context.Context, inv Invocation, res Result) error
}

// storeCounter counts, for a call's CallEvent, the store operations of
// the call (retries included) and the last store error it met.
type storeCounter struct {
	attempts atomic.Int64
	err      atomic.Pointer[error]
}

type storeCounterKey struct{}

// noteStoreAttempt counts one store operation of ctx's call, and its error.
func noteStoreAttempt(ctx context.Context, err error) {
	c, _ := ctx.Value(storeCounterKey{}).(*storeCounter)
	if c == nil {
		return
	}
	c.attempts.Add(1)
	if err != nil {
		c.note(err)
	}
}

// note records err as the call's last store error. The pointer stored is
// to note's own err, so that only a call that meets an error allocates
// one (noteStoreAttempt's err, its address taken, would be allocated at
// every store operation).
func (c *storeCounter) note(err error) { c.err.Store(&err) }

type invocationKey struct{ session, toolCallID string }

// DefaultMaxEntries is MemoryStore's cap on the completed results it keeps
// when MemoryStore.MaxEntries is zero: at about 600 bytes each (a short
// result), about 60 MB.
const DefaultMaxEntries = 100_000

// MemoryStore is the default Store: in-flight calls and completed results
// in this process's memory. A completed result is kept for Retention (from
// its completion) and while fewer than MaxEntries completed results are
// kept: beyond the cap the oldest completed result is forgotten first. A
// call in flight is never forgotten (the calls in flight are bounded by the
// requests being served). A call repeated after its result was forgotten
// executes again, and so does any call after the process restarts (use
// SQLStore for that). The memory of forgotten results is returned: the
// store's map and queue shrink when they empty.
//
// The zero value is ready to use.
type MemoryStore struct {
	// Retention is how long a completed result is kept; 0 means five
	// minutes. A generated package's NewMemoryStore, and the route's
	// store when RouteConfig.Store is nil, keep results for the contract's
	// callback.retention_ms.
	Retention time.Duration
	// MaxEntries caps the completed results kept; 0 means
	// DefaultMaxEntries.
	MaxEntries int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu    sync.Mutex
	calls map[invocationKey]*storeCall
	// peak is the most calls the map has held since it was last rebuilt.
	peak int
	// expiry queues the keys of completed calls in completion order, which is also
	// their expiry and eviction order; head is the index of its first.
	expiry []memoryExpiry
	head   int
}

// storeCall is a call a store of this process is claiming, executing or
// waiting on.
type storeCall struct {
	hash string
	done chan struct{}
	// res and ok are set before done closes: ok when res is the call's
	// result.
	res Result
	ok  bool
	// token (SQLStore) is the claim's lease_owner: this instance's owner
	// ID, "/", and a number unique in the process.
	token string
	// stop (SQLStore), for a claimed call, closes once its result is
	// recorded (or can no longer be); it ends the lease's renewal.
	stop chan struct{}
}

// wait waits for c to end, for a claim of its key with the request hash
// hash; ok reports that res is c's result.
func (c *storeCall) wait(ctx context.Context, hash string) (res Result, ok bool, err error) {
	if c.hash != hash {
		return Result{}, false, ErrConflict
	}
	select {
	case <-c.done:
		return c.res, c.ok, nil
	case <-ctx.Done():
		return Result{}, false, ctx.Err()
	}
}

type memoryExpiry struct {
	key invocationKey
	at  time.Time
}

// shrinkMin is the size under which MemoryStore does not bother to return
// the memory of its map and queue.
const shrinkMin = 1024

// defaultRetention is MemoryStore's retention when Retention is zero.
const defaultRetention = 5 * time.Minute

func (s *MemoryStore) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// sweepLocked forgets the results older than the retention and the oldest
// beyond the cap, and returns the memory of a map or queue that emptied.
func (s *MemoryStore) sweepLocked(now time.Time) {
	retention, limit := cmp.Or(max(s.Retention, 0), defaultRetention), cmp.Or(max(s.MaxEntries, 0), DefaultMaxEntries)
	cut := now.Add(-retention)
	for s.head < len(s.expiry) {
		e := s.expiry[s.head]
		if e.at.After(cut) && len(s.expiry)-s.head <= limit {
			break
		}
		delete(s.calls, e.key)
		s.expiry[s.head] = memoryExpiry{}
		s.head++
	}
	if s.head == len(s.expiry) {
		s.expiry, s.head = s.expiry[:0], 0
	}
	if n := len(s.expiry) - s.head; cap(s.expiry) > shrinkMin && n < cap(s.expiry)/4 {
		s.expiry, s.head = append(make([]memoryExpiry, 0, 2*n), s.expiry[s.head:]...), 0
	}
	// A Go map never returns the memory of deleted entries: copy it once
	// it holds a quarter of its peak.
	if s.peak > shrinkMin && len(s.calls) < s.peak/4 {
		m := make(map[invocationKey]*storeCall, 2*len(s.calls))
		maps.Copy(m, s.calls)
		s.calls, s.peak = m, len(m)
	}
}

// Claim implements Store.
func (s *MemoryStore) Claim(ctx context.Context, inv Invocation) (Result, bool, error) {
	noteStoreAttempt(ctx, nil)
	k := invocationKey{inv.SessionID, inv.ToolCallID}
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[invocationKey]*storeCall{}
	}
	s.sweepLocked(s.now())
	c, ok := s.calls[k]
	if !ok {
		s.calls[k] = &storeCall{hash: inv.RequestHash, done: make(chan struct{})}
		s.peak = max(s.peak, len(s.calls))
		s.mu.Unlock()
		return Result{}, false, nil
	}
	s.mu.Unlock()
	return c.wait(ctx, inv.RequestHash)
}

// Complete implements Store; it never waits.
func (s *MemoryStore) Complete(ctx context.Context, inv Invocation, res Result) error {
	noteStoreAttempt(ctx, nil)
	k := invocationKey{inv.SessionID, inv.ToolCallID}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.calls[k]
	if !ok || c.ok {
		return errors.New("MemoryStore: completing a call that was not claimed")
	}
	c.res, c.ok = res, true
	close(c.done)
	s.expiry = append(s.expiry, memoryExpiry{key: k, at: s.now()})
	s.sweepLocked(s.now())
	return nil
}
