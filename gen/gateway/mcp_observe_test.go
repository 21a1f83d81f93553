package gateway_test

import (
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// TestMCPObserve: contractmcp.Config.Observe gets the callback route's
// CallEvent once per tools/call and once per request refused before MCP,
// so one metrics adaptor serves both transports; a call retried from one
// transport through the other is a replay on the second.
func TestMCPObserve(t *testing.T) {
	var seen events
	g := newLimitsGateway(t, contract.NewMemoryStore(), seen.observe)
	g.toolsCall(t, `"obs-1"`, `{"message":"m"}`)
	g.toolsCall(t, `"obs-1"`, `{"message":"m"}`)
	g.callback(t, setupSession, `{"tool_call_id":"obs-1","args":{"message":"m"}}`)
	g.toolsCall(t, `""`, `{"message":"m"}`)
	req := mcpRequest(g.srv.URL+agentmcp.Path, setupSession, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	req.RequestURI = ""
	req.Header.Set("Authorization", "Basic x")
	res, err := g.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	want := []agentrt.CallEvent{
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "executed", Status: 200,
			Success: true, StoreAttempts: 2},
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "replayed", Status: 200,
			Success: true, Replay: true, StoreAttempts: 1},
		{Tool: "save_snapshot", SessionID: setupSession, ToolCallID: "obs-1", Outcome: "replayed", Status: 200,
			Success: true, Replay: true, StoreAttempts: 1},
		{Tool: "save_snapshot", SessionID: setupSession, Outcome: "invalid_params", Status: 200},
		{Outcome: "unauthorized", Status: 401},
	}
	seen.expect(t, want)
	if n := g.h.count("obs-1"); n != 1 {
		t.Errorf("obs-1 executed %d times, want 1", n)
	}
}
