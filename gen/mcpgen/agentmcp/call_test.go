package agentmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
)

// failingStore refuses every call, as a database that is down does.
type failingStore struct{}

func (failingStore) Claim(context.Context, agentrt.Invocation) (agentrt.Result, bool, error) {
	return agentrt.Result{}, false, errors.New("database down")
}

func (failingStore) Complete(context.Context, agentrt.Invocation, agentrt.Result) error {
	return errors.New("database down")
}

// sandboxAuth takes every token for the sandbox's.
var sandboxAuth = agentrt.AuthenticatorFunc(func(context.Context, string) (agentrt.Claims, error) {
	return agentrt.Claims{Source: agentrt.SourceSandbox}, nil
})

// newRPC returns the POST of one JSON-RPC message to the server at url,
// for session s1 with token t.
func newRPC(t *testing.T, ctx context.Context, url, msg string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+agentmcp.Path, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(agentmcp.SessionHeader, "s1")
	req.Header.Set("Authorization", "Bearer t")
	return req
}

// rpc posts one JSON-RPC message to the server and returns the answer.
func rpc(t *testing.T, url, msg string) string {
	t.Helper()
	res, err := http.DefaultClient.Do(newRPC(t, context.Background(), url, msg))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", msg, res.StatusCode, b)
	}
	return string(b)
}

// TestListAndCall: initialize offers tools alone; tools/list serves the
// indented schema compact; a tools/call without arguments reaches Dispatch
// with {}; one whose tool_call_id the Store cannot record is a JSON-RPC
// error, observed as store_failed, and executes nothing.
func TestListAndCall(t *testing.T) {
	c := oneTool
	executed := 0
	c.Dispatch = func(ctx context.Context, h noHandler, call agentrt.Call[string], args []byte) agentrt.Result {
		executed++
		return agentrt.Result{Success: true, Result: "args " + string(args)}
	}
	var outcomes []string
	s, err := agentmcp.New(&c, []agentmcp.Tool{{Tool: 0, Description: "echoes", Schema: "{\n  \"type\": \"object\"\n}"}},
		agentmcp.Config[noHandler, string]{
			Handler:  noHandler{},
			Auth:     sandboxAuth,
			Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) { return "m", nil }),
			Store:    failingStore{},
			Observe:  func(ctx context.Context, ev agentrt.CallEvent) { outcomes = append(outcomes, ev.Outcome) },
			Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()

	// Tools, and no promise of notifications a stateless server never sends.
	if got := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); !strings.Contains(got, `"capabilities":{"tools":{}}`) {
		t.Errorf("initialize: %s, want the capabilities {\"tools\":{}}", got)
	}
	if got := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`); !strings.Contains(got, `"inputSchema":{"type":"object"}`) {
		t.Errorf("tools/list: %s, want the schema compact", got)
	}
	if got := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`); !strings.Contains(got, `"text":"args {}"`) || executed != 1 {
		t.Errorf("tools/call without arguments: %s (executed %d)", got, executed)
	}
	got := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"`+agentmcp.ToolCallIDMeta+`":"call-1"}}}`)
	if !strings.Contains(got, `"error"`) || !strings.Contains(got, "could not record the call") || executed != 1 {
		t.Errorf("tools/call with a store that is down: %s (executed %d)", got, executed)
	}
	if want := []string{"executed", "store_failed"}; strings.Join(outcomes, " ") != strings.Join(want, " ") {
		t.Errorf("observed outcomes %q, want %q", outcomes, want)
	}
}

// TestPanicIsLogged: a handler's panic (which a generated Dispatch's
// agentrt.Recover answers) is a failed result, observed as "panicked" and
// logged at level Error with its stack.
func TestPanicIsLogged(t *testing.T) {
	c := oneTool
	c.Dispatch = func(ctx context.Context, h noHandler, call agentrt.Call[string], args []byte) (res agentrt.Result) {
		defer agentrt.Recover("echo", &res)
		panic("kaboom")
	}
	var log strings.Builder
	var outcome string
	s, err := agentmcp.New(&c, []agentmcp.Tool{{Tool: 0, Schema: `{"type":"object"}`}}, agentmcp.Config[noHandler, string]{
		Handler:  noHandler{},
		Auth:     sandboxAuth,
		Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) { return "m", nil }),
		Observe:  func(ctx context.Context, ev agentrt.CallEvent) { outcome = ev.Outcome },
		Logger:   slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	got := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if !strings.Contains(got, `"text":"echo failed: panic: kaboom"`) || !strings.Contains(got, `"isError":true`) || outcome != "panicked" {
		t.Errorf("tools/call of a panicking handler: %s, observed %q", got, outcome)
	}
	if !strings.Contains(log.String(), `level=ERROR msg="agentc mcp: the handler panicked" tool=echo`) ||
		!strings.Contains(log.String(), "TestPanicIsLogged") {
		t.Errorf("log lacks the panic's Error record with its stack:\n%s", log.String())
	}
}

// TestBodyLimit: a body over Config.MaxBodyBytes (by default the callback
// route's agentrt.DefaultMaxBodyBytes) is answered 413 in the route's JSON
// error shape, observed as body_too_large, before the session is looked
// up; a larger limit admits a larger body.
func TestBodyLimit(t *testing.T) {
	looked := 0
	var outcome string
	cfg := agentmcp.Config[noHandler, string]{
		Handler:  noHandler{},
		Auth:     sandboxAuth,
		Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) { looked++; return "m", nil }),
		Observe:  func(ctx context.Context, ev agentrt.CallEvent) { outcome = ev.Outcome },
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	call := func(s http.Handler, size int) (int, string) {
		srv := httptest.NewServer(s)
		defer srv.Close()
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` +
			strings.Repeat("a", size) + `"}}}`
		res, err := http.DefaultClient.Do(newRPC(t, context.Background(), srv.URL, msg))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	s, err := agentmcp.New(&oneTool, []agentmcp.Tool{{Tool: 0, Schema: `{"type":"object"}`}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	status, body := call(s, agentrt.DefaultMaxBodyBytes)
	if want := fmt.Sprintf(`{"error":"the request body exceeds %d bytes","code":"body_too_large"}`, agentrt.DefaultMaxBodyBytes); status != 413 ||
		strings.TrimSpace(body) != want || outcome != "body_too_large" || looked != 0 {
		t.Errorf("a body over the default limit: %d %s, observed %q, sessions looked up %d; want 413 %s", status, body, outcome, looked, want)
	}
	cfg.MaxBodyBytes = 6 << 20
	s, err = agentmcp.New(&oneTool, []agentmcp.Tool{{Tool: 0, Schema: `{"type":"object"}`}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := call(s, 5<<20); status != 200 || !strings.Contains(body, `"text":"echoed"`) {
		t.Errorf("a 5 MiB body under a 6 MiB limit: %d %.200s", status, body)
	}
}

// TestClientGoneFromSessions: a caller that leaves while Sessions keeps
// it waiting is observed as client_gone 499, as on the callback route, not
// as a failed session lookup (503, logged at level Error).
func TestClientGoneFromSessions(t *testing.T) {
	entered := make(chan struct{})
	events := make(chan agentrt.CallEvent, 1)
	var log strings.Builder
	s, err := agentmcp.New(&oneTool, []agentmcp.Tool{{Tool: 0, Schema: `{"type":"object"}`}}, agentmcp.Config[noHandler, string]{
		Handler: noHandler{},
		Auth:    sandboxAuth,
		Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) {
			close(entered)
			<-ctx.Done()
			return "", ctx.Err()
		}),
		Observe: func(ctx context.Context, ev agentrt.CallEvent) { events <- ev },
		Logger:  slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req := newRPC(t, ctx, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	go func() {
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	<-entered
	cancel() // the caller leaves while Sessions looks the session up
	select {
	case ev := <-events:
		if ev.Outcome != "client_gone" || ev.Status != 499 || strings.Contains(log.String(), "level=ERROR") {
			t.Errorf("observed %+v, logged:\n%s", ev, log.String())
		}
	case <-time.After(10 * time.Second): // a guard against a hang, not a measure
		t.Fatal("no event 10 s after the caller left")
	}
}

// TestClientGoneMidBody: a caller whose connection drops before its body
// (of a Content-Length not reached) has arrived is observed as client_gone
// 499, as on the callback route, not as a malformed body (400
// invalid_body).
func TestClientGoneMidBody(t *testing.T) {
	events := make(chan agentrt.CallEvent, 1)
	s, err := agentmcp.New(&oneTool, []agentmcp.Tool{{Tool: 0, Schema: `{"type":"object"}`}}, agentmcp.Config[noHandler, string]{
		Handler: noHandler{}, Auth: sandboxAuth,
		Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) { return "m", nil }),
		Observe:  func(ctx context.Context, ev agentrt.CallEvent) { events <- ev },
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n%s: s1\r\n"+
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":", agentmcp.SessionHeader)
	time.Sleep(50 * time.Millisecond) // the server reads the first part
	conn.Close()
	select {
	case ev := <-events:
		if ev.Outcome != "client_gone" || ev.Status != 499 {
			t.Errorf("observed %+v, want client_gone 499", ev)
		}
	case <-time.After(10 * time.Second): // a guard against a hang, not a measure
		t.Fatal("no event 10 s after the caller left")
	}
}

// TestNewRefuses: New needs Handler, Auth and Sessions, and lists only
// gateway-executed tools of the contract.
func TestNewRefuses(t *testing.T) {
	cfg := agentmcp.Config[noHandler, string]{Handler: noHandler{},
		Auth: agentrt.AuthenticatorFunc(nil), Sessions: agentrt.SessionsFunc[string](nil)}
	if _, err := agentmcp.New(&oneTool, nil, agentmcp.Config[noHandler, string]{Handler: noHandler{}}); err == nil ||
		!strings.Contains(err.Error(), "are required") {
		t.Errorf("without Auth and Sessions: %v", err)
	}
	sandbox := oneTool
	sandbox.Tools = []agentrt.ToolDesc{{Name: "run", Gateway: false}}
	for name, c := range map[string]*agentrt.Contract[noHandler, string]{"out of range": &oneTool, "a sandbox tool": &sandbox} {
		tool := 0
		if c == &oneTool {
			tool = 1
		}
		if _, err := agentmcp.New(c, []agentmcp.Tool{{Tool: tool}}, cfg); err == nil ||
			!strings.Contains(err.Error(), "is not a gateway-executed tool") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// unrecordingStore claims calls in memory but cannot record a result, as
// a database that went down during the execution.
type unrecordingStore struct{ agentrt.MemoryStore }

func (*unrecordingStore) Complete(context.Context, agentrt.Invocation, agentrt.Result) error {
	return errors.New("database down")
}

// storeServer serves c's echo over MCP on store, for any token in session
// s1's mode m, handing each event to observe; it is closed when the test
// ends.
func storeServer(t *testing.T, c *agentrt.Contract[noHandler, string], store agentrt.Store, observe func(agentrt.CallEvent)) *httptest.Server {
	t.Helper()
	s, err := agentmcp.New(c, []agentmcp.Tool{{Tool: 0, Description: "echoes", Schema: `{"type":"object"}`}},
		agentmcp.Config[noHandler, string]{
			Handler:  noHandler{},
			Auth:     sandboxAuth,
			Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) { return "m", nil }),
			Store:    store,
			Observe:  func(ctx context.Context, ev agentrt.CallEvent) { observe(ev) },
			Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// TestUnrecordedResult: a result the store cannot record is answered all
// the same, and the call's event carries the store's error.
func TestUnrecordedResult(t *testing.T) {
	var events []agentrt.CallEvent
	srv := storeServer(t, &oneTool, &unrecordingStore{}, func(ev agentrt.CallEvent) { events = append(events, ev) })
	got := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"`+agentmcp.ToolCallIDMeta+`":"u1"}}}`)
	if !strings.Contains(got, `"text":"echoed"`) || strings.Contains(got, `"isError":true`) {
		t.Errorf("tools/call whose result the store cannot record: %s", got)
	}
	if len(events) != 1 || events[0].Outcome != "executed" || !events[0].Success || events[0].StoreErr == nil {
		t.Errorf("observed %+v", events)
	}
}

// stallingStore holds every Claim until its context ends (or the test
// does: stop), saying on entered that one began: a database that stopped
// answering.
type stallingStore struct{ entered, stop chan struct{} }

func (s stallingStore) Claim(ctx context.Context, _ agentrt.Invocation) (agentrt.Result, bool, error) {
	s.entered <- struct{}{}
	select {
	case <-ctx.Done():
		return agentrt.Result{}, false, ctx.Err()
	case <-s.stop:
		return agentrt.Result{}, false, errors.New("the test ended")
	}
}

func (stallingStore) Complete(context.Context, agentrt.Invocation, agentrt.Result) error { return nil }

// TestClientGone: a caller that leaves while the store stalls ends the
// wait, as on the callback route: observed as client_gone 499, with
// nothing executed and no store error.
func TestClientGone(t *testing.T) {
	c := oneTool
	var executed atomic.Int32
	c.Dispatch = func(ctx context.Context, h noHandler, call agentrt.Call[string], args []byte) agentrt.Result {
		executed.Add(1)
		return agentrt.Result{Success: true}
	}
	store := stallingStore{entered: make(chan struct{}), stop: make(chan struct{})}
	events := make(chan agentrt.CallEvent, 1)
	srv := storeServer(t, &c, store, func(ev agentrt.CallEvent) { events <- ev })
	defer close(store.stop) // before the server closes, which waits for the handler
	ctx, cancel := context.WithCancel(context.Background())
	req := newRPC(t, ctx, srv.URL,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"`+agentmcp.ToolCallIDMeta+`":"g1"}}}`)
	sent := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		sent <- err
	}()
	<-store.entered
	cancel() // the caller leaves while the store stalls
	if err := <-sent; !errors.Is(err, context.Canceled) {
		t.Errorf("the caller's request ended with %v, want its cancellation", err)
	}
	select {
	case ev := <-events:
		if ev.Outcome != "client_gone" || ev.Status != 499 || ev.StoreErr != nil || executed.Load() != 0 {
			t.Errorf("observed %+v, executed %d times; want client_gone 499, nothing executed", ev, executed.Load())
		}
	case <-time.After(10 * time.Second): // a guard against a hang, not a measure
		t.Fatal("the server still waits on the store 10 s after its caller left")
	}
}

// TestArgsDepth: arguments nested deeper than agentrt.MaxArgsDepth are
// refused as invalid params with the callback route's message for the
// same args (which it answers 400), and executed by neither transport;
// arguments at the limit execute on both. The SDK itself refuses a message
// nested deeper than 1000 (arguments 999 deep).
func TestArgsDepth(t *testing.T) {
	c := oneTool
	executed := 0
	c.Dispatch = func(ctx context.Context, h noHandler, call agentrt.Call[string], args []byte) agentrt.Result {
		executed++
		return agentrt.Result{Success: true, Result: "echoed"}
	}
	var events []agentrt.CallEvent
	srv := storeServer(t, &c, nil, func(ev agentrt.CallEvent) { events = append(events, ev) })
	route, err := agentrt.NewRoute(&c, agentrt.RouteConfig[noHandler, string]{
		Handler:  noHandler{},
		Auth:     sandboxAuth,
		Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) { return "m", nil }),
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	nested := func(depth int) string { // an object holding depth-1 arrays
		return `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
	}
	callback := func(id, args string) (int, string) {
		req := httptest.NewRequest(http.MethodPost, "/cb/s1/tools/echo", strings.NewReader(`{"tool_call_id":"`+id+`","args":`+args+`}`))
		req.Header.Set("Authorization", "Bearer t")
		w := httptest.NewRecorder()
		route.ServeHTTP(w, req)
		var body struct{ Error string }
		json.Unmarshal(w.Body.Bytes(), &body)
		return w.Code, body.Error
	}

	for i, depth := range []int{agentrt.MaxArgsDepth + 1, 990} {
		status, msg := callback(fmt.Sprint("deep-", depth), nested(depth))
		if status != http.StatusBadRequest || msg == "" {
			t.Fatalf("the route answered args %d deep with %d %q, want 400 and a message", depth, status, msg)
		}
		got := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":`+nested(depth)+`}}`)
		want, _ := json.Marshal(msg)
		if !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, `"message":`+string(want)) || executed != 0 {
			t.Errorf("tools/call with arguments %d deep: %.300s (executed %d); want invalid params %s", depth, got, executed, want)
		}
		if len(events) != i+1 || events[i].Outcome != "invalid_params" {
			t.Errorf("observed %+v, want invalid_params", events)
		}
	}
	if status, msg := callback("at-limit", nested(agentrt.MaxArgsDepth)); status != http.StatusOK {
		t.Errorf("the route answered args at the limit with %d %q", status, msg)
	}
	got := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":`+nested(agentrt.MaxArgsDepth)+`}}`)
	if !strings.Contains(got, `"text":"echoed"`) || executed != 2 {
		t.Errorf("tools/call with arguments at the limit: %.300s (executed %d)", got, executed)
	}
}

// TestRefusalLogged: a request refused before MCP is logged, as the
// callback route logs its refusals: at level Warn for a 4xx (an unknown
// session), with its status and code; it was observed and logged nothing.
func TestRefusalLogged(t *testing.T) {
	var log strings.Builder
	s, err := agentmcp.New(&oneTool, []agentmcp.Tool{{Tool: 0, Schema: `{"type":"object"}`}}, agentmcp.Config[noHandler, string]{
		Handler: noHandler{},
		Auth:    sandboxAuth,
		Sessions: agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) {
			return "", agentrt.ErrUnknownSession
		}),
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	res, err := http.DefaultClient.Do(newRPC(t, context.Background(), srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if want := "level=WARN msg=\"agentc mcp request refused\" tool=\"\" tool_call_id=\"\" session_id=s1 status=404 outcome=unknown_session"; res.StatusCode != 404 ||
		!strings.Contains(log.String(), want) {
		t.Errorf("answered %d, logged:\n%s\nwant a record %s", res.StatusCode, log.String(), want)
	}
}

// TestSurrogateIDAnyFraming: a _meta tool_call_id holding a lone surrogate,
// which the SDK decodes to U+FFFD, is refused however the message is framed:
// alone, in a JSON-RPC batch (which the SDK accepts for protocol 2025-03-26,
// the default without Mcp-Protocol-Version), first or second in it, or beside
// a "_META" that only a case-insensitive decoder would read. It reaches
// neither the store nor the handler, while a valid id beside it executes.
func TestSurrogateIDAnyFraming(t *testing.T) {
	c := oneTool
	executed := 0
	c.Dispatch = func(ctx context.Context, h noHandler, call agentrt.Call[string], args []byte) agentrt.Result {
		executed++
		return agentrt.Result{Success: true, Result: "echoed " + call.ToolCallID}
	}
	srv := storeServer(t, &c, nil, func(agentrt.CallEvent) {})
	call := func(id int, toolCallID string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{%q:%s}}}`,
			id, agentmcp.ToolCallIDMeta, toolCallID)
	}
	cases := []struct{ name, msg string }{
		{"alone", call(1, `"\ud800-x"`)},
		{"in a batch", "[" + call(1, `"\ud800-x"`) + "]"},
		{"second in a batch", "[" + call(1, `"ok"`) + "," + call(2, `"\udc00-x"`) + "]"},
		{"beside _META", strings.Replace(call(1, `"\ud800-x"`), "}}}", fmt.Sprintf(`},"_META":{%q:"\ufffd-x"}}}`, agentmcp.ToolCallIDMeta), 1)},
	}
	for _, tc := range cases {
		if got := rpc(t, srv.URL, tc.msg); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, "lone surrogate") {
			t.Errorf("%s: %s, want invalid params naming the lone surrogate", tc.name, got)
		}
	}
	if executed != 1 {
		t.Errorf("%d executions, want 1 (the valid id)", executed)
	}
}

// TestInvalidParamsStatus: a refused _meta tool_call_id is observed with
// the HTTP status it is answered with: 200 before protocol 2026-07-28, and
// from it 400, which the SDK sends for an invalid-params error (SEP-2575).
func TestInvalidParamsStatus(t *testing.T) {
	var events []agentrt.CallEvent
	srv := storeServer(t, &oneTool, nil, func(ev agentrt.CallEvent) { events = append(events, ev) })
	envelope := `,"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}`
	cases := []struct {
		version, envelope string
		status            int
	}{{"2025-11-25", "", http.StatusOK}, {"2026-07-28", envelope, http.StatusBadRequest}}
	for i, c := range cases {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"` +
			agentmcp.ToolCallIDMeta + `":""` + c.envelope + `}}}`
		req := newRPC(t, t.Context(), srv.URL, msg)
		req.Header.Set("Mcp-Protocol-Version", c.version)
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "echo")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || !strings.Contains(string(b), `"code":-32602`) {
			t.Fatalf("%s: %d %s, want %d and invalid params", c.version, res.StatusCode, b, c.status)
		}
		if len(events) != i+1 || events[i].Outcome != "invalid_params" || events[i].Status != c.status {
			t.Errorf("%s: observed %+v, want invalid_params with status %d", c.version, events, c.status)
		}
	}
}
