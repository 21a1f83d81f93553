package serve

import (
	"context"
	"errors"
	"sync"
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
	// calls waiting for it.
	Complete(ctx context.Context, inv Invocation, res Result) error
}

type invocationKey struct{ session, toolCallID string }

// MemoryStore is the default Store: in-flight calls and completed results
// in this process's memory. A completed result is kept for Retention (from
// its completion); a call repeated later executes again, and so does any
// call after the process restarts (use SQLStore for that).
//
// The zero value is ready to use.
type MemoryStore struct {
	// Retention is how long a completed result is kept; 0 means
	// DefaultRetention.
	Retention time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu    sync.Mutex
	calls map[invocationKey]*memoryCall
	// expiry lists completed calls in completion order, which is also
	// their expiry order.
	expiry []memoryExpiry
}

type memoryCall struct {
	hash      string
	done      chan struct{}
	completed bool
	res       Result
}

type memoryExpiry struct {
	key  invocationKey
	call *memoryCall
	at   time.Time
}

// NewMemoryStore returns a MemoryStore keeping results for DefaultRetention.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

func (s *MemoryStore) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *MemoryStore) retention() time.Duration {
	if s.Retention > 0 {
		return s.Retention
	}
	return DefaultRetention
}

// sweepLocked forgets the results older than the retention.
func (s *MemoryStore) sweepLocked(now time.Time) {
	cut := now.Add(-s.retention())
	i := 0
	for i < len(s.expiry) && !s.expiry[i].at.After(cut) {
		e := s.expiry[i]
		if s.calls[e.key] == e.call {
			delete(s.calls, e.key)
		}
		s.expiry[i] = memoryExpiry{}
		i++
	}
	s.expiry = s.expiry[i:]
}

// Claim implements Store.
func (s *MemoryStore) Claim(ctx context.Context, inv Invocation) (Result, bool, error) {
	k := invocationKey{inv.SessionID, inv.ToolCallID}
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[invocationKey]*memoryCall{}
	}
	s.sweepLocked(s.now())
	c, ok := s.calls[k]
	if !ok {
		s.calls[k] = &memoryCall{hash: inv.RequestHash, done: make(chan struct{})}
		s.mu.Unlock()
		return Result{}, false, nil
	}
	s.mu.Unlock()
	if c.hash != inv.RequestHash {
		return Result{}, false, ErrConflict
	}
	select {
	case <-c.done:
		return c.res, true, nil
	case <-ctx.Done():
		return Result{}, false, ctx.Err()
	}
}

// Complete implements Store.
func (s *MemoryStore) Complete(ctx context.Context, inv Invocation, res Result) error {
	k := invocationKey{inv.SessionID, inv.ToolCallID}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.calls[k]
	if !ok || c.completed {
		return errors.New("MemoryStore: completing a call that was not claimed")
	}
	c.res, c.completed = res, true
	close(c.done)
	s.expiry = append(s.expiry, memoryExpiry{key: k, call: c, at: s.now()})
	return nil
}

// Len returns the number of calls the store holds (in flight or kept).
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(s.now())
	return len(s.calls)
}
