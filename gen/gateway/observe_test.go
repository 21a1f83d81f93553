package gateway_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agentc-dev/agentc/generated/go/contract"
)

// TestObserve: RouteConfig.Observe gets one event per request, after its
// answer, saying what happened to it.
func TestObserve(t *testing.T) {
	var mu sync.Mutex
	var events []contract.CallEvent
	h := newHandler()
	g := newGateway(t, h, gatewayOptions{observe: func(_ context.Context, ev contract.CallEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}})
	url := g.url(setupSession, "save_snapshot")
	c := g.srv.Client()
	post(t, c, url, tokenFor(setupSession), "", body("obs-1", snapshotArgs))
	post(t, c, url, tokenFor(setupSession), "", body("obs-1", snapshotArgs))
	post(t, c, url, tokenFor(setupSession), "", body("obs-1", `{"message":"other"}`))
	post(t, c, url, "bad", "", body("obs-2", snapshotArgs))
	post(t, c, g.url(codingSession, "save_service_commands"), tokenFor(codingSession), "", body("obs-3", `{"commands":[]}`))

	want := []contract.CallEvent{
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "executed", Status: 200, Success: true, StoreAttempts: 2},
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "replayed", Status: 200, Success: true, Replay: true, StoreAttempts: 1},
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "tool_call_id_conflict", Status: 409, StoreAttempts: 1},
		{Tool: "save_snapshot", SessionID: setupSession, Outcome: "unauthorized", Status: 401},
		{Tool: "save_service_commands", SessionID: codingSession, ToolCallID: "obs-3", Outcome: "rejected", Status: 200},
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(events), len(want), events)
	}
	for i, ev := range events {
		if ev.Duration <= 0 {
			t.Errorf("event %d: duration %v", i, ev.Duration)
		}
		ev.Duration = 0
		if ev != want[i] {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, ev, want[i])
		}
	}
}

// downStore is a Store whose Claim always fails with err.
type downStore struct{ err error }

func (s downStore) Claim(context.Context, contract.Invocation) (contract.Result, bool, error) {
	return contract.Result{}, false, s.err
}

func (s downStore) Complete(context.Context, contract.Invocation, contract.Result) error {
	return s.err
}

// TestObserveStoreError: a store that fails reaches Observe as the event's
// StoreErr, with the 503 the caller got — whatever Store the gateway uses.
func TestObserveStoreError(t *testing.T) {
	down := errors.New("database is down")
	var events []contract.CallEvent
	var mu sync.Mutex
	g := newGateway(t, newHandler(), gatewayOptions{store: downStore{down}, quiet: true, observe: func(_ context.Context, ev contract.CallEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}})
	post(t, g.srv.Client(), g.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("obs-down", snapshotArgs))
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 1 {
		t.Fatalf("%d events, want 1: %+v", len(events), events)
	}
	ev := events[0]
	if ev.Outcome != "store_failed" || ev.Status != 503 || !errors.Is(ev.StoreErr, down) || ev.ToolCallID != "obs-down" {
		t.Errorf("got %+v, want outcome store_failed, status 503, StoreErr %v", ev, down)
	}
}
