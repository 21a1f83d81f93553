package agentmcp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
)

// gated is a server of oneTool's echo, named echo_v1 before (its alias),
// in mode "full" and not in mode "bare", on a MemoryStore; it counts echo's executions and keeps the
// events it observed. Session "s-full" is in mode full, "s-bare" in mode
// bare, "s-down" cannot be looked up, "s-odd" is given a mode the
// contract lacks and any other is unknown; token "t"
// is a sandbox token of any session, "t.<session>" one of that session.
type gated struct {
	srv *httptest.Server

	mu       sync.Mutex
	executed int
	called   string // the Call.Tool of the last execution
	events   []agentrt.CallEvent
}

func newGated(t *testing.T) *gated {
	g := &gated{}
	c := oneTool
	c.Tools = []agentrt.ToolDesc{{Name: "echo", Aliases: []string{"echo_v1"}, FileName: "echo", Gateway: true, Fingerprint: "e1"}}
	c.Modes = []string{"full", "bare"}
	c.Injects = func(m string, tool int) bool { return m == "full" }
	c.Dispatch = func(ctx context.Context, h noHandler, call agentrt.Call[string], args []byte) agentrt.Result {
		if call.Mode != "full" {
			return agentrt.NotInMode("echo", call.Mode)
		}
		g.mu.Lock()
		g.executed++
		g.called = call.Tool
		g.mu.Unlock()
		return agentrt.Result{Success: true, Result: "echoed " + string(args)}
	}
	s, err := agentmcp.New(&c, []agentmcp.Tool{{Tool: 0, Description: "echoes", Schema: `{"type":"object"}`}},
		agentmcp.Config[noHandler, string]{
			Handler: noHandler{},
			Auth: agentrt.AuthenticatorFunc(func(ctx context.Context, token string) (agentrt.Claims, error) {
				if session, bound := strings.CutPrefix(token, "t."); bound {
					return agentrt.Claims{Source: agentrt.SourceSandbox, SessionID: session}, nil
				}
				if token != "t" {
					return agentrt.Claims{}, errors.New("bad token")
				}
				return agentrt.Claims{Source: agentrt.SourceSandbox}, nil
			}),
			Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) {
				switch id {
				case "s-full":
					return "full", nil
				case "s-bare":
					return "bare", nil
				case "s-down":
					return "", errors.New("database down")
				case "s-odd":
					return "odd", nil // a mode the contract lacks: a misconfigured Sessions
				}
				return "", agentrt.ErrUnknownSession
			}),
			Observe: func(ctx context.Context, ev agentrt.CallEvent) {
				g.mu.Lock()
				g.events = append(g.events, ev)
				g.mu.Unlock()
			},
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
	if err != nil {
		t.Fatal(err)
	}
	if s.Pattern() != agentmcp.Path {
		t.Errorf("Pattern = %q, want %q", s.Pattern(), agentmcp.Path)
	}
	mux := http.NewServeMux()
	mux.Handle(s.Pattern(), s)
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

// post sends one JSON-RPC message for session with token and returns the
// status and body of the answer.
func (g *gated) post(t *testing.T, session, token, msg string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.srv.URL+agentmcp.Path, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(agentmcp.SessionHeader, session)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := g.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// last returns the last event observed, and how many echo executed.
func (g *gated) last() (agentrt.CallEvent, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.events) == 0 {
		return agentrt.CallEvent{}, g.executed
	}
	return g.events[len(g.events)-1], g.executed
}

const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`

// TestRefusedBeforeMCP: a request the server refuses before MCP is
// answered in the callback route's JSON error shape and status, and
// observed with that code and status; its session id is observed once it
// is within the route's limits. Server's doc names each refusal as
// "<status> <code>".
func TestRefusedBeforeMCP(t *testing.T) {
	src, err := os.ReadFile("server.go")
	if err != nil {
		t.Fatal(err)
	}
	_, doc, _ := strings.Cut(string(src), "\n// Server is the MCP server")
	doc, _, _ = strings.Cut(doc, "\ntype Server")
	doc = strings.Join(strings.Fields(strings.ReplaceAll(doc, "\n//", "\n")), " ")
	g := newGated(t)
	for _, c := range []struct {
		name, session, token string
		status               int
		code, observed       string
	}{
		{"no token", "s-full", "", 401, "unauthorized", ""},
		{"an invalid token", "s-full", "forged", 401, "unauthorized", ""},
		{"no session header", "", "t", 400, "missing_session", ""},
		{"no session header, a session's token", "", "t.s-bare", 400, "missing_session", ""},
		{"another session's token", "s-full", "t.s-bare", 403, "forbidden", ""},
		{"a session id beyond the limit", strings.Repeat("s", agentrt.MaxSessionIDLength+1), "t", 400, "invalid_session_id", ""},
		{"an unknown session", "s-none", "t", 404, "unknown_session", "s-none"},
		{"a failed session lookup", "s-down", "t", 503, "session_lookup_failed", "s-down"},
		{"a mode the contract lacks", "s-odd", "t", 500, "invalid_session_mode", "s-odd"},
	} {
		status, body := g.post(t, c.session, c.token, list)
		if status != c.status || !strings.Contains(body, `"code":"`+c.code+`"`) {
			t.Errorf("%s: %d %s, want %d %s", c.name, status, body, c.status, c.code)
		}
		if ev, _ := g.last(); ev.Status != c.status || ev.Outcome != c.code || ev.SessionID != c.observed || ev.Tool != "" {
			t.Errorf("%s: observed %+v", c.name, ev)
		}
		if want := fmt.Sprintf("%d %s", c.status, c.code); !strings.Contains(doc, want) {
			t.Errorf("%s: Server's doc does not name %q", c.name, want)
		}
	}
}

// TestModeGate: a session's tools/list shows only the tools its mode
// injects, for the caller alone (cacheScope "private"), and a tools/call
// of a gateway tool its mode lacks is a result with isError and the
// callback route's words (not the SDK's unknown tool), executed by no one
// and observed as rejected; a tool's alias, which tools/list does not
// show, is called as the tool; a name that is no gateway tool is a
// JSON-RPC error.
func TestModeGate(t *testing.T) {
	g := newGated(t)
	if _, body := g.post(t, "s-bare", "t", list); !strings.Contains(body, `"tools":[]`) {
		t.Errorf("tools/list in mode bare: %s, want no tools", body)
	}
	if _, body := g.post(t, "s-full", "t", list); !strings.Contains(body, `"name":"echo"`) || strings.Contains(body, "echo_v1") ||
		!strings.Contains(body, `"cacheScope":"private"`) {
		t.Errorf("tools/list in mode full: %s, want echo and not its alias, cacheScope private", body)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	_, body := g.post(t, "s-bare", "t", call)
	if !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "Tool echo is not available in bare sessions") {
		t.Errorf("tools/call of echo in mode bare: %s", body)
	}
	if ev, executed := g.last(); ev.Outcome != "rejected" || ev.Tool != "echo" || ev.SessionID != "s-bare" || executed != 0 {
		t.Errorf("observed %+v, %d executions", ev, executed)
	}
	// By its alias, as a client that listed the tools before echo was
	// renamed calls it: refused alike in mode bare, executed in mode full,
	// the call and its event naming the alias, as the callback route's do;
	// its repetition by the tool's name, with the same _meta id, is the
	// same call.
	byAlias := strings.Replace(call, `"echo"`, `"echo_v1"`, 1)
	_, body = g.post(t, "s-bare", "t", byAlias)
	if !strings.Contains(body, "Tool echo is not available in bare sessions") {
		t.Errorf("tools/call of echo_v1 in mode bare: %s", body)
	}
	_, body = g.post(t, "s-full", "t", byAlias)
	g.mu.Lock()
	called := g.called
	g.mu.Unlock()
	if ev, executed := g.last(); !strings.Contains(body, `"text":"echoed {}"`) || ev.Outcome != "executed" || ev.Tool != "echo_v1" ||
		executed != 1 || called != "echo_v1" {
		t.Errorf("tools/call of echo_v1 in mode full: %s; observed %+v, %d executions, the last as %q", body, ev, executed, called)
	}
	withID := strings.Replace(byAlias, `"arguments":{}`, `"arguments":{},"_meta":{"`+agentmcp.ToolCallIDMeta+`":"a1"}`, 1)
	g.post(t, "s-full", "t", withID)
	_, body = g.post(t, "s-full", "t", strings.Replace(withID, `"echo_v1"`, `"echo"`, 1))
	if ev, executed := g.last(); ev.Outcome != "replayed" || ev.Tool != "echo" || executed != 2 {
		t.Errorf("the call by alias repeated by name: %s; observed %+v, %d executions", body, ev, executed)
	}
	_, body = g.post(t, "s-full", "t", strings.Replace(call, `"echo"`, `"nope"`, 1))
	if !strings.Contains(body, `"error"`) || strings.Contains(body, `"result"`) {
		t.Errorf("tools/call of an unknown tool: %s, want a JSON-RPC error", body)
	}
}

// TestCallIdempotency: a call carrying the _meta tool_call_id executes
// once; its repetition is answered the stored result with the replay
// _meta; the id reused for other arguments is a result with isError
// saying so; an id the callback route would refuse is invalid params,
// executed by no one, whether it is not a string, empty, or a lone
// surrogate the SDK decodes as U+FFFD.
func TestCallIdempotency(t *testing.T) {
	g := newGated(t)
	call := func(args, id string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":` + args +
			`,"_meta":{"` + agentmcp.ToolCallIDMeta + `":` + id + `}}}`
	}
	for i, want := range []string{"executed", "replayed"} {
		_, body := g.post(t, "s-full", "t", call(`{"a":1}`, `"c1"`))
		replayed := strings.Contains(body, `"`+agentmcp.ReplayMeta+`":true`)
		if !strings.Contains(body, `"text":"echoed {\"a\":1}"`) || replayed != (i == 1) {
			t.Errorf("call %d: %s", i, body)
		}
		if ev, executed := g.last(); ev.Outcome != want || ev.ToolCallID != "c1" || ev.Replay != (i == 1) || executed != 1 {
			t.Errorf("call %d: observed %+v, %d executions", i, ev, executed)
		}
	}
	_, body := g.post(t, "s-full", "t", call(`{"a":2}`, `"c1"`))
	if !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "tool_call_id c1 was already used for another call") {
		t.Errorf("the id reused: %s", body)
	}
	if ev, executed := g.last(); ev.Outcome != "tool_call_id_conflict" || executed != 1 {
		t.Errorf("the id reused: observed %+v, %d executions", ev, executed)
	}
	for id, msg := range map[string]string{
		`7`:          "tool_call_id must be a string",
		`""`:         "tool_call_id must not be empty",
		`"\ud800-x"`: "tool_call_id must be Unicode text",
		`"a\u0000b"`: "tool_call_id must not hold control characters",
	} {
		_, body := g.post(t, "s-full", "t", call(`{}`, id))
		if !strings.Contains(body, `"code":-32602`) || !strings.Contains(body, msg) {
			t.Errorf("_meta id %s: %s, want invalid params saying %q", id, body, msg)
		}
		if ev, executed := g.last(); ev.Outcome != "invalid_params" || executed != 1 {
			t.Errorf("_meta id %s: observed %+v, %d executions", id, ev, executed)
		}
	}
}
