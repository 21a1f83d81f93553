package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// Sessions of the test gateway, by mode.
const (
	setupSession  = "11111111-1111-4111-8111-111111111111"
	codingSession = "22222222-2222-4222-8222-222222222222"
	autoSession   = "33333333-3333-4333-8333-333333333333"
	orgID         = "org-test"
)

// modes is the test gateway's session table.
var modes = map[string]contract.Mode{
	setupSession:  contract.ModeSetup,
	codingSession: contract.ModeCoding,
	autoSession:   contract.ModeAutomation,
}

// tokenFor is the sandbox token of a session: "sbx." + the session ID.
func tokenFor(session string) string { return "sbx." + session }

// auth verifies the test tokens: "sbx.<session>" is a sandbox token for the
// session, "sbx-any" a sandbox token for any session, "api.x" a token of
// source "api"; anything else is invalid.
var auth = agentrt.AuthenticatorFunc(func(ctx context.Context, token string) (agentrt.Claims, error) {
	switch {
	case strings.HasPrefix(token, "sbx."):
		return agentrt.Claims{Source: "sandbox", SessionID: strings.TrimPrefix(token, "sbx."), OrganizationID: orgID}, nil
	case token == "sbx-any":
		return agentrt.Claims{Source: "sandbox", OrganizationID: orgID}, nil
	case strings.HasPrefix(token, "api."):
		return agentrt.Claims{Source: "api", OrganizationID: orgID}, nil
	}
	return agentrt.Claims{}, errors.New("bad signature")
})

var sessions = contract.SessionsFunc(func(ctx context.Context, id string) (contract.Mode, error) {
	if m, ok := modes[id]; ok {
		return m, nil
	}
	return "", agentrt.ErrUnknownSession
})

// handler is a contract.Handler that counts executions per tool_call_id and
// can hold executions until released.
type handler struct {
	mu    sync.Mutex
	calls map[string]int // by tool_call_id
	total atomic.Int64
	// gate, when not nil, holds every execution until it is closed;
	// started receives each call's tool_call_id as it begins.
	gate    chan struct{}
	started chan string
	// ctxErr records whether an execution saw its context cancelled or
	// with a deadline.
	ctxErr atomic.Value
}

func newHandler() *handler { return &handler{calls: map[string]int{}} }

func (h *handler) enter(ctx context.Context, call contract.Call) {
	h.mu.Lock()
	h.calls[call.ToolCallID]++
	h.mu.Unlock()
	h.total.Add(1)
	if h.started != nil {
		h.started <- call.ToolCallID
	}
	if h.gate != nil {
		<-h.gate
	}
	if err := ctx.Err(); err != nil {
		h.ctxErr.Store(err.Error())
	}
	if d, ok := ctx.Deadline(); ok {
		h.ctxErr.Store("a deadline, " + d.String())
	}
}

// count returns how often the call with the tool_call_id executed.
func (h *handler) count(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[id]
}

func (h *handler) AutomationComplete(ctx context.Context, call contract.Call, args contract.AutomationCompleteArgs) (contract.Output[contract.AutomationCompleteResult], error) {
	h.enter(ctx, call)
	return contract.Output[contract.AutomationCompleteResult]{
		Result: "Run " + args.RunID + " completed",
		Data:   contract.AutomationCompleteResult{RunID: args.RunID, Outcome: contract.AutomationCompleteResultOutcome(args.Outcome)},
	}, nil
}

func (h *handler) SaveEnvFiles(ctx context.Context, call contract.Call, args contract.SaveEnvFilesArgs) (contract.Output[contract.SaveEnvFilesResult], error) {
	h.enter(ctx, call)
	return contract.Output[contract.SaveEnvFilesResult]{Result: "saved", Data: contract.SaveEnvFilesResult{ConfigurationID: "cfg-1"}}, nil
}

func (h *handler) SaveServiceCommands(ctx context.Context, call contract.Call, args contract.SaveServiceCommandsArgs) (contract.Output[contract.SaveServiceCommandsResult], error) {
	h.enter(ctx, call)
	return contract.Output[contract.SaveServiceCommandsResult]{
		Result: fmt.Sprintf("Saved %d service commands", len(args.Commands)),
		Data:   contract.SaveServiceCommandsResult{ConfigurationID: "cfg-1", CommandCount: int64(len(args.Commands))},
	}, nil
}

func (h *handler) SaveSnapshot(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.SaveSnapshotResult], error) {
	h.enter(ctx, call)
	h.mu.Lock()
	n := len(h.calls)
	h.mu.Unlock()
	return contract.Output[contract.SaveSnapshotResult]{
		Result: "Snapshot saved for call " + call.ToolCallID,
		Data:   contract.SaveSnapshotResult{SnapshotID: fmt.Sprintf("snap-%d", n), Target: contract.SaveSnapshotResultTargetConfiguration},
	}, nil
}

// discard is a logger that drops everything.
var discard = slog.New(slog.DiscardHandler)

// gateway is a generated route on a loopback test server.
type gateway struct {
	h     *handler
	route *contract.Route
	srv   *httptest.Server
	// logs holds the route's JSON log records.
	logs *syncBuffer
}

type gatewayOptions struct {
	store   agentrt.Store
	maxBody int64
	// quiet drops the logs instead of recording them.
	quiet bool
	// arrivals, when not nil, counts the requests that reached the server.
	arrivals *atomic.Int64
	// observe is the route's RouteConfig.Observe.
	observe func(context.Context, agentrt.CallEvent)
}

func newGateway(t testing.TB, h *handler, o gatewayOptions) *gateway {
	t.Helper()
	g := &gateway{h: h, logs: &syncBuffer{}}
	logger := slog.New(slog.NewJSONHandler(g.logs, nil))
	if o.quiet {
		logger = discard
	}
	r, err := contract.NewRoute(contract.RouteConfig{Handler: h, Auth: auth, Sessions: sessions, Store: o.store, Logger: logger, MaxBodyBytes: o.maxBody, Observe: o.observe})
	if err != nil {
		t.Fatal(err)
	}
	g.route = r
	mux := http.NewServeMux()
	mux.Handle(r.Pattern(), r)
	mux.Handle("/", r) // so that the route's own 404 and 405 answers are tested
	var root http.Handler = mux
	if o.arrivals != nil {
		root = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			o.arrivals.Add(1)
			mux.ServeHTTP(w, r)
		})
	}
	g.srv = httptest.NewServer(root)
	t.Cleanup(g.srv.Close)
	return g
}

// url returns the callback URL of a session's tool.
func (g *gateway) url(session, tool string) string {
	return g.srv.URL + strings.NewReplacer("{sessionId}", session, "{toolName}", tool).Replace(contract.CallbackPath)
}

// response is an answer of the route.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	Result contract.Result
}

func (r response) String() string { return fmt.Sprintf("%d %s", r.Status, bytes.TrimSpace(r.Body)) }

// post sends one callback with the session's token.
func post(t testing.TB, client *http.Client, url, token, fingerprint string, body string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if fingerprint != "" {
		req.Header.Set(agentrt.FingerprintHeader, fingerprint)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Errorf("POST %s: %v", url, err)
		return response{}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Errorf("POST %s: reading: %v", url, err)
	}
	out := response{Status: res.StatusCode, Header: res.Header, Body: b}
	if res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &out.Result); err != nil {
			t.Errorf("POST %s: 200 with a body that is not a Result: %s", url, b)
		}
	}
	return out
}

// body is a callback body.
func body(id string, args string) string {
	return fmt.Sprintf(`{"tool_call_id":%q,"args":%s}`, id, args)
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// records returns the JSON log records written so far.
func (b *syncBuffer) records(t testing.TB) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b.b.Bytes()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("log line %s: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// loopbackClient is an HTTP client for many concurrent loopback requests.
func loopbackClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 60 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			IdleConnTimeout:     30 * time.Second,
		},
	}
}
