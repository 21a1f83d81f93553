package gateway_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/generated/go/contract"
	"github.com/agentc-dev/agentc/generated/go/contractmcp"
)

// TestSameWordsBothTransports: the callback route and the MCP server
// answer the same call with byte-identical texts — invalid arguments as
// "Invalid arguments: " and each issue as "<path>: <message>", a tool the
// session's mode lacks as "not available in coding sessions" — and report
// the same Observe outcome, "invalid_arguments" for a call refused for its
// arguments; neither executes a handler for those.
func TestSameWordsBothTransports(t *testing.T) {
	var viaCallback, viaMCP events
	h := newHandler()
	store := contract.NewMemoryStore()
	route, err := contract.NewRoute(contract.RouteConfig{Handler: h, Auth: auth, Sessions: sessions, Store: store,
		Logger: discard, Observe: viaCallback.observe})
	if err != nil {
		t.Fatal(err)
	}
	server, err := contractmcp.New(contractmcp.Config{Handler: h, Auth: auth, Sessions: sessions, Store: store,
		Logger: discard, Observe: viaMCP.observe})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(route.Pattern(), route)
	mux.Handle(server.Pattern(), server)
	g := &bothGateway{h: h, store: store, mcp: server, route: route, srv: httptest.NewServer(mux)}
	t.Cleanup(g.srv.Close)

	cases := []struct {
		session, tool, args string
		// want is the text both transports must answer; outcome the
		// Observe outcome both must report.
		want, outcome string
	}{
		{setupSession, "save_service_commands", `{"commands":[{"name":"","command":5}]}`,
			"Invalid arguments: commands.0.name: Too small: expected string to have >=1 characters, " +
				"commands.0.command: Invalid input: expected string, received number", "invalid_arguments"},
		{setupSession, "save_service_commands", `{"commands":[]}`,
			"Invalid arguments: commands: Too small: expected array to have >=1 items", "invalid_arguments"},
		{setupSession, "save_env_files", `{"files":[{"path":"/etc/x","format":"dotenv","mode":"secret","keys":[]}]}`,
			"Invalid arguments: files.0.path: Path must be relative, without a leading '/' and without '..' segments, " +
				"files.0.keys: Too small: expected array to have >=1 items", "invalid_arguments"},
		{codingSession, "save_service_commands", `{"commands":[{"name":"web","command":"npm start"}]}`,
			"Tool save_service_commands is not available in coding sessions", "rejected"},
		{setupSession, "save_service_commands", `{"commands":[{"name":"web","command":"npm start"}]}`,
			"Saved 1 service commands", "executed"},
	}
	executed := 0
	for i, c := range cases {
		label := c.tool + " " + c.args + " in session " + c.session
		cb := post(t, g.srv.Client(), g.callbackURL(c.session, c.tool), tokenFor(c.session), "", body(fmt.Sprintf("cb-%d", i), c.args))
		got, _, err := mcpCall(t, g.mustMCP(t, c.session), c.tool, fmt.Sprintf("mcp-%d", i), c.args)
		if err != nil {
			t.Errorf("%s: over MCP: %v", label, err)
			continue
		}
		if cb.Status != 200 || cb.Result.Result != c.want {
			t.Errorf("%s: the callback route answered %v, want the text %q", label, cb, c.want)
		}
		if got.Result != cb.Result.Result || got.Success != cb.Result.Success {
			t.Errorf("%s:\nMCP      %+v\ncallback %+v", label, got, cb.Result)
		}
		if c.outcome == "executed" {
			executed++
		}
		for side, ev := range map[string]*events{"callback": &viaCallback, "MCP": &viaMCP} {
			list := ev.got()
			if len(list) == 0 || list[len(list)-1].Outcome != c.outcome || list[len(list)-1].Tool != c.tool {
				t.Errorf("%s: %s observed %+v, want the outcome %q last", label, side, list, c.outcome)
			}
		}
	}
	if n := h.total.Load(); n != int64(2*executed) {
		t.Errorf("the handler executed %d calls, want %d (the valid ones, once per transport)", n, 2*executed)
	}

	// A name that is no gateway tool stays a JSON-RPC error over MCP (the
	// route's 404): only a tool the mode lacks is a refusal in words.
	if _, res, err := mcpCall(t, g.mustMCP(t, codingSession), "save_everything", "", `{}`); err == nil {
		t.Errorf("an unknown tool over MCP was answered %+v, want an error", res)
	} else if !strings.Contains(err.Error(), "save_everything") {
		t.Errorf("the unknown tool's error does not name it: %v", err)
	}
}
