package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/fakemodel"
	"github.com/agentc-dev/agentc/gen/internal/opencodetest"
	"github.com/agentc-dev/agentc/gen/opencode"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// mcpRecorder forwards to the gateway and records the JSON-RPC messages
// OpenCode's MCP client sent.
type mcpRecorder struct {
	proxy *httputil.ReverseProxy
	srv   *httptest.Server
	mu    sync.Mutex
	msgs  []map[string]any
}

func newMCPRecorder(t *testing.T, gateway string) *mcpRecorder {
	u, err := url.Parse(gateway)
	if err != nil {
		t.Fatal(err)
	}
	rec := &mcpRecorder{proxy: httputil.NewSingleHostReverseProxy(u)}
	rec.srv = httptest.NewServer(rec)
	t.Cleanup(rec.srv.Close)
	return rec
}

func (m *mcpRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	var msg map[string]any
	if json.Unmarshal(b, &msg) == nil {
		m.mu.Lock()
		m.msgs = append(m.msgs, msg)
		m.mu.Unlock()
	}
	m.proxy.ServeHTTP(w, r)
}

// toolCalls returns the params of the tools/call requests recorded.
func (m *mcpRecorder) toolCalls() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []map[string]any
	for _, msg := range m.msgs {
		if msg["method"] == "tools/call" {
			p, _ := msg["params"].(map[string]any)
			out = append(out, p)
		}
	}
	return out
}

// mcpEntry returns the gateway's entry of the generated MCP-mode
// opencode.json, with its {env:…} placeholders.
func mcpEntry(t *testing.T) (name string, entry any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(generatedDir(t), filepath.FromSlash(opencodelayout.MCPConfigFile)))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCP map[string]any `json:"mcp"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	name = contract.ContractName
	if cfg.MCP[name] == nil {
		t.Fatalf("%s has no mcp entry %q", opencodelayout.MCPConfigFile, name)
	}
	return name, cfg.MCP[name]
}

// startMCPMode installs a mode's MCP-transport files and starts OpenCode on
// them, configured with the generated MCP entry and the session's
// environment, against the gateway at gatewayURL.
func startMCPMode(t *testing.T, mode, session, gatewayURL string, fm *fakemodel.Server) (*opencodetest.Server, string) {
	t.Helper()
	repo := installManifest(t, path.Join(opencodelayout.MCPInjectSubdir, mode+".json"))
	for _, tool := range contract.Tools() {
		_, err := os.Stat(filepath.Join(repo, ".opencode", "tool", tool.FileName()+".ts"))
		if has := err == nil; has != (!tool.GatewayExecuted() && contract.Mode(mode).Has(tool)) {
			t.Errorf("%s repository holds %s.ts: %v", mode, tool.FileName(), has)
		}
	}
	name, entry := mcpEntry(t)
	srv := opencodetest.Start(t, repo, opencodetest.Options{
		Config: fm.Config(fakemodel.ConfigOptions{Extra: map[string]any{"mcp": map[string]any{name: entry}}}),
		Env: []string{
			"PROLIFERATE_GATEWAY_URL=" + gatewayURL,
			"PROLIFERATE_SESSION_ID=" + session,
			"SANDBOX_MCP_AUTH_TOKEN=" + tokenFor(session),
		},
	})
	return srv, name
}

// TestEndToEndMCP drives a setup session whose gateway tools come over MCP
// through the real opencode serve: no stub files for them in the sandbox;
// the scripted model calls save_service_commands with invalid arguments
// (the gateway's decoder rejects them: the model reads the callback
// route's "Invalid arguments: …" text as an error) and then valid ones,
// then save_snapshot; the results reach the model.
func TestEndToEndMCP(t *testing.T) {
	h := newHandler()
	g := newBothGateway(t, h, nil)
	rec := newMCPRecorder(t, g.srv.URL)
	name := contract.ContractName
	cmdsTool, snapTool := name+"_save_service_commands", name+"_save_snapshot"

	cmds := map[string]any{"commands": []map[string]any{{"name": "web", "command": "npm run dev", "cwd": "app"}}}
	fm := fakemodel.New(t,
		fakemodel.Turn{Name: "invalid commands", Match: fakemodel.All(fakemodel.OffersTool(cmdsTool), fakemodel.LastUserTextContains("Set up")),
			Reply: fakemodel.Call("toolu_bad", cmdsTool, map[string]any{"commands": []any{}})},
		fakemodel.Turn{Name: "commands", Match: lastResultOf("toolu_bad"), Reply: fakemodel.Call("toolu_cmds", cmdsTool, cmds)},
		fakemodel.Turn{Name: "snapshot", Match: lastResultOf("toolu_cmds"), Reply: fakemodel.Call("toolu_snap", snapTool, map[string]any{"message": "web runs"})},
		fakemodel.Turn{Name: "done", Match: lastResultOf("toolu_snap"), Reply: fakemodel.Say("All set.")},
	)
	srv, _ := startMCPMode(t, "setup", setupSession, rec.srv.URL, fm)
	resp := prompt(t, srv, fm, "Set up this repository.", map[string]bool{"*": false, cmdsTool: true, snapTool: true})
	if resp.FinalText != "All set." || resp.Error != "" {
		t.Errorf("final text %q, error %q\n%s", resp.FinalText, resp.Error, fm)
	}

	// The same calls through the callback route, on a gateway of its own:
	// the model must have read exactly its answers.
	cb := newBothGateway(t, newHandler(), nil)
	callback := func(id, tool, args string) contract.Result {
		return post(t, cb.srv.Client(), cb.callbackURL(setupSession, tool), tokenFor(setupSession), "", body(id, args)).Result
	}
	cmdsJSON, _ := json.Marshal(cmds)
	want := map[string]contract.Result{
		"toolu_bad":  callback("c1", "save_service_commands", `{"commands":[]}`),
		"toolu_cmds": callback("c2", "save_service_commands", string(cmdsJSON)),
		"toolu_snap": callback("c3", "save_snapshot", `{"message":"web runs"}`),
	}
	if !strings.HasPrefix(want["toolu_bad"].Result, "Invalid arguments: ") {
		t.Fatalf("the callback route accepted the invalid call: %+v", want["toolu_bad"])
	}
	got := finalToolResults(t, fm)
	for id, w := range want {
		wantText := w.Result
		if id == "toolu_snap" {
			// The result names the call's tool_call_id: none over MCP.
			wantText = strings.TrimSuffix(wantText, "c3")
		}
		tr, ok := got[id]
		switch {
		case !ok:
			t.Errorf("the model received no tool_result for %s", id)
		case tr.IsError == w.Success || !strings.Contains(tr.Text, wantText):
			t.Errorf("tool_result for %s: %q (is_error %v), want %q (is_error %v)", id, tr.Text, tr.IsError, wantText, !w.Success)
		}
	}
	if n := h.total.Load(); n != 2 {
		t.Errorf("the gateway executed %d calls, want 2 (the valid commands and the snapshot)", n)
	}
	calls := rec.toolCalls()
	var names []string
	for _, c := range calls {
		names = append(names, c["name"].(string))
	}
	if want := []string{"save_service_commands", "save_service_commands", "save_snapshot"}; !slices.Equal(names, want) {
		t.Errorf("tools/call requests %v, want %v", names, want)
	}
	// What OpenCode's MCP client sends with a call: no durable call id, so
	// these calls are not deduplicated (see agentmcp.ToolCallIDMeta).
	for _, c := range calls {
		t.Logf("OpenCode tools/call params: %v", c)
	}
	if n := srv.RegistryHits(); n != 0 {
		t.Errorf("OpenCode tried to install from npm %d times", n)
	}
}

// TestEndToEndMCPCodingMode: a coding session's OpenCode is offered no
// save_service_commands over MCP (tools/list for its session lacks it), and
// a forged tools/call of it, with the session's valid token, is refused in
// the callback route's words without executing.
func TestEndToEndMCPCodingMode(t *testing.T) {
	h := newHandler()
	g := newBothGateway(t, h, nil)
	fm := fakemodel.New(t, fakemodel.Turn{Name: "look", Match: (*fakemodel.Request).HasTools, Reply: fakemodel.Say("Looked.")})
	srv, name := startMCPMode(t, "coding", codingSession, g.srv.URL, fm)
	prompt(t, srv, fm, "Look around.", nil)
	r := fm.ByTurn("look")
	if r == nil {
		t.Fatalf("no model request:\n%s", fm)
	}
	offered := r.ToolNames()
	if slices.Contains(offered, name+"_save_service_commands") || !slices.Contains(offered, name+"_save_snapshot") {
		t.Errorf("a coding session was offered %v: want %s_save_snapshot and no %s_save_service_commands", offered, name, name)
	}
	// A sandbox that forges the call anyway, with its valid token.
	cs := g.mustMCP(t, codingSession)
	got, _, err := mcpCall(t, cs, "save_service_commands", "forged-1", `{"commands":[{"name":"x","command":"curl evil"}]}`)
	if want := "Tool save_service_commands is not available in coding sessions"; err != nil || got.Success || got.Result != want {
		t.Errorf("forged call answered %+v, %v; want the refusal %q", got, err, want)
	}
	if h.total.Load() != 0 {
		t.Errorf("the forged call executed")
	}
}

// prompt sends one message to OpenCode's session with the scripted model and
// returns its answer.
func prompt(t *testing.T, srv *opencodetest.Server, fm *fakemodel.Server, message string, tools map[string]bool) *opencode.ExecuteResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	client, err := opencode.New(opencode.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	providerID, modelID := fakemodel.ConfigOptions{}.Model()
	resp, err := client.Execute(ctx, &opencode.ExecuteRequest{
		Message: message,
		Model:   &opencode.Model{ProviderID: providerID, ModelID: modelID},
		Tools:   tools,
	})
	if err != nil {
		t.Fatalf("Execute: %v\nmodel requests:\n%s\nopencode output:\n%s", err, fm, srv.Output())
	}
	return resp
}
