package gateway_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agentc-dev/agentc/generated/go/contract"
	"github.com/agentc-dev/agentc/generated/go/contractmcp"
)

// TestMCPObserve: contractmcp.Config.Observe gets the callback route's
// CallEvent once per tools/call and once per request refused before MCP,
// so one metrics adaptor serves both transports; a call retried from one
// transport through the other is a replay on the second.
func TestMCPObserve(t *testing.T) {
	var mu sync.Mutex
	var events []contract.CallEvent
	g := newLimitsGateway(t, contract.NewMemoryStore(), func(_ context.Context, ev contract.CallEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	})
	g.toolsCall(t, `"obs-1"`, `{"message":"m"}`)
	g.toolsCall(t, `"obs-1"`, `{"message":"m"}`)
	g.callback(t, setupSession, `{"tool_call_id":"obs-1","args":{"message":"m"}}`)
	g.toolsCall(t, `""`, `{"message":"m"}`)
	req := mcpRequest(g.srv.URL+contractmcp.Path, setupSession, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	req.RequestURI = ""
	req.Header.Set("Authorization", "Basic x")
	res, err := g.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	want := []contract.CallEvent{
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "executed", Status: 200,
			Success: true, StoreAttempts: 2},
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "replayed", Status: 200,
			Success: true, Replay: true, StoreAttempts: 1},
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "replayed", Status: 200,
			Success: true, Replay: true, StoreAttempts: 1},
		{Tool: "save_snapshot", SessionID: setupSession, Outcome: "invalid_params", Status: 200},
		{Outcome: "unauthorized", Status: 401},
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
	if n := g.h.count("obs-1"); n != 1 {
		t.Errorf("obs-1 executed %d times, want 1", n)
	}
}
