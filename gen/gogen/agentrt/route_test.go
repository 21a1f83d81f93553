package agentrt_test

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
	"os"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
)

// newRoute returns the fake contract's route with store (a MemoryStore
// when nil) and the events it observed.
func newRoute(t *testing.T, h handler, store agentrt.Store) (*agentrt.Route[handler, mode], *events) {
	t.Helper()
	ev := &events{}
	route, err := agentrt.NewRoute(&fakeContract, agentrt.RouteConfig[handler, mode]{
		Handler: h, Auth: auth, Sessions: sessions, Store: store,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Observe: ev.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	return route, ev
}

// events collects the route's CallEvents.
type events struct {
	mu  sync.Mutex
	all []agentrt.CallEvent
}

func (e *events) add(_ context.Context, ev agentrt.CallEvent) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) last() agentrt.CallEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.all) == 0 {
		return agentrt.CallEvent{}
	}
	return e.all[len(e.all)-1]
}

// request is one callback to the route.
type request struct {
	method, path, token, fingerprint, body string
}

// answer is the route's answer: status, body and the headers tests read.
type answer struct {
	status               int
	code, result         string
	success              bool
	replay, allow, fp    string
	challenge, errorText string
}

func serve(route http.Handler, r request) answer {
	if r.method == "" {
		r.method = http.MethodPost
	}
	req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.fingerprint != "" {
		req.Header.Set(agentrt.FingerprintHeader, r.fingerprint)
	}
	w := httptest.NewRecorder()
	route.ServeHTTP(w, req)
	var body struct {
		Success bool   `json:"success"`
		Result  string `json:"result"`
		Error   string `json:"error"`
		Code    string `json:"code"`
	}
	json.Unmarshal(w.Body.Bytes(), &body)
	return answer{
		status: w.Code, code: body.Code, result: body.Result, success: body.Success, errorText: body.Error,
		replay: w.Header().Get(agentrt.ReplayHeader), allow: w.Header().Get("Allow"),
		fp: w.Header().Get(agentrt.FingerprintHeader), challenge: w.Header().Get("WWW-Authenticate"),
	}
}

// TestRouteAnswers: the route answers each request the contract's
// descriptor decides — its path, its tools, their aliases and
// fingerprints, the mode gate, Dispatch — in the route's order of checks.
func TestRouteAnswers(t *testing.T) {
	h := newEchoer()
	route, ev := newRoute(t, h, nil)
	if got := route.Pattern(); got != "/cb/" {
		t.Errorf("Pattern = %q, want /cb/", got)
	}
	const echo = "/cb/s-full/tools/echo"
	// outcome, when set, is the Observe outcome the case must have.
	outcome := map[string]string{
		"mode lacks the tool":                 "rejected",
		"executed":                            "executed",
		"replayed":                            "replayed",
		"invalid arguments from a stale stub": "invalid_arguments",
		"a failing handler":                   "executed",
	}
	for _, tc := range []struct {
		name string
		req  request
		want answer
	}{
		{"another path", request{path: "/cb/s-full/tools/echo/", token: "sbx"}, answer{status: 404, code: "not_found"}},
		{"an empty session", request{path: "/cb//tools/echo", token: "sbx"}, answer{status: 404, code: "not_found"}},
		{"another literal segment", request{path: "/cb/s-full/tool/echo", token: "sbx"}, answer{status: 404, code: "not_found"}},
		{"another method", request{method: "GET", path: echo, token: "sbx"}, answer{status: 405, code: "method_not_allowed", allow: "POST"}},
		{"no token", request{path: echo}, answer{status: 401, code: "unauthorized", challenge: `Bearer realm="agentc-callback"`}},
		{"an invalid token", request{path: echo, token: "forged"},
			answer{status: 401, code: "unauthorized", challenge: `Bearer realm="agentc-callback", error="invalid_token"`}},
		{"another source", request{path: echo, token: "api"}, answer{status: 403, code: "forbidden"}},
		{"another session's token", request{path: echo, token: "sbx.s-bare"}, answer{status: 403, code: "forbidden"}},
		{"unknown tool", request{path: "/cb/s-full/tools/nope", token: "sbx"}, answer{status: 404, code: "unknown_tool"}},
		{"sandbox tool", request{path: "/cb/s-full/tools/local", token: "sbx"}, answer{status: 404, code: "unknown_tool"}},
		{"not an object", request{path: echo, token: "sbx", body: `[]`}, answer{status: 400, code: "invalid_body", fp: "e1"}},
		{"empty id", request{path: echo, token: "sbx", body: `{"tool_call_id":"","args":{}}`}, answer{status: 400, code: "invalid_body", fp: "e1"}},
		{"unknown session", request{path: "/cb/s-none/tools/echo", token: "sbx", body: `{"tool_call_id":"a","args":{}}`},
			answer{status: 404, code: "unknown_session", fp: "e1"}},
		{"session lookup fails", request{path: "/cb/s-down/tools/echo", token: "sbx", body: `{"tool_call_id":"a","args":{}}`},
			answer{status: 503, code: "session_lookup_failed", fp: "e1"}},
		{"a mode the contract lacks", request{path: "/cb/s-odd/tools/echo", token: "sbx", body: `{"tool_call_id":"a","args":{"text":"x"}}`},
			answer{status: 500, code: "invalid_session_mode", fp: "e1"}},
		{"mode lacks the tool", request{path: "/cb/s-bare/tools/echo", token: "sbx", body: `{"tool_call_id":"b1","args":{"text":"x"}}`},
			answer{status: 200, result: "Tool echo is not available in bare sessions", fp: "e1"}},
		{"executed", request{path: echo, token: "sbx.s-full", body: `{"tool_call_id":"c1","args":{"text":"hi"}}`},
			answer{status: 200, success: true, result: "echoed hi", fp: "e1"}},
		{"replayed", request{path: echo, token: "sbx.s-full", body: `{"args":{ "text" : "hi" },"tool_call_id":"c1"}`},
			answer{status: 200, success: true, result: "echoed hi", fp: "e1", replay: "true"}},
		{"by its alias", request{path: "/cb/s-full/tools/say", token: "sbx", body: `{"tool_call_id":"c1","args":{"text":"hi"}}`},
			answer{status: 200, success: true, result: "echoed hi", fp: "e1", replay: "true"}},
		{"the id reused", request{path: echo, token: "sbx", body: `{"tool_call_id":"c1","args":{"text":"ho"}}`},
			answer{status: 409, code: "tool_call_id_conflict", fp: "e1"}},
		{"invalid arguments from a stale stub", request{path: echo, token: "sbx", fingerprint: "old", body: `{"tool_call_id":"c2","args":{}}`},
			answer{status: 200, fp: "e1", result: "Invalid arguments: text is required (the sandbox's echo tool is out of date: " +
				"its schema fingerprint old differs from the gateway's e1; regenerate the tool files with agentc gen and restart the sandbox)"}},
		{"a failing handler", request{path: echo, token: "sbx", body: `{"tool_call_id":"c3","args":{"text":"fail"}}`},
			answer{status: 200, fp: "e1", result: "echo failed: it failed"}},
		{"a panicking handler", request{path: echo, token: "sbx", body: `{"tool_call_id":"c4","args":{"text":"panic"}}`},
			answer{status: 200, fp: "e1", result: "echo failed: panic: kaboom"}},
	} {
		got := serve(route, tc.req)
		got.errorText = ""
		if got != tc.want {
			t.Errorf("%s: got %+v\nwant    %+v", tc.name, got, tc.want)
		}
		if e := ev.last(); e.Status != tc.want.status {
			t.Errorf("%s: observed status %d, want %d", tc.name, e.Status, tc.want.status)
		}
		if want, ok := outcome[tc.name]; ok && ev.last().Outcome != want {
			t.Errorf("%s: observed outcome %q, want %q", tc.name, ev.last().Outcome, want)
		}
	}
	if n := h.count("c1"); n != 1 {
		t.Errorf("c1 executed %d times, want once", n)
	}
	if n := h.count("b1"); n != 0 {
		t.Errorf("a call the mode lacks executed %d times", n)
	}
	if e := ev.last(); e.Tool != "echo" || e.SessionID != "s-full" || e.ToolCallID != "c4" || e.Outcome != "panicked" || e.StoreAttempts != 2 {
		t.Errorf("last event %+v", e)
	}
}

// TestRouteDocNamesEveryAnswer: each refusal the route makes — one
// request per refusal, in the order Route's doc lists them — is named in
// that doc as "<status> <code>", so that a gateway's author can map every
// code to its cause (in alerts, in metrics from CallEvent.Outcome).
func TestRouteDocNamesEveryAnswer(t *testing.T) {
	src, err := os.ReadFile("route.go")
	if err != nil {
		t.Fatal(err)
	}
	_, doc, _ := strings.Cut(string(src), "\n// Route is the http.Handler")
	doc, _, _ = strings.Cut(doc, "\ntype Route")
	doc = strings.Join(strings.Fields(strings.ReplaceAll(doc, "\n//", "\n")), " ")
	echo := "/cb/s-full/tools/echo"
	call := `{"tool_call_id":"d1","args":{"text":"x"}}`
	for _, tc := range []struct {
		req   request
		store agentrt.Store
	}{
		{req: request{path: "/cb/s-full/tools/echo/x", token: "sbx", body: call}},
		{req: request{method: "GET", path: echo, token: "sbx"}},
		{req: request{path: echo, token: "bad", body: call}},
		{req: request{path: echo, token: "api", body: call}},
		{req: request{path: "/cb/" + strings.Repeat("s", agentrt.MaxSessionIDLength+1) + "/tools/echo", token: "sbx", body: call}},
		{req: request{path: echo, token: "sbx", fingerprint: "\x01", body: call}},
		{req: request{path: "/cb/s-full/tools/local", token: "sbx", body: call}},
		{req: request{path: echo, token: "sbx", body: `{"tool_call_id":"d1","args":{"text":"` + strings.Repeat("x", agentrt.DefaultMaxBodyBytes) + `"}}`}},
		{req: request{path: echo, token: "sbx", body: `{"args":{}}`}},
		{req: request{path: "/cb/s-none/tools/echo", token: "sbx", body: call}},
		{req: request{path: "/cb/s-down/tools/echo", token: "sbx", body: call}},
		{req: request{path: echo, token: "sbx", body: `{"tool_call_id":"c","args":{"text":"y"}}`}, store: conflicting()},
		{req: request{path: echo, token: "sbx", body: call}, store: &failingStore{claim: true}},
	} {
		route, _ := newRoute(t, newEchoer(), tc.store)
		got := serve(route, tc.req)
		if want := fmt.Sprintf("%d %s", got.status, got.code); got.code == "" || !strings.Contains(doc, want) {
			t.Errorf("%s %.60s: answered %q, which Route's doc does not name", tc.req.method, tc.req.path, want)
		}
	}
}

// conflicting returns a store that holds call "c" of echo with the
// arguments {"text":"x"}.
func conflicting() agentrt.Store {
	s := &agentrt.MemoryStore{}
	hash, _ := agentrt.RequestHash("echo", []byte(`{"text":"x"}`))
	inv := agentrt.Invocation{SessionID: "s-full", Tool: "echo", ToolCallID: "c", RequestHash: hash}
	s.Claim(context.Background(), inv)
	s.Complete(context.Background(), inv, agentrt.Result{Success: true})
	return s
}

// TestRoutePanicIsLogged: a handler's panic is answered as the tool's
// failure, observed as "panicked", and logged at level Error with its
// stack, so that the gateway's operator can find the bug.
func TestRoutePanicIsLogged(t *testing.T) {
	var log strings.Builder
	var outcome string
	route, err := agentrt.NewRoute(&fakeContract, agentrt.RouteConfig[handler, mode]{
		Handler: newEchoer(), Auth: auth, Sessions: sessions,
		Logger:  slog.New(slog.NewTextHandler(&log, nil)),
		Observe: func(_ context.Context, ev agentrt.CallEvent) { outcome = ev.Outcome },
	})
	if err != nil {
		t.Fatal(err)
	}
	got := serve(route, request{path: "/cb/s-full/tools/echo", token: "sbx", body: `{"tool_call_id":"p","args":{"text":"panic"}}`})
	if got.status != 200 || got.success || got.result != "echo failed: panic: kaboom" || outcome != "panicked" {
		t.Errorf("answer %+v, outcome %q; want the failure \"echo failed: panic: kaboom\", observed as panicked", got, outcome)
	}
	if !strings.Contains(log.String(), `level=ERROR msg="agentc callback: the handler panicked" tool=echo tool_call_id=p`) ||
		!strings.Contains(log.String(), "(*echoer).Echo") {
		t.Errorf("log lacks the panic's Error record with its stack:\n%s", log.String())
	}
}

// TestRouteWaitsForTheFirst: a repeated call while the first executes
// waits for it and gets its result; the handler runs once.
func TestRouteWaitsForTheFirst(t *testing.T) {
	h := newEchoer()
	h.gate = make(chan struct{})
	route, _ := newRoute(t, h, nil)
	r := request{path: "/cb/s-full/tools/echo", token: "sbx", body: `{"tool_call_id":"w","args":{"text":"once"}}`}
	answers := make(chan answer, 3)
	for range 3 {
		go func() { answers <- serve(route, r) }()
	}
	time.Sleep(50 * time.Millisecond)
	close(h.gate)
	replays := 0
	for range 3 {
		a := <-answers
		if a.status != 200 || a.result != "echoed once" {
			t.Errorf("answer %+v", a)
		}
		if a.replay == "true" {
			replays++
		}
	}
	if n := h.count("w"); n != 1 || replays != 2 {
		t.Errorf("executed %d times with %d replays, want once and 2", n, replays)
	}
}

// failingStore fails every Claim, or every Complete.
type failingStore struct {
	agentrt.MemoryStore
	claim, complete bool
}

var errStore = errors.New("store down")

func (s *failingStore) Claim(ctx context.Context, inv agentrt.Invocation) (agentrt.Result, bool, error) {
	if s.claim {
		return agentrt.Result{}, false, errStore
	}
	return s.MemoryStore.Claim(ctx, inv)
}

func (s *failingStore) Complete(ctx context.Context, inv agentrt.Invocation, res agentrt.Result) error {
	if s.complete {
		return errStore
	}
	return s.MemoryStore.Complete(ctx, inv, res)
}

// TestRouteStoreFailures: a claim the store cannot take is a 503 that
// invites the retry, before anything executes; a result it cannot record
// is answered all the same, and the event says so.
func TestRouteStoreFailures(t *testing.T) {
	h := newEchoer()
	route, ev := newRoute(t, h, &failingStore{claim: true})
	a := serve(route, request{path: "/cb/s-full/tools/echo", token: "sbx", body: `{"tool_call_id":"f1","args":{"text":"x"}}`})
	if a.status != 503 || a.code != "store_failed" || h.count("f1") != 0 || !errors.Is(ev.last().StoreErr, errStore) {
		t.Errorf("claim failed: %+v, %d executions, event %+v", a, h.count("f1"), ev.last())
	}
	route, ev = newRoute(t, h, &failingStore{complete: true})
	a = serve(route, request{path: "/cb/s-full/tools/echo", token: "sbx", body: `{"tool_call_id":"f2","args":{"text":"x"}}`})
	if a.status != 200 || !a.success || ev.last().Outcome != "executed" || !errors.Is(ev.last().StoreErr, errStore) {
		t.Errorf("complete failed: %+v, event %+v", a, ev.last())
	}
}

// stallingStore's Claim waits until its caller gives up, as a store that
// does not answer does.
type stallingStore struct{ agentrt.MemoryStore }

func (*stallingStore) Claim(ctx context.Context, inv agentrt.Invocation) (agentrt.Result, bool, error) {
	<-ctx.Done()
	return agentrt.Result{}, false, ctx.Err()
}

// TestRouteClientGone: a caller that leaves while the store keeps it
// waiting is answered nothing, executes nothing, and is observed as
// client_gone with status 499, not as a store failure.
func TestRouteClientGone(t *testing.T) {
	h := newEchoer()
	route, ev := newRoute(t, h, &stallingStore{})
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/cb/s-full/tools/echo",
		strings.NewReader(`{"tool_call_id":"g1","args":{"text":"x"}}`))
	req.Header.Set("Authorization", "Bearer sbx")
	w := httptest.NewRecorder()
	cancel() // gone before the store answers
	route.ServeHTTP(w, req)
	if w.Body.Len() != 0 || h.count("g1") != 0 {
		t.Errorf("answered %q, executed %d times; want nothing", w.Body, h.count("g1"))
	}
	if e := ev.last(); e.Outcome != "client_gone" || e.Status != 499 || e.StoreErr != nil {
		t.Errorf("event %+v", e)
	}
}

// TestRouteClientGoneFromSessions: a caller that leaves while Sessions
// keeps it waiting is observed as client_gone with status 499, not as a
// failed session lookup (503, logged at level Error).
func TestRouteClientGoneFromSessions(t *testing.T) {
	var log strings.Builder
	ev := &events{}
	route, err := agentrt.NewRoute(&fakeContract, agentrt.RouteConfig[handler, mode]{
		Handler: newEchoer(), Auth: auth,
		Sessions: agentrt.SessionsFunc[mode](func(ctx context.Context, id string) (mode, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}),
		Logger:  slog.New(slog.NewTextHandler(&log, nil)),
		Observe: ev.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/cb/s-full/tools/echo",
		strings.NewReader(`{"tool_call_id":"g2","args":{"text":"x"}}`))
	req.Header.Set("Authorization", "Bearer sbx")
	w := httptest.NewRecorder()
	cancel() // gone before Sessions answers
	route.ServeHTTP(w, req)
	if e := ev.last(); w.Body.Len() != 0 || e.Outcome != "client_gone" || e.Status != 499 || strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("answered %q, observed %+v, logged:\n%s", w.Body, e, log.String())
	}
}

// TestRouteClientGoneFromAuth: a caller that leaves while its token is
// verified is observed as client_gone with status 499, not as a refused
// token (401 unauthorized), which a gateway may alert on.
func TestRouteClientGoneFromAuth(t *testing.T) {
	ev := &events{}
	route, err := agentrt.NewRoute(&fakeContract, agentrt.RouteConfig[handler, mode]{
		Handler: newEchoer(), Sessions: sessions,
		Auth: agentrt.AuthenticatorFunc(func(ctx context.Context, token string) (agentrt.Claims, error) {
			<-ctx.Done()
			return agentrt.Claims{}, ctx.Err()
		}),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Observe: ev.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/cb/s-full/tools/echo",
		strings.NewReader(`{"tool_call_id":"g3","args":{"text":"x"}}`))
	req.Header.Set("Authorization", "Bearer sbx")
	cancel() // gone before the token is verified
	w := httptest.NewRecorder()
	route.ServeHTTP(w, req)
	if e := ev.last(); w.Body.Len() != 0 || e.Outcome != "client_gone" || e.Status != 499 {
		t.Errorf("answered %q, observed %+v; want nothing answered, client_gone 499", w.Body, e)
	}
}

// TestRoutePanicOfSessions: a Sessions (or Auth, or Store) that panics is
// left to net/http, which logs it and drops the connection, but the route
// still logs and observes the request as the gateway's bug: status 500,
// outcome "panicked", at level Error — not status 0 with no outcome at
// level Info, as it did.
func TestRoutePanicOfSessions(t *testing.T) {
	var log strings.Builder
	ev := &events{}
	route, err := agentrt.NewRoute(&fakeContract, agentrt.RouteConfig[handler, mode]{
		Handler: newEchoer(), Auth: auth,
		Sessions: agentrt.SessionsFunc[mode](func(context.Context, string) (mode, error) { panic("no database") }),
		Logger:   slog.New(slog.NewTextHandler(&log, nil)),
		Observe:  ev.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/cb/s-full/tools/echo", strings.NewReader(`{"tool_call_id":"p1","args":{"text":"x"}}`))
	req.Header.Set("Authorization", "Bearer sbx")
	func() {
		defer func() {
			if p := recover(); p != "no database" {
				t.Errorf("the panic that reached net/http: %v", p)
			}
		}()
		route.ServeHTTP(httptest.NewRecorder(), req)
	}()
	if e := ev.last(); e.Status != http.StatusInternalServerError || e.Outcome != "panicked" || !strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("observed %+v, logged:\n%s", e, log.String())
	}
}

// TestRouteInvalidSessionMode: a Sessions that gives a mode the contract
// lacks is the gateway's misconfiguration: the call is answered 500
// saying so, logged at level Error with the mode, and not executed — not
// refused by the mode gate as if the caller had called a tool its session
// lacks (200, logged at level Info).
func TestRouteInvalidSessionMode(t *testing.T) {
	var log strings.Builder
	h := newEchoer()
	route, err := agentrt.NewRoute(&fakeContract, agentrt.RouteConfig[handler, mode]{
		Handler: h, Auth: auth, Sessions: sessions, Logger: slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	a := serve(route, request{path: "/cb/s-odd/tools/echo", token: "sbx", body: `{"tool_call_id":"o1","args":{"text":"x"}}`})
	if a.status != 500 || a.code != "invalid_session_mode" || !strings.Contains(a.errorText, "the gateway is misconfigured") ||
		!strings.Contains(a.errorText, `"odd"`) || h.count("o1") != 0 {
		t.Errorf("answered %+v, executed %d times", a, h.count("o1"))
	}
	if !strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), "mode=odd") {
		t.Errorf("log lacks an Error record with the mode:\n%s", log.String())
	}
}

// TestRouteRefusalTexts: an unknown tool named by a stub (it sent a
// fingerprint) is answered with the advice to regenerate the sandbox's
// tool files, and a body that cannot be read is a 400 saying why.
func TestRouteRefusalTexts(t *testing.T) {
	route, _ := newRoute(t, newEchoer(), nil)
	const advice = "the sandbox's tool files do not match the gateway's contract"
	for fp, want := range map[string]bool{"": false, "e1": true} {
		a := serve(route, request{path: "/cb/s-full/tools/nope", token: "sbx", fingerprint: fp})
		if a.code != "unknown_tool" || !strings.HasPrefix(a.errorText, "unknown tool nope") || strings.Contains(a.errorText, advice) != want {
			t.Errorf("fingerprint %q: %+v", fp, a)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/cb/s-full/tools/echo", iotest.ErrReader(errors.New("connection reset")))
	req.Header.Set("Authorization", "Bearer sbx")
	w := httptest.NewRecorder()
	route.ServeHTTP(w, req)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"reading the request body: connection reset"`) {
		t.Errorf("a body that cannot be read: %d %s", w.Code, w.Body)
	}
}

// TestRouteClientGoneMidBody: a caller whose connection drops before its
// body (of a Content-Length not reached) has arrived is observed as
// client_gone 499, as one that leaves while the store keeps it waiting,
// not as the sandbox's malformed body (400 invalid_body).
func TestRouteClientGoneMidBody(t *testing.T) {
	events := make(chan agentrt.CallEvent, 1)
	route, err := agentrt.NewRoute(&fakeContract, agentrt.RouteConfig[handler, mode]{
		Handler: newEchoer(), Auth: auth, Sessions: sessions,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Observe: func(_ context.Context, ev agentrt.CallEvent) { events <- ev },
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(route)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /cb/s-full/tools/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sbx\r\n"+
		"Content-Length: 100\r\n\r\n{\"tool_call_id\":")
	time.Sleep(50 * time.Millisecond) // the route reads the first part
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

// corruptStore replays, for every call, a stored result whose data is not
// JSON (a custom Store whose record was damaged).
type corruptStore struct{}

func (corruptStore) Claim(context.Context, agentrt.Invocation) (agentrt.Result, bool, error) {
	return agentrt.Result{Success: true, Result: "done", Data: []byte("{not json")}, true, nil
}

func (corruptStore) Complete(context.Context, agentrt.Invocation, agentrt.Result) error { return nil }

// TestRouteUnencodableResult: a result the route cannot encode is answered
// 200 {success: false} saying so, not a broken body, and the event says
// the answer failed.
func TestRouteUnencodableResult(t *testing.T) {
	route, ev := newRoute(t, newEchoer(), corruptStore{})
	a := serve(route, request{path: "/cb/s-full/tools/echo", token: "sbx", body: `{"tool_call_id":"u1","args":{"text":"x"}}`})
	if a.status != 200 || a.success || !strings.HasPrefix(a.result, "the gateway could not encode the result: ") || a.replay != "true" {
		t.Errorf("answer %+v", a)
	}
	if e := ev.last(); e.Outcome != "replayed" || e.Success {
		t.Errorf("event %+v", e)
	}
}

// TestNewRoute: the route needs a handler, an authenticator, the sessions
// and a callback path with both placeholders.
func TestNewRoute(t *testing.T) {
	if _, err := agentrt.NewRoute(&fakeContract, agentrt.RouteConfig[handler, mode]{Auth: auth, Sessions: sessions}); err == nil {
		t.Error("a route without a handler")
	}
	bad := fakeContract
	bad.CallbackPath = "/cb/{sessionId}/tools"
	if _, err := agentrt.NewRoute(&bad, agentrt.RouteConfig[handler, mode]{Handler: newEchoer(), Auth: auth, Sessions: sessions}); err == nil ||
		!strings.Contains(err.Error(), "{toolName}") {
		t.Errorf("a callback path without {toolName}: %v", err)
	}
}

// TestReply: a handler's answer becomes the result body, its data as JSON
// unless it has none.
func TestReply(t *testing.T) {
	for _, tc := range []struct {
		res  agentrt.Result
		want string
	}{
		{agentrt.Reply("t", agentrt.Output[echoData]{Result: "ok", Data: echoData{Text: "x"}}, nil), `{"success":true,"result":"ok","data":{"text":"x"}}`},
		{agentrt.Reply("t", agentrt.Output[agentrt.NoData]{Result: "ok"}, nil), `{"success":true,"result":"ok"}`},
		{agentrt.Reply("t", agentrt.Output[func()]{Data: func() {}}, nil), `{"success":false,"result":"t failed: encoding its result: json: unsupported type: func()"}`},
		{agentrt.NotInMode("t", modeBare), `{"success":false,"result":"Tool t is not available in bare sessions"}`},
		{agentrt.NotInMode("t", mode("")), `{"success":false,"result":"Tool t is not available in unknown-mode sessions"}`},
		{agentrt.InvalidArguments("t", "f1", "f1", errors.New("bad")), `{"success":false,"result":"Invalid arguments: bad"}`},
	} {
		if got, _ := json.Marshal(tc.res); string(got) != tc.want {
			t.Errorf("got %s\nwant %s", got, tc.want)
		}
	}
}
