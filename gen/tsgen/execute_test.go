package tsgen_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// gatewayRequest is one callback the fake gateway received.
type gatewayRequest struct {
	Path          string
	Authorization string
	ContentType   string
	ToolCallID    string          `json:"tool_call_id"`
	Args          json.RawMessage `json:"args"`
}

// fakeGateway answers callbacks like the real gateway: {success, result,
// data}. A tool_call_id containing "drop" has its first request's
// connection dropped before any answer; one containing "fail" gets
// success: false; one ending in ":500" gets HTTP 500, one ending in ":409"
// the gateway's JSON error of a conflict, one ending in ":text" a 200 whose
// body is not JSON, and one ending in ":cut" a 200 whose body is cut off by
// the connection's close, the first time (a suffix, because a random UUID,
// the call id when OpenCode passes none, may contain "500").
type fakeGateway struct {
	mu       sync.Mutex
	requests []gatewayRequest
	dropped  map[string]bool
}

func (g *fakeGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req gatewayRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Path = r.URL.EscapedPath()
	req.Authorization = r.Header.Get("Authorization")
	req.ContentType = r.Header.Get("Content-Type")
	g.mu.Lock()
	g.requests = append(g.requests, req)
	drop := strings.Contains(req.ToolCallID, "drop") && !g.dropped[req.ToolCallID]
	cut := strings.HasSuffix(req.ToolCallID, ":cut") && !g.dropped[req.ToolCallID]
	if drop || cut {
		g.dropped[req.ToolCallID] = true
	}
	g.mu.Unlock()
	switch {
	case drop:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // the sandbox froze: the socket is gone
		}
	case cut:
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err == nil {
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"succ")
			buf.Flush()
			conn.Close()
		}
	case strings.HasSuffix(req.ToolCallID, ":text"):
		io.WriteString(w, "<html>sign in</html>")
	case strings.HasSuffix(req.ToolCallID, ":500"):
		http.Error(w, "boom", http.StatusInternalServerError)
	case strings.HasSuffix(req.ToolCallID, ":409"):
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		json.NewEncoder(w).Encode(map[string]string{"error": "tool_call_id " + req.ToolCallID + " was already used", "code": "tool_call_id_conflict"})
	case strings.Contains(req.ToolCallID, "fail"):
		json.NewEncoder(w).Encode(map[string]any{"success": false, "result": "Failed to save: no configuration"})
	default:
		json.NewEncoder(w).Encode(map[string]any{"success": true, "result": "done " + req.ToolCallID, "data": map[string]any{"n": 1}})
	}
}

func (g *fakeGateway) take() []gatewayRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.requests
	g.requests = nil
	return out
}

// call is one execute() run under node.
type call struct {
	// Tool is the tool's file name; Args its raw arguments (JSON).
	Tool string
	Args string
	// MessageID and CallID go into the context; Abort "before" aborts it
	// before the call.
	MessageID, CallID, Abort string

	// WantOutput or WantError is the expected outcome (exact).
	WantOutput, WantError string
	// WantRequests are the callbacks the gateway must have received:
	// their tool_call_id (a trailing "*" matches any suffix) and args.
	WantRequests []wantRequest
}

type wantRequest struct {
	ToolCallID string
	Args       string
}

type callResult struct {
	OK     bool   `json:"ok"`
	Output string `json:"output"`
	Error  string `json:"error"`
}

// TestExecuteUnderNode imports each generated tool module under node with
// a stub OpenCode context: execute() must reject bad arguments with zod's
// issues, apply defaults, strip unknown keys, and call the gateway as seed
// 001 says (path, bearer token, {tool_call_id, args}), retrying a dropped
// connection with the same tool_call_id.
func TestExecuteUnderNode(t *testing.T) {
	t.Parallel()
	modules := nodetool.Dir(t)
	cases := map[string][]call{
		"": {
			{
				Tool: "save_service_commands", Args: `{}`,
				WantError: "Invalid arguments: commands: Invalid input: expected array, received undefined",
			},
			{
				Tool: "save_service_commands", Args: `{"commands": []}`,
				WantError: "Invalid arguments: commands: Too small: expected array to have >=1 items",
			},
			{
				Tool: "save_service_commands", Args: `{"commands": [{"name": "", "command": 5}]}`,
				WantError: "Invalid arguments: commands.0.name: Too small: expected string to have >=1 characters, commands.0.command: Invalid input: expected string, received number",
			},
			{
				Tool: "save_env_files", Args: `{"files": [{"path": "../x", "format": "dotenv", "mode": "secret", "keys": [{"key": "A", "required": true}]}]}`,
				WantError: "Invalid arguments: files.0.path: Path must be relative, without a leading '/' and without '..' segments",
			},
			{
				// Defaults applied, unknown keys stripped, one callback.
				Tool: "save_env_files", MessageID: "msg_1", CallID: "toolu_1",
				Args:         `{"files": [{"path": ".env", "format": "dotenv", "mode": "secret", "keys": [{"key": "A", "required": true, "extra": 1}]}], "extra": true}`,
				WantOutput:   "done msg_1:toolu_1",
				WantRequests: []wantRequest{{"msg_1:toolu_1", `{"files":[{"path":".env","workspacePath":".","format":"dotenv","mode":"secret","keys":[{"key":"A","required":true}]}]}`}},
			},
			{
				// The socket drops mid-request: the call is retried with the
				// same tool_call_id and completes once.
				Tool: "automation_complete", MessageID: "msg_2", CallID: "toolu_drop",
				Args:       `{"run_id": "r1", "completion_id": "c1", "outcome": "succeeded"}`,
				WantOutput: "done msg_2:toolu_drop",
				WantRequests: []wantRequest{
					{"msg_2:toolu_drop", `{"run_id":"r1","completion_id":"c1","outcome":"succeeded"}`},
					{"msg_2:toolu_drop", `{"run_id":"r1","completion_id":"c1","outcome":"succeeded"}`},
				},
			},
			{
				// No callID from OpenCode: one generated id, reused on the retry.
				Tool: "save_snapshot", MessageID: "msg_3drop",
				Args:       `{"message": "ready"}`,
				WantOutput: "done msg_3drop:*",
				WantRequests: []wantRequest{
					{"msg_3drop:*", `{"message":"ready"}`},
					{"msg_3drop:*", `{"message":"ready"}`},
				},
			},
			{
				Tool: "save_snapshot", MessageID: "msg_4", CallID: "fail", Args: `{}`,
				WantError:    "Failed to save: no configuration",
				WantRequests: []wantRequest{{"msg_4:fail", `{}`}},
			},
			{
				Tool: "save_snapshot", MessageID: "msg_5", CallID: "500", Args: `{}`,
				WantError:    "Gateway error 500",
				WantRequests: []wantRequest{{"msg_5:500", `{}`}},
			},
			{
				// The gateway's JSON error reaches the model.
				Tool: "save_snapshot", MessageID: "msg_5", CallID: "409", Args: `{}`,
				WantError:    "Gateway error 409: tool_call_id msg_5:409 was already used",
				WantRequests: []wantRequest{{"msg_5:409", `{}`}},
			},
			{
				// An answer that is not JSON: the model reads what went wrong,
				// not a JSON parser's complaint.
				Tool: "save_snapshot", MessageID: "msg_5", CallID: "text", Args: `{}`,
				WantError:    "agentc: the gateway answered save_snapshot without {success, result}",
				WantRequests: []wantRequest{{"msg_5:text", `{}`}},
			},
			{
				// An answer cut off mid-body (the sandbox froze after the
				// gateway executed the call) is retried with the same
				// tool_call_id: "terminated" is in the spec's retry_on.
				Tool: "save_snapshot", MessageID: "msg_5", CallID: "cut", Args: `{}`,
				WantOutput:   "done msg_5:cut",
				WantRequests: []wantRequest{{"msg_5:cut", `{}`}, {"msg_5:cut", `{}`}},
			},
			{
				Tool: "save_snapshot", MessageID: "msg_6", CallID: "x", Args: `{}`, Abort: "before",
				WantError: "This operation was aborted",
			},
			{
				Tool: "request_env_variables", Args: `{"keys": [{"key": "A"}, {"key": "B", "required": false}]}`,
				WantOutput: "Requested 2 environment variable(s) from the user. Their values will be written to /tmp/.proliferate_env.json once submitted; read them with jq.",
			},
			{
				Tool: "request_env_variables", Args: `{"keys": [{"key": "A", "type": "file"}]}`,
				WantError: `Invalid arguments: keys.0.type: Invalid option: expected one of "env"|"secret"`,
			},
		},
		"testdata/v000": {
			{
				Tool: "verify", Args: `{}`,
				WantOutput: "verify was submitted to the platform.",
			},
			{
				Tool: "save_service_commands", Args: `{"commands": [{"name": "web"}]}`,
				WantError: "Invalid arguments: commands.0.command: Invalid input: expected string, received undefined",
			},
			{Tool: "save_snapshot", Args: `{"message": "m"}`, WantOutput: "save_snapshot was submitted to the platform."},
			{Tool: "save_env_files", Args: `{"files": [{"path": "/etc/x", "format": "dotenv", "mode": "secret", "keys": []}]}`,
				WantError: "Invalid arguments: files.0.path: Path must be relative, without a leading '/' and without '..' segments, files.0.keys: Too small: expected array to have >=1 items"},
			{Tool: "automation_complete", Args: `{"run_id": "r", "completion_id": "c", "outcome": "done"}`,
				WantError: `Invalid arguments: outcome: Invalid option: expected one of "succeeded"|"failed"|"needs_human"`},
			{Tool: "request_env_variables", Args: `{"keys": [{"key": "A"}]}`, WantOutput: "Requested 1 environment variable(s)."},
		},
		"testdata/coverage": {
			{
				Tool: "note-taker", Args: `{"title": "T", "lines": ["a", "b"]}`,
				// An absent optional argument reads as "", not "undefined".
				WantOutput: "Noted T with 2 line(s) and 0 tag(s) [] in text/plain.",
			},
			{
				Tool: "note-taker", Args: `{"title": "T", "lines": [], "tags": ["x", "y"], "content-type": "md"}`,
				WantOutput: "Noted T with 0 line(s) and 2 tag(s) [x,y] in md.",
			},
			{
				Tool: "kitchen_sink", MessageID: "m", CallID: "k",
				Args:         `{"name": "abc", "path": "a/b", "ratio": 0.5, "count": 2, "kind": "sink", "tags": [], "items": [{"id": 1}]}`,
				WantOutput:   "done m:k",
				WantRequests: []wantRequest{{"m:k", `{"name":"abc","path":"a/b","ratio":0.5,"count":2,"weight":1.5,"retries":3,"dry_run":false,"level":"info","kind":"sink","tags":[],"items":[{"id":1}]}`}},
			},
			{
				// A failure outside retry_on (this spec's is ECONNRESET alone)
				// is not retried, and the model reads which callback failed
				// and why, not fetch's bare "terminated".
				Tool: "kitchen_sink", MessageID: "m", CallID: "cut",
				Args:         `{"name": "abc", "path": "a/b", "ratio": 0.5, "count": 2, "kind": "sink", "tags": [], "items": [{"id": 1}]}`,
				WantError:    "agentc: the gateway callback of kitchen.sink failed after 1 attempt(s): terminated (other side closed)",
				WantRequests: []wantRequest{{"m:cut", `{"name":"abc","path":"a/b","ratio":0.5,"count":2,"weight":1.5,"retries":3,"dry_run":false,"level":"info","kind":"sink","tags":[],"items":[{"id":1}]}`}},
			},
			{
				Tool: "empty", Args: `{"anything": 1}`,
				WantOutput: "empty was submitted to the platform.",
			},
		},
	}

	gw := &fakeGateway{dropped: map[string]bool{}}
	srv := httptest.NewServer(gw) // listens on 127.0.0.1
	defer srv.Close()

	for _, dir := range specs {
		calls := cases[dir]
		t.Run(specName(dir), func(t *testing.T) {
			g := generate(t, dir)
			// The packages are installed beside the tool folder's
			// package.json, as seed 001 §6.3 installs them, and nowhere
			// above: every module the tools import must find them there.
			// The driver (and its hooks' typescript) has its own copy.
			root, drv := t.TempDir(), newDriver(t)
			g.writeUnder(t, g.spec.Codegen.OpenCodeDir, root)
			if err := os.Symlink(modules, filepath.Join(root, opencodelayout.ToolSubdir, "node_modules")); err != nil {
				t.Fatal(err)
			}
			// Every tool must be exercised at least once.
			seen := map[string]bool{}
			byFile := map[string]string{} // file name → tool name
			for _, tl := range g.spec.Tools {
				byFile[tl.FileName] = tl.Name
			}
			var input []driverCall
			for _, c := range calls {
				seen[c.Tool] = true
				ctx := map[string]string{"messageID": c.MessageID}
				if c.CallID != "" {
					ctx["callID"] = c.CallID
				}
				input = append(input, driverCall{Module: filepath.Join(root, opencodelayout.ToolSubdir, c.Tool+".ts"), Args: json.RawMessage(c.Args), Ctx: ctx, Abort: c.Abort})
			}
			for _, tl := range g.spec.Tools {
				if !seen[tl.FileName] {
					t.Errorf("no execute() case for %s", tl.FileName)
				}
			}
			cb := g.spec.Callback
			results := runTools(t, drv, root, []string{cb.EnvGatewayURL + "=" + srv.URL + "/", cb.EnvSessionID + "=sess/1", cb.EnvAuthToken + "=tok-1"}, input)
			requests := gw.take()
			compared := 0 // invalid arguments whose stub error was compared with the gateway's
			for i, c := range calls {
				r := results[i]
				label := c.Tool + " " + c.Args
				switch {
				case c.WantError != "":
					if r.OK || r.Error != c.WantError {
						t.Errorf("%s:\n got %+v\nwant error %q", label, r, c.WantError)
					}
				case !r.OK || !matchID(c.WantOutput, r.Output):
					t.Errorf("%s:\n got %+v\nwant output %q", label, r, c.WantOutput)
				}
				if dir == "" && strings.HasPrefix(c.WantError, "Invalid arguments: ") &&
					sameAsGateway(t, label, byFile[c.Tool], c.Args, r.Error) {
					compared++
				}
				// The requests of this call, in order.
				var mine []gatewayRequest
				for _, req := range requests {
					for _, w := range c.WantRequests {
						if matchID(w.ToolCallID, req.ToolCallID) {
							mine = append(mine, req)
							break
						}
					}
				}
				if len(mine) != len(c.WantRequests) {
					t.Errorf("%s: the gateway got %d requests, want %d: %+v", label, len(mine), len(c.WantRequests), mine)
					continue
				}
				for j, w := range c.WantRequests {
					req := mine[j]
					wantPath := "/proliferate/sess%2F1/tools/" + byFile[c.Tool]
					if req.Path != wantPath {
						t.Errorf("%s: request path %q, want %q", label, req.Path, wantPath)
					}
					if req.Authorization != "Bearer tok-1" || req.ContentType != "application/json" {
						t.Errorf("%s: headers Authorization %q, Content-Type %q", label, req.Authorization, req.ContentType)
					}
					if string(req.Args) != w.Args {
						t.Errorf("%s: request args\n got %s\nwant %s", label, req.Args, w.Args)
					}
					if j > 0 && req.ToolCallID != mine[0].ToolCallID {
						t.Errorf("%s: retry %d used tool_call_id %q, the first attempt %q", label, j, req.ToolCallID, mine[0].ToolCallID)
					}
				}
			}
			if dir == "" && compared < 3 {
				t.Errorf("%d invalid-argument errors compared with the gateway's, want at least 3", compared)
			}
		})
	}
}

// matchID compares with a pattern whose trailing "*" matches any suffix.
func matchID(pattern, s string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(s, p) && len(s) > len(p)
	}
	return pattern == s
}

// sameAsGateway checks that the stub's error for invalid arguments of tool
// (the default spec's, whose Go package is generated/go/contract) is the
// text the gateway answers the same arguments with, over the callback
// route and MCP alike (contract.Dispatch words both): a model reads one
// text whichever side refused its call. A sandbox-executed tool has no
// gateway answer to compare: sameAsGateway reports whether it compared.
func sameAsGateway(t *testing.T, label, tool, args, stubError string) bool {
	t.Helper()
	ct, ok := contract.LookupTool(tool)
	if !ok {
		t.Fatalf("%s: no tool %s in generated/go/contract", label, tool)
	}
	if !ct.GatewayExecuted() {
		return false
	}
	var mode contract.Mode
	for _, m := range contract.Modes() {
		if m.Has(ct) {
			mode = m
			break
		}
	}
	// The handler is never called: the arguments do not validate.
	res := contract.Dispatch(context.Background(), nil, contract.Call{Tool: tool, Mode: mode}, []byte(args))
	if stubError != res.Result {
		t.Errorf("%s: the stub says\n%q\nthe gateway\n%q", label, stubError, res.Result)
	}
	return true
}
