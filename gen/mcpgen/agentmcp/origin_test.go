package agentmcp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
)

type noHandler struct{}

// oneTool is a contract of one gateway tool, "echo", in its one mode, "m".
var oneTool = agentrt.Contract[noHandler, string]{
	Name:         "one",
	Revision:     "1",
	Tools:        []agentrt.ToolDesc{{Name: "echo", FileName: "echo", Gateway: true, Fingerprint: "e1"}},
	Modes:        []string{"m"},
	Injects:      func(string, int) bool { return true },
	CallbackPath: "/cb/{sessionId}/tools/{toolName}",
	Retention:    time.Minute,
	Dispatch: func(ctx context.Context, h noHandler, call agentrt.Call[string], args []byte) agentrt.Result {
		return agentrt.Result{Success: true, Result: "echoed"}
	},
}

// TestOrigin: a request without Origin (no browser) and one from the
// server's own origin are served; one from a foreign web origin is refused
// with 403 before its token is checked, unless AllowedOrigins lists it;
// a foreign name rebound to the loopback address the server listens on is
// refused though its Origin and Host agree (the conformance suite's
// dns-rebinding-protection probe). An allowed Origin is answered under
// CORS, its preflight included, which carries no token.
func TestOrigin(t *testing.T) {
	const console = "https://Console.Example.com"
	s, err := agentmcp.New(&oneTool, []agentmcp.Tool{{Tool: 0, Description: "echoes", Schema: `{"type":"object"}`}},
		agentmcp.Config[noHandler, string]{
			Handler: noHandler{},
			Auth: agentrt.AuthenticatorFunc(func(ctx context.Context, token string) (agentrt.Claims, error) {
				if token != "t" {
					return agentrt.Claims{}, errors.New("bad token")
				}
				return agentrt.Claims{Source: agentrt.SourceSandbox}, nil
			}),
			Sessions:       agentrt.SessionsFunc[string](func(ctx context.Context, id string) (string, error) { return "m", nil }),
			AllowedOrigins: []string{console},
		})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s) // on 127.0.0.1, a loopback address
	defer srv.Close()
	own := srv.Listener.Addr().String()

	for _, c := range []struct {
		name, origin, host, token string
		status                    int
	}{
		{"no Origin", "", "", "t", 200},
		{"no Origin, no token", "", "", "", 401},
		{"its own origin", "http://" + own, "", "t", 200},
		{"localhost", "http://localhost:1234", "localhost:1234", "t", 200},
		{"a listed origin", strings.ToLower(console), "", "t", 200},
		{"a foreign origin", "http://evil.example.com", "", "t", 403},
		{"a foreign origin, no token", "http://evil.example.com", "", "", 403},
		{"a listed origin on another port", console + ":8443", "", "t", 403},
		{"Origin null", "null", "", "t", 403},
		{"a foreign name rebound to loopback", "http://evil.example.com", "evil.example.com", "t", 403},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+agentmcp.Path,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(agentmcp.SessionHeader, "s1")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.host != "" {
			req.Host = c.host
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		switch {
		case res.StatusCode != c.status:
			t.Errorf("%s: %d %s, want %d", c.name, res.StatusCode, b, c.status)
		case c.status == 200 && !strings.Contains(string(b), `"name":"echo"`):
			t.Errorf("%s: tools/list did not list echo: %s", c.name, b)
		case c.status == 403 && !strings.Contains(string(b), `"code":"origin_not_allowed"`):
			t.Errorf("%s: 403 %s, want code origin_not_allowed", c.name, b)
		case c.status != 403 && res.Header.Get("Access-Control-Allow-Origin") != c.origin:
			t.Errorf("%s: Access-Control-Allow-Origin %q, want %q", c.name, res.Header.Get("Access-Control-Allow-Origin"), c.origin)
		}
	}

	// A browser asks before it sends the token (a CORS preflight): a
	// listed origin may, a foreign one may not.
	for origin, status := range map[string]int{strings.ToLower(console): 204, "http://evil.example.com": 403} {
		req, err := http.NewRequest(http.MethodOptions, srv.URL+agentmcp.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,x-agentc-session,mcp-protocol-version")
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		allowed := res.Header.Get("Access-Control-Allow-Origin") == origin &&
			res.Header.Get("Access-Control-Allow-Headers") == req.Header.Get("Access-Control-Request-Headers")
		if res.StatusCode != status || allowed != (status == 204) {
			t.Errorf("preflight from %s: %d %v, want %d", origin, res.StatusCode, res.Header, status)
		}
	}

	for _, bad := range []string{"console.example.com", "https://console.example.com/app", "*"} {
		_, err := agentmcp.New(&oneTool, nil, agentmcp.Config[noHandler, string]{Handler: noHandler{},
			Auth: agentrt.AuthenticatorFunc(nil), Sessions: agentrt.SessionsFunc[string](nil), AllowedOrigins: []string{bad}})
		if err == nil || !strings.Contains(err.Error(), "AllowedOrigins") {
			t.Errorf("AllowedOrigins %q: %v, want an error", bad, err)
		}
	}
}
