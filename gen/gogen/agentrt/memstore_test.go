package agentrt_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func memInv(id string) agentrt.Invocation {
	return agentrt.Invocation{SessionID: "s-full", Tool: "save_snapshot", ToolCallID: id, RequestHash: "h-" + id}
}

// run claims and completes a call, and reports whether it executed.
func runMem(t *testing.T, s *agentrt.MemoryStore, id string) bool {
	t.Helper()
	ctx := context.Background()
	_, done, err := s.Claim(ctx, memInv(id))
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	if !done {
		if err := s.Complete(ctx, memInv(id), agentrt.Result{Success: true, Result: id}); err != nil {
			t.Fatal(err)
		}
	}
	return !done
}

// TestMemoryStoreCap: beyond MaxEntries completed results the oldest is
// forgotten first, and a call in flight never is, however many complete.
func TestMemoryStoreCap(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	s := &agentrt.MemoryStore{MaxEntries: 3, Now: clock.now}
	ctx := context.Background()
	// In flight, claimed before everything else.
	if _, done, err := s.Claim(ctx, memInv("inflight")); err != nil || done {
		t.Fatal(done, err)
	}
	for i := range 5 {
		clock.t = clock.t.Add(time.Second)
		runMem(t, s, fmt.Sprintf("c%d", i))
	}
	// The store holds 3 completed calls and 1 in flight: c0 and c1 were
	// forgotten (oldest first), c2..c4 are kept (asked first: executing c0
	// again makes it the newest and evicts c2).
	for _, i := range []int{4, 3, 2, 1, 0} {
		want := i >= 2
		id := fmt.Sprintf("c%d", i)
		res, done, err := s.Claim(ctx, memInv(id))
		if err != nil || done != want || done && res.Result != id {
			t.Errorf("%s: done %v (%v, %v), want %v", id, done, res, err, want)
		}
		if !done {
			s.Complete(ctx, memInv(id), agentrt.Result{Result: id})
		}
	}
	// The call in flight is still in flight: a repeat waits for it.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, done, err := s.Claim(short, memInv("inflight")); done || err != context.DeadlineExceeded {
		t.Errorf("the call in flight after evictions: done %v, %v; want a wait", done, err)
	}
	if err := s.Complete(ctx, memInv("inflight"), agentrt.Result{Result: "late"}); err != nil {
		t.Errorf("completing the call in flight: %v", err)
	}
	if res, done, _ := s.Claim(ctx, memInv("inflight")); !done || res.Result != "late" {
		t.Errorf("the call in flight once complete: %v %v", res, done)
	}
}

// TestMemoryStoreCompletesClaimsOnly: Complete refuses a call that was
// not claimed, and a claimed call completed already, leaving the recorded
// result as it was.
func TestMemoryStoreCompletesClaimsOnly(t *testing.T) {
	s := &agentrt.MemoryStore{}
	ctx := context.Background()
	if err := s.Complete(ctx, memInv("never"), agentrt.Result{}); err == nil || !strings.Contains(err.Error(), "not claimed") {
		t.Errorf("completing a call never claimed: %v", err)
	}
	runMem(t, s, "once")
	if err := s.Complete(ctx, memInv("once"), agentrt.Result{Result: "again"}); err == nil {
		t.Error("completing a call twice: no error")
	}
	if res, done, err := s.Claim(ctx, memInv("once")); err != nil || !done || res.Result != "once" {
		t.Errorf("after the second Complete: %+v, %v, %v; want the first result", res, done, err)
	}
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMemoryStoreReturnsMemory: once 200,000 results have expired, the
// store's memory is returned (a Go map alone would keep its buckets).
func TestMemoryStoreReturnsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates")
	}
	const n = 200_000
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	s := &agentrt.MemoryStore{Retention: time.Minute, MaxEntries: n, Now: clock.now}
	base := heapInUse()
	for i := range n {
		runMem(t, s, fmt.Sprintf("call-%06d", i))
	}
	full := heapInUse()
	clock.t = clock.t.Add(2 * time.Minute)
	// The first call and the last execute again: every result expired
	// (the claim of the first forgets them all).
	for _, i := range []int{0, n - 1} {
		if !runMem(t, s, fmt.Sprintf("call-%06d", i)) {
			t.Fatalf("call-%06d was kept after its retention", i)
		}
	}
	after := heapInUse()
	runtime.KeepAlive(s)
	grown, kept := int64(full)-int64(base), int64(after)-int64(base)
	t.Logf("MEASURE MemoryStore: %d results hold %d KB (%d B each); after they expire %d KB stays", n, grown>>10, grown/n, kept>>10)
	if grown <= 0 || kept > grown/10 {
		t.Errorf("after expiry %d of %d bytes stay allocated", kept, grown)
	}
}
