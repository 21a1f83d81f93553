package gateway_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// events collects what an Observe hook is handed.
type events struct {
	mu   sync.Mutex
	list []agentrt.CallEvent
}

// observe is the hook.
func (e *events) observe(_ context.Context, ev agentrt.CallEvent) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.mu.Unlock()
}

// got returns the events so far.
func (e *events) got() []agentrt.CallEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

// expect checks the events against want, in order: each with a positive
// Duration, and otherwise equal.
func (e *events) expect(t *testing.T, want []agentrt.CallEvent) {
	t.Helper()
	got := e.got()
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i, ev := range got {
		if ev.Duration <= 0 {
			t.Errorf("event %d: duration %v", i, ev.Duration)
		}
		ev.Duration = 0
		if ev != want[i] {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, ev, want[i])
		}
	}
}

// TestObserve: RouteConfig.Observe gets one event per request, after its
// answer, saying what happened to it.
func TestObserve(t *testing.T) {
	var seen events
	g := newGateway(t, newHandler(), gatewayOptions{observe: seen.observe})
	url := g.url(setupSession, "save_snapshot")
	c := g.srv.Client()
	post(t, c, url, tokenFor(setupSession), "", body("obs-1", snapshotArgs))
	post(t, c, url, tokenFor(setupSession), "", body("obs-1", snapshotArgs))
	post(t, c, url, tokenFor(setupSession), "", body("obs-1", `{"message":"other"}`))
	post(t, c, url, "bad", "", body("obs-2", snapshotArgs))
	post(t, c, g.url(codingSession, "save_service_commands"), tokenFor(codingSession), "", body("obs-3", `{"commands":[]}`))

	want := []agentrt.CallEvent{
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "executed", Status: 200, Success: true, StoreAttempts: 2},
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "replayed", Status: 200, Success: true, Replay: true, StoreAttempts: 1},
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "tool_call_id_conflict", Status: 409, StoreAttempts: 1},
		{Tool: "save_snapshot", SessionID: setupSession, Outcome: "unauthorized", Status: 401},
		{Tool: "save_service_commands", SessionID: codingSession, ToolCallID: "obs-3", Outcome: "rejected", Status: 200},
	}
	seen.expect(t, want)
}

// downStore is a Store whose Claim always fails with err.
type downStore struct{ err error }

func (s downStore) Claim(context.Context, agentrt.Invocation) (contract.Result, bool, error) {
	return contract.Result{}, false, s.err
}

func (s downStore) Complete(context.Context, agentrt.Invocation, contract.Result) error {
	return s.err
}

// TestObserveStoreError: a store that fails reaches Observe as the event's
// StoreErr, with the 503 the caller got — whatever Store the gateway uses.
func TestObserveStoreError(t *testing.T) {
	down := errors.New("database is down")
	var seen events
	g := newGateway(t, newHandler(), gatewayOptions{store: downStore{down}, quiet: true, observe: seen.observe})
	post(t, g.srv.Client(), g.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("obs-down", snapshotArgs))
	events := seen.got()
	if len(events) != 1 {
		t.Fatalf("%d events, want 1: %+v", len(events), events)
	}
	ev := events[0]
	if ev.Outcome != "store_failed" || ev.Status != 503 || !errors.Is(ev.StoreErr, down) || ev.ToolCallID != "obs-down" {
		t.Errorf("got %+v, want outcome store_failed, status 503, StoreErr %v", ev, down)
	}
}
