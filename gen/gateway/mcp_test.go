package gateway_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/pgtest"
	"github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// gatewayTools returns the gateway-executed tools mode injects, by name.
func gatewayTools(mode contract.Mode) []string {
	var out []string
	for _, t := range mode.Tools() {
		if t.GatewayExecuted() {
			out = append(out, t.Name())
		}
	}
	slices.Sort(out)
	return out
}

// TestMCPToolsByMode: tools/list shows exactly the gateway tools of the
// session's mode, each with the description and JSON Schema agentc emits
// for the OpenCode stubs.
func TestMCPToolsByMode(t *testing.T) {
	g := newBothGateway(t, newHandler(), nil)
	gen := generatedDir(t)
	for session, mode := range modes {
		cs := g.mustMCP(t, session)
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatalf("%s: tools/list: %v", mode, err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			ct, ok := contract.LookupTool(tool.Name)
			if !ok {
				t.Errorf("%s: tools/list shows %q, which is no tool of the contract", mode, tool.Name)
				continue
			}
			desc, err := os.ReadFile(filepath.Join(gen, "tool", ct.FileName()+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if tool.Description != strings.TrimSuffix(string(desc), "\n") {
				t.Errorf("%s: %s's description differs from its .txt:\n%s", mode, tool.Name, tool.Description)
			}
			want, err := os.ReadFile(filepath.Join(gen, "..", "jsonschema", ct.FileName()+".json"))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(tool.InputSchema)
			got, err := jsonschema.Canonical(b)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("%s: %s's inputSchema differs from jsonschema/%s.json:\n%s", mode, tool.Name, ct.FileName(), got)
			}
		}
		slices.Sort(names)
		if want := gatewayTools(mode); !slices.Equal(names, want) {
			t.Errorf("%s session: tools/list shows %v, want %v", mode, names, want)
		}
	}
}

// TestMCPModeGate: a call of a tool the session's mode lacks is refused in
// the callback route's words and does not execute, with or without a
// tool_call_id.
func TestMCPModeGate(t *testing.T) {
	h := newHandler()
	g := newBothGateway(t, h, nil)
	cs := g.mustMCP(t, codingSession)
	if slices.Contains(gatewayTools(contract.ModeCoding), "save_service_commands") {
		t.Fatal("the coding mode has save_service_commands: the test needs a tool the mode lacks")
	}
	for _, id := range []string{"", "forged-1"} {
		got, _, err := mcpCall(t, cs, "save_service_commands", id, `{"commands":[{"name":"web","command":"npm start"}]}`)
		if want := "Tool save_service_commands is not available in coding sessions"; err != nil || got.Success || got.Result != want {
			t.Errorf("a coding session's save_service_commands (id %q) was answered %+v, %v; want the refusal %q", id, got, err, want)
		}
	}
	if n := h.total.Load(); n != 0 {
		t.Errorf("refused calls executed %d times", n)
	}
}

// TestMCPAuth: the MCP server refuses what the callback route refuses,
// with the same statuses, before any MCP message is read.
func TestMCPAuth(t *testing.T) {
	h := newHandler()
	g := newBothGateway(t, h, nil)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	cases := []struct {
		name, token, session string
		status               int
		code                 string
	}{
		{"no token", "", setupSession, 401, "unauthorized"},
		{"invalid token", "forged", setupSession, 401, "unauthorized"},
		{"api token", "api.x", setupSession, 403, "forbidden"},
		{"other session's token", tokenFor(codingSession), setupSession, 403, "forbidden"},
		{"no session header", tokenFor(setupSession), "", 400, "missing_session"},
		{"unknown session", "sbx-any", "44444444-4444-4444-8444-444444444444", 404, "unknown_session"},
		{"ok", tokenFor(setupSession), setupSession, 200, ""},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodPost, g.srv.URL+agentmcp.Path, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if c.session != "" {
			req.Header.Set(agentmcp.SessionHeader, c.session)
		}
		res, err := g.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := readAll(res)
		if res.StatusCode != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, res.StatusCode, b, c.status)
			continue
		}
		if c.code != "" {
			var e struct{ Error, Code string }
			if json.Unmarshal(b, &e) != nil || e.Code != c.code || e.Error == "" {
				t.Errorf("%s: body %s, want code %q", c.name, b, c.code)
			}
		}
	}
	// The Go SDK's client gets the refusal as a connection error.
	if _, err := g.mcpSession(t, setupSession, "forged", nil); err == nil {
		t.Error("a client with a forged token connected")
	}
}

// TestMCPCallsMatchCallback: the same calls through both transports give
// the same results — executions, validation failures (zod's issues in
// "Invalid arguments: …", isError true), data.
func TestMCPCallsMatchCallback(t *testing.T) {
	// Two gateways with handlers in the same state, one called through
	// each transport: the test handler's data counts the calls it saw.
	g, g2 := newBothGateway(t, newHandler(), nil), newBothGateway(t, newHandler(), nil)
	cs := g2.mustMCP(t, setupSession)
	client := g.srv.Client()
	cases := []struct{ tool, args string }{
		{"save_snapshot", snapshotArgs},
		{"save_snapshot", `{}`},
		{"save_snapshot", `{"message":7}`},
		{"save_service_commands", `{"commands":[{"name":"web","command":"npm start","cwd":"web"}]}`},
		{"save_service_commands", `{"commands":[{"name":"","command":"npm start","cwd":"../x"}]}`},
		{"save_service_commands", `{}`},
		{"save_env_files", `{"files":[]}`},
	}
	invalid := 0
	for i, c := range cases {
		id := "match-" + string(rune('a'+i))
		cb := post(t, client, g.callbackURL(setupSession, c.tool), tokenFor(setupSession), "", body(id+"-cb", c.args))
		got, _, err := mcpCall(t, cs, c.tool, id+"-mcp", c.args)
		if err != nil {
			t.Errorf("%s %s over MCP: %v", c.tool, c.args, err)
			continue
		}
		// The only difference allowed is the tool_call_id a result names.
		want := cb.Result
		want.Result = strings.ReplaceAll(want.Result, id+"-cb", id+"-mcp")
		if got.Success != want.Success || got.Result != want.Result || !sameJSON(got.Data, want.Data) {
			t.Errorf("%s %s:\nMCP      %+v\ncallback %+v", c.tool, c.args, got, want)
		}
		if strings.HasPrefix(got.Result, "Invalid arguments: ") {
			invalid++
		}
	}
	if invalid < 3 {
		t.Errorf("only %d cases failed validation; the test means to compare failures too", invalid)
	}
}

// TestMCPIdempotencyAcrossTransports: 1,000 concurrent calls with one
// tool_call_id, half through the callback route and half through MCP
// (_meta), execute once, and every caller gets that execution's answer.
func TestMCPIdempotencyAcrossTransports(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	t.Run("memory", func(t *testing.T) { idempotentAcrossTransports(t, nil) })
	t.Run("postgres", func(t *testing.T) {
		store, _ := openStore(t, pgtest.Start(t), 0)
		idempotentAcrossTransports(t, store)
	})
}

func idempotentAcrossTransports(t *testing.T, store agentrt.Store) {
	const n = 1000
	h := newHandler()
	h.gate = make(chan struct{})
	h.started = make(chan string, n)
	g := newBothGateway(t, h, store)
	client := loopbackClient(n / 2)
	defer client.CloseIdleConnections()
	cs, err := g.mcpSession(t, setupSession, tokenFor(setupSession), loopbackClient(n/2).Transport)
	if err != nil {
		t.Fatal(err)
	}
	url := g.callbackURL(setupSession, "save_snapshot")
	results := make([]contract.Result, n)
	var replays atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				r := post(t, client, url, tokenFor(setupSession), "", body("dup-1", snapshotArgs))
				if r.Header.Get(agentrt.ReplayHeader) == "true" {
					replays.Add(1)
				}
				results[i] = r.Result
				return
			}
			res, raw, err := mcpCall(t, cs, "save_snapshot", "dup-1", snapshotArgs)
			if err != nil {
				t.Errorf("call %d over MCP: %v", i, err)
				return
			}
			if raw.Meta[agentmcp.ReplayMeta] == true {
				replays.Add(1)
			}
			results[i] = res
		}()
	}
	<-h.started // one execution began; the rest wait for it or arrive later
	close(h.gate)
	wg.Wait()
	if got := h.total.Load(); got != 1 {
		t.Errorf("%d concurrent calls with one tool_call_id over two transports executed %d times, want once", n, got)
	}
	for i, r := range results {
		if !r.Success || r.Result != "Snapshot saved for call dup-1" || !sameJSON(r.Data, results[0].Data) {
			t.Fatalf("answer %d: %+v", i, r)
		}
	}
	if replays.Load() != n-1 {
		t.Errorf("%d answers were marked as replays, want %d", replays.Load(), n-1)
	}
	// A retry through the other transport after completion is a replay too.
	res, raw, err := mcpCall(t, g.mustMCP(t, setupSession), "save_snapshot", "dup-1", snapshotArgs)
	if err != nil || raw.Meta[agentmcp.ReplayMeta] != true || res.Result != results[0].Result {
		t.Errorf("late MCP retry: %+v %v %v", res, raw, err)
	}
	// The same id with other arguments is a conflict, not an execution.
	res, _, err = mcpCall(t, cs, "save_snapshot", "dup-1", `{"message":"other"}`)
	if err != nil || res.Success || !strings.Contains(res.Result, "already used") {
		t.Errorf("reused tool_call_id: %+v %v", res, err)
	}
	if got := h.total.Load(); got != 1 {
		t.Errorf("executed %d times after the retries, want once", got)
	}
}

// TestMCPWithoutCallID: a call without a tool_call_id has no identity a
// retry could repeat, so each one executes.
func TestMCPWithoutCallID(t *testing.T) {
	h := newHandler()
	g := newBothGateway(t, h, nil)
	cs := g.mustMCP(t, setupSession)
	for range 2 {
		if _, _, err := mcpCall(t, cs, "save_snapshot", "", snapshotArgs); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.total.Load(); got != 2 {
		t.Errorf("two calls without a tool_call_id executed %d times, want 2", got)
	}
	if got := h.count(""); got != 2 {
		t.Errorf("the handler saw tool_call_id %q %d times", "", got)
	}
}

// sameJSON reports whether a and b are the same JSON value (key order
// aside: structuredContent reaches a client as an object it may reorder).
func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
