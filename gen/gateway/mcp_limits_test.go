package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
	"github.com/agentc-dev/agentc/generated/go/contract"
	"github.com/agentc-dev/agentc/generated/go/contractmcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// countingStore is a Store that counts the calls made to it, so that a
// test sees a refused request not touch the store at all.
type countingStore struct {
	agentrt.Store
	calls atomic.Int64
	// claimed counts the claims the Store granted for execution.
	claimed atomic.Int64
}

func (s *countingStore) Claim(ctx context.Context, inv agentrt.Invocation) (contract.Result, bool, error) {
	s.calls.Add(1)
	res, done, err := s.Store.Claim(ctx, inv)
	if err == nil && !done {
		s.claimed.Add(1)
	}
	return res, done, err
}

func (s *countingStore) Complete(ctx context.Context, inv agentrt.Invocation, res contract.Result) error {
	s.calls.Add(1)
	return s.Store.Complete(ctx, inv, res)
}

// limitsGateway serves both transports on one mux with one Handler and one
// Store, as a gateway mounts them; its Sessions puts every session in
// setup mode and counts how often it was asked.
type limitsGateway struct {
	srv   *httptest.Server
	mcp   *contractmcp.Server
	h     *handler
	store *countingStore
	asked atomic.Int64
}

// newLimitsGateway serves the callback route and the MCP server on one mux
// with one handler and store; observe, if not nil, is both's Observe.
func newLimitsGateway(t *testing.T, store agentrt.Store, observe ...func(context.Context, agentrt.CallEvent)) *limitsGateway {
	t.Helper()
	g := &limitsGateway{h: newHandler(), store: &countingStore{Store: store}}
	sessions := contract.SessionsFunc(func(ctx context.Context, id string) (contract.Mode, error) {
		g.asked.Add(1)
		return contract.ModeSetup, nil
	})
	var obs func(context.Context, agentrt.CallEvent)
	if len(observe) > 0 {
		obs = observe[0]
	}
	route, err := contract.NewRoute(contract.RouteConfig{Handler: g.h, Auth: auth, Sessions: sessions, Store: g.store,
		Logger: discard, Observe: obs})
	if err != nil {
		t.Fatal(err)
	}
	g.mcp, err = contractmcp.New(contractmcp.Config{Handler: g.h, Auth: auth, Sessions: sessions, Store: g.store,
		Logger: discard, Observe: obs})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(route.Pattern(), route)
	mux.Handle(g.mcp.Pattern(), g.mcp)
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

// callback posts body to save_snapshot's callback URL of the session,
// given unescaped, with a token valid for any session.
func (g *limitsGateway) callback(t *testing.T, session, body string) response {
	t.Helper()
	r := post(t, g.srv.Client(), g.srv.URL+callbackPath(url.PathEscape(session), "save_snapshot"), "sbx-any", "", body)
	if r.Status == 0 {
		t.FailNow()
	}
	return r
}

// mcpRequest is a POST of a JSON-RPC message to the MCP server as the
// session, the header set as it is (no validation), with a token valid for
// any session.
func mcpRequest(target, session, msg string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer sbx-any")
	req.Header[agentmcp.SessionHeader] = []string{session}
	return req
}

// rpcAnswer is a JSON-RPC answer to tools/call.
type rpcAnswer struct {
	Result *struct {
		Meta              map[string]any  `json:"_meta"`
		IsError           bool            `json:"isError"`
		StructuredContent contract.Result `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// toolsCall sends save_snapshot's tools/call over HTTP with args and, when
// rawID is not empty, the tool_call_id in _meta: rawID is its JSON token,
// sent as it is (the SDK's client would re-encode a lone surrogate or
// invalid UTF-8 as U+FFFD before it left).
func (g *limitsGateway) toolsCall(t *testing.T, rawID, args string) rpcAnswer {
	t.Helper()
	meta := ""
	if rawID != "" {
		meta = `,"_meta":{"` + agentmcp.ToolCallIDMeta + `":` + rawID + `}`
	}
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save_snapshot","arguments":` + args + meta + `}}`
	req := mcpRequest(g.srv.URL+agentmcp.Path, setupSession, msg)
	req.RequestURI = ""
	res, err := g.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := readAll(res)
	var a rpcAnswer
	if err != nil || res.StatusCode != 200 || json.Unmarshal(b, &a) != nil || (a.Result == nil) == (a.Error == nil) {
		t.Fatalf("tools/call with id %s: %d %s (%v), want a JSON-RPC answer", rawID, res.StatusCode, b, err)
	}
	return a
}

// TestMCPSessionIDLimits: a session header the callback route would refuse
// in its path — a NUL, invalid UTF-8, 10 KB — is answered 400
// invalid_session_id with the callback route's message for the same id,
// before Sessions or the Store is asked, with a MemoryStore and with an
// SQLStore. A NUL cannot cross net/http (its server refuses the request
// before any handler, and its client will not send it), so the server is
// also called as an http.Handler, which is what another front end hands
// it; the others go over the wire too.
func TestMCPSessionIDLimits(t *testing.T) {
	cases := []struct {
		name, id, says string
		wire           bool
	}{
		{"NUL", "a\x00b", "control characters", false},
		{"invalid UTF-8", "a\xffb", "Unicode", true},
		{"a UTF-8 surrogate", "a\xed\xa0\x80b", "Unicode", true},
		{"10 KB", strings.Repeat("s", 10<<10), "MaxSessionIDLength", true},
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	answers := map[string][]string{} // by case: the MCP answer with each store
	forEachStore(t, func(t *testing.T, store agentrt.Store, count func() int) {
		g := newLimitsGateway(t, store)
		for _, tc := range cases {
			cb := g.callback(t, tc.id, body("s-1", "{}"))
			want, code := jsonError(t, tc.name+" on the callback route", cb)
			if cb.Status != 400 || code != "invalid_session_id" || !strings.Contains(want, tc.says) {
				t.Fatalf("%s: the callback route answered %v, want 400 invalid_session_id saying %q", tc.name, cb, tc.says)
			}
			rec := httptest.NewRecorder()
			g.mcp.ServeHTTP(rec, mcpRequest(agentmcp.Path, tc.id, initialize))
			got := []response{{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}}
			if tc.wire {
				req := mcpRequest(g.srv.URL+agentmcp.Path, tc.id, initialize)
				req.RequestURI = ""
				res, err := g.srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := readAll(res)
				got = append(got, response{Status: res.StatusCode, Header: res.Header, Body: b})
			}
			for _, r := range got {
				msg, code := jsonError(t, tc.name+" over MCP", r)
				if r.Status != 400 || code != "invalid_session_id" || msg != want {
					t.Errorf("%s over MCP: %v, want 400 invalid_session_id %q", tc.name, r, want)
				}
				answers[tc.name] = append(answers[tc.name], r.String())
			}
		}
		if n := g.asked.Load(); n != 0 {
			t.Errorf("Sessions was asked %d times for refused session ids", n)
		}
		if n := g.store.calls.Load(); n != 0 || count() != 0 {
			t.Errorf("refused session ids reached the store: %d calls, %d rows", n, count())
		}
		if n := g.h.total.Load(); n != 0 {
			t.Errorf("refused session ids executed %d times", n)
		}
	})
	for name, a := range answers {
		for _, x := range a[1:] {
			if x != a[0] {
				t.Errorf("%s: MCP answered %s and %s (by store, by front end)", name, a[0], x)
			}
		}
	}
}

// TestMCPToolCallIDLimits: a _meta tool_call_id the callback route would
// refuse in its body — "\u0000", a lone surrogate, invalid UTF-8, more than
// MaxToolCallIDLength bytes, empty, not a string — is refused with the
// callback route's message for the same id, without executing and without
// touching the store, with a MemoryStore and with an SQLStore. Two lone surrogates are not one id
// (the SDK decodes both to U+FFFD), while an escaped surrogate pair and a
// real U+FFFD are ids like any other.
func TestMCPToolCallIDLimits(t *testing.T) {
	refused := []struct{ name, rawID, says string }{
		{"NUL", `"a\u0000b"`, "control characters"},
		{"lone surrogate", `"\ud800-x"`, "lone surrogate"},
		{"another lone surrogate", `"\udbff-x"`, "lone surrogate"},
		{"reversed pair", `"\udc00\ud800"`, "lone surrogate"},
		{"invalid UTF-8", "\"\xff-x\"", "invalid UTF-8"},
		{"one byte over", `"` + strings.Repeat("i", agentrt.MaxToolCallIDLength+1) + `"`, "MaxToolCallIDLength"},
		{"empty", `""`, "must not be empty"},
		{"a number", `7`, "must be a string"},
	}
	forEachStore(t, func(t *testing.T, store agentrt.Store, count func() int) {
		g := newLimitsGateway(t, store)
		for _, tc := range refused {
			cb := g.callback(t, setupSession, `{"tool_call_id":`+tc.rawID+`,"args":{}}`)
			want, code := jsonError(t, tc.name+" on the callback route", cb)
			if cb.Status != 400 || code != "invalid_body" || !strings.Contains(want, tc.says) {
				t.Fatalf("%s: the callback route answered %v, want 400 invalid_body saying %q", tc.name, cb, tc.says)
			}
			a := g.toolsCall(t, tc.rawID, `{"message":"m"}`)
			if a.Error == nil || a.Error.Code != jsonrpc.CodeInvalidParams || !strings.HasSuffix(a.Error.Message, ": "+want) ||
				!strings.Contains(a.Error.Message, agentmcp.ToolCallIDMeta) {
				t.Errorf("%s over MCP: %+v %+v, want an invalid-params error naming _meta %q and saying %q",
					tc.name, a.Result, a.Error, agentmcp.ToolCallIDMeta, want)
			}
		}
		if n := g.h.total.Load(); n != 0 {
			t.Errorf("refused tool_call_ids executed %d times", n)
		}
		if n := g.store.calls.Load(); n != 0 || count() != 0 {
			t.Errorf("refused tool_call_ids reached the store: %d calls, %d rows", n, count())
		}

		// Ids the callback route takes are taken: at the limit, a real
		// U+FFFD, an escaped surrogate pair (the same id as the raw 😀).
		for _, rawID := range []string{`"` + strings.Repeat("i", agentrt.MaxToolCallIDLength) + `"`, `"\ufffd-x"`, `"\ud83d\ude00"`, `"😀"`} {
			if a := g.toolsCall(t, rawID, `{"message":"m"}`); a.Error != nil || !a.Result.StructuredContent.Success {
				t.Errorf("tool_call_id %.40s: %+v %+v, want success", rawID, a.Result, a.Error)
			}
		}
		if g.h.total.Load() != 3 || g.h.count("\ufffd-x") != 1 || g.h.count("😀") != 1 || count() != 3 {
			t.Errorf("%d executions (U+FFFD %d, 😀 %d), %d stored calls; want 3, 1, 1, 3",
				g.h.total.Load(), g.h.count("\ufffd-x"), g.h.count("😀"), count())
		}
	})
}

// TestMCPRetriesCallbackCall: a call made on the callback route and retried
// through MCP with the same tool_call_id and the same arguments spelled
// otherwise — key order, whitespace, escapes, number spelling, an
// overwritten repeated key — executes once, and the retry gets the
// callback's result as a replay; other arguments are a conflict. With a
// MemoryStore and with an SQLStore.
func TestMCPRetriesCallbackCall(t *testing.T) {
	const first = `{"message":"m","extra":{"a":1,"b":"x","c":[true,null]}}`
	cases := []struct {
		name, again string
		replay      bool
	}{
		{"key order", `{"extra":{"c":[true,null],"b":"x","a":1},"message":"m"}`, true},
		{"whitespace", "{ \"message\" :\n\t\"m\", \"extra\": {\"a\": 1, \"b\": \"x\", \"c\": [ true, null ]} }", true},
		{"escapes", `{"message":"\u006d","extra":{"a":1,"b":"\u0078","c":[true,null]}}`, true},
		{"number spelling", `{"message":"m","extra":{"a":1.0e0,"b":"x","c":[true,null]}}`, true},
		{"repeated key", `{"message":"other","extra":{"a":1,"b":"x","c":[true,null]},"message":"m"}`, true},
		{"other value", `{"message":"m","extra":{"a":2,"b":"x","c":[true,null]}}`, false},
		{"other array order", `{"message":"m","extra":{"a":1,"b":"x","c":[null,true]}}`, false},
	}
	forEachStore(t, func(t *testing.T, store agentrt.Store, count func() int) {
		g := newLimitsGateway(t, store)
		for _, tc := range cases {
			id := "retry-" + strings.ReplaceAll(tc.name, " ", "-")
			cb := g.callback(t, setupSession, body(id, first))
			if cb.Status != 200 || !cb.Result.Success {
				t.Fatalf("%s: the callback call: %v", tc.name, cb)
			}
			a := g.toolsCall(t, strconv.Quote(id), tc.again)
			switch {
			case a.Error != nil:
				t.Errorf("%s: the MCP retry: %+v", tc.name, a.Error)
			case tc.replay:
				got := a.Result.StructuredContent
				if a.Result.Meta[agentmcp.ReplayMeta] != true || got.Result != cb.Result.Result || !sameJSON(got.Data, cb.Result.Data) {
					t.Errorf("%s: %s then %s over MCP: %+v, want a replay of %v", tc.name, first, tc.again, a.Result, cb)
				}
			default:
				if got := a.Result.StructuredContent; got.Success || !a.Result.IsError || !strings.Contains(got.Result, "already used") {
					t.Errorf("%s: %s then %s over MCP: %+v, want a conflict", tc.name, first, tc.again, a.Result)
				}
			}
			if n := g.h.count(id); n != 1 {
				t.Errorf("%s: executed %d times, want once", tc.name, n)
			}
		}
		if n := count(); n != len(cases) {
			t.Errorf("the store holds %d calls, want %d", n, len(cases))
		}
	})
}
