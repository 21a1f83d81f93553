package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
	"github.com/agentc-dev/agentc/generated/go/contract"
	"github.com/agentc-dev/agentc/generated/go/contractmcp"
)

// bothGateway is a gateway serving both transports from one Handler and
// one Store, as a real gateway mounts them: the callback route and the MCP
// server on one mux.
type bothGateway struct {
	h     *handler
	store agentrt.Store
	mcp   *contractmcp.Server
	route *contract.Route
	srv   *httptest.Server
}

func newBothGateway(t testing.TB, h *handler, store agentrt.Store) *bothGateway {
	t.Helper()
	if store == nil {
		store = contract.NewMemoryStore()
	}
	r, err := contract.NewRoute(contract.RouteConfig{Handler: h, Auth: auth, Sessions: sessions, Store: store, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	m, err := contractmcp.New(contractmcp.Config{Handler: h, Auth: auth, Sessions: sessions, Store: store, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(r.Pattern(), r)
	mux.Handle(m.Pattern(), m)
	g := &bothGateway{h: h, store: store, mcp: m, route: r, srv: httptest.NewServer(mux)}
	t.Cleanup(g.srv.Close)
	return g
}

// callbackURL returns the callback URL of a session's tool.
func (g *bothGateway) callbackURL(session, tool string) string {
	return g.srv.URL + strings.NewReplacer("{sessionId}", session, "{toolName}", tool).Replace(contract.CallbackPath)
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}

// mcpSession connects the Go SDK's client to the gateway's MCP server as
// the session, with the token.
func (g *bothGateway) mcpSession(t testing.TB, session, token string, base http.RoundTripper) (*mcp.ClientSession, error) {
	t.Helper()
	if base == nil {
		base = http.DefaultTransport
	}
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		h.Set(agentmcp.SessionHeader, session)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agentc-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:   g.srv.URL + agentmcp.Path,
		HTTPClient: &http.Client{Transport: headerTransport{base: base, header: h}},
	}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// mustMCP is mcpSession that fails the test on error.
func (g *bothGateway) mustMCP(t testing.TB, session string) *mcp.ClientSession {
	t.Helper()
	cs, err := g.mcpSession(t, session, tokenFor(session), nil)
	if err != nil {
		t.Fatalf("connecting to the MCP server as %s: %v", session, err)
	}
	return cs
}

// mcpCall calls a tool over MCP, with the tool_call_id in _meta when id is
// not empty, and returns the result as the callback route's Result (from
// structuredContent) after checking it agrees with the text content and
// isError.
func mcpCall(t testing.TB, cs *mcp.ClientSession, tool, id, args string) (contract.Result, *mcp.CallToolResult, error) {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}
	if id != "" {
		p.Meta = mcp.Meta{agentmcp.ToolCallIDMeta: id}
	}
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		return contract.Result{}, nil, err
	}
	var out contract.Result
	b, err := json.Marshal(res.StructuredContent)
	if err != nil || json.Unmarshal(b, &out) != nil {
		t.Errorf("%s: structuredContent %s is not a Result", tool, b)
	}
	if len(res.Content) != 1 {
		t.Errorf("%s: %d content blocks, want 1", tool, len(res.Content))
	} else if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != out.Result {
		t.Errorf("%s: text content %#v, want the result %q", tool, res.Content[0], out.Result)
	}
	if res.IsError == out.Success {
		t.Errorf("%s: isError %v with success %v", tool, res.IsError, out.Success)
	}
	return out, res, nil
}
