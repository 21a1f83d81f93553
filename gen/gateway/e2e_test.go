package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/fakemodel"
	"github.com/agentc-dev/agentc/gen/internal/opencodetest"
	"github.com/agentc-dev/agentc/gen/opencode"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// e2eTimeout bounds the whole conversation; the first step loads the tool
// files with bun and takes seconds on a loaded 2-core machine.
const e2eTimeout = 4 * time.Minute

// generatedDir is the committed OpenCode output.
func generatedDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "generated", "opencode")
}

// installMode writes a mode's files into a scratch repository exactly as its
// injection manifest (generated/opencode/inject/<mode>.json) says, except
// opencode.json: the test's points OpenCode at the scripted model.
func installMode(t *testing.T, mode string) string {
	t.Helper()
	return installManifest(t, path.Join(opencodelayout.InjectSubdir, mode+".json"))
}

// installManifest is installMode for the manifest at manifest (relative to
// generated/opencode).
func installManifest(t *testing.T, manifest string) string {
	t.Helper()
	dir := generatedDir(t)
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(manifest)))
	if err != nil {
		t.Fatal(err)
	}
	var inj opencodelayout.Injection
	if err := json.Unmarshal(b, &inj); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	for _, w := range inj.Write {
		if path.IsAbs(w.Path) || path.Base(w.Source) == opencodelayout.ConfigFile {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(w.Source)))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, filepath.FromSlash(w.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// attempt is one callback that reached the sandbox-facing proxy.
type attempt struct {
	Tool, ToolCallID, Fingerprint string
	Dropped                       bool
}

// dropProxy stands between the sandbox and the gateway on loopback. It
// forwards every callback, except that it lets the first save_snapshot call
// through to the gateway and then drops the sandbox's connection before the
// answer — the snapshot freezing the sandbox mid-request.
type dropProxy struct {
	gateway string
	mu      sync.Mutex
	seen    []attempt
	dropped bool
}

func (p *dropProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ToolCallID string `json:"tool_call_id"`
	}
	json.Unmarshal(body, &req)
	a := attempt{Tool: path.Base(r.URL.Path), ToolCallID: req.ToolCallID, Fingerprint: r.Header.Get(agentrt.FingerprintHeader)}
	p.mu.Lock()
	a.Dropped = a.Tool == "save_snapshot" && !p.dropped
	p.dropped = p.dropped || a.Dropped
	p.seen = append(p.seen, a)
	p.mu.Unlock()

	out, _ := http.NewRequest(r.Method, p.gateway+r.URL.Path, bytes.NewReader(body))
	out.Header = r.Header.Clone()
	res, err := http.DefaultClient.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if a.Dropped {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // the socket is gone; the gateway has executed the call
		}
		return
	}
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(res.StatusCode)
	w.Write(answer)
}

func (p *dropProxy) attempts() []attempt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// finalToolResults returns the tool results the model held at its last
// step (turn "done"), by tool_use id.
func finalToolResults(t *testing.T, fm *fakemodel.Server) map[string]fakemodel.ToolResult {
	t.Helper()
	last := fm.ByTurn("done")
	if last == nil {
		t.Fatalf("the model never got to its last step:\n%s", fm)
	}
	results := map[string]fakemodel.ToolResult{}
	for _, tr := range last.ToolResults() {
		results[tr.ToolUseID] = tr
	}
	return results
}

// lastResultOf matches the step after the model's call with the given id.
func lastResultOf(id string) fakemodel.Matcher {
	return func(r *fakemodel.Request) bool {
		for _, tr := range r.LastToolResults() {
			if tr.ToolUseID == id {
				return true
			}
		}
		return false
	}
}

// TestEndToEnd drives a setup session through the real opencode serve: the
// scripted model calls save_service_commands (first with invalid arguments,
// which the generated stub rejects in the sandbox before any callback),
// then save_snapshot (whose first connection the proxy drops after the
// gateway executed it: the stub retries with the same tool_call_id and the
// gateway answers the stored result), then request_env_variables (which runs
// in the sandbox). The generated stubs call the generated Go route with
// test handlers; the results reach OpenCode's session and the model.
func TestEndToEnd(t *testing.T) {
	h := newHandler()
	g := newGateway(t, h, gatewayOptions{})
	proxy := &dropProxy{gateway: g.srv.URL}
	sandboxSide := httptest.NewServer(proxy)
	t.Cleanup(sandboxSide.Close)

	cmds := map[string]any{"commands": []map[string]any{{"name": "web", "command": "npm run dev", "cwd": "app"}}}
	fm := fakemodel.New(t,
		fakemodel.Turn{Name: "invalid commands", Match: fakemodel.All(fakemodel.OffersTool("save_service_commands"), fakemodel.LastUserTextContains("Set up")),
			Reply: fakemodel.Call("toolu_bad", "save_service_commands", map[string]any{"commands": []any{}})},
		fakemodel.Turn{Name: "commands", Match: lastResultOf("toolu_bad"), Reply: fakemodel.Call("toolu_cmds", "save_service_commands", cmds)},
		fakemodel.Turn{Name: "snapshot", Match: lastResultOf("toolu_cmds"), Reply: fakemodel.Call("toolu_snap", "save_snapshot", map[string]any{"message": "web runs"})},
		fakemodel.Turn{Name: "env", Match: lastResultOf("toolu_snap"),
			Reply: fakemodel.Call("toolu_env", "request_env_variables", map[string]any{"keys": []map[string]any{{"key": "API_KEY", "type": "secret"}}})},
		fakemodel.Turn{Name: "done", Match: lastResultOf("toolu_env"), Reply: fakemodel.Say("All set.")},
	)
	cfgOpts := fakemodel.ConfigOptions{}
	repo := installMode(t, "setup")
	began := time.Now()
	srv := opencodetest.Start(t, repo, opencodetest.Options{
		Config: fm.Config(cfgOpts),
		Env: []string{
			"PROLIFERATE_GATEWAY_URL=" + sandboxSide.URL,
			"PROLIFERATE_SESSION_ID=" + setupSession,
			"SANDBOX_MCP_AUTH_TOKEN=" + tokenFor(setupSession),
		},
	})
	t.Logf("MEASURE opencode serve start to listening: %v", srv.StartupTime)

	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	client, err := opencode.New(opencode.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	providerID, modelID := cfgOpts.Model()
	turnBegan := time.Now()
	resp, err := client.Execute(ctx, &opencode.ExecuteRequest{
		Message: "Set up this repository.",
		Model:   &opencode.Model{ProviderID: providerID, ModelID: modelID},
		Tools:   map[string]bool{"*": false, "save_service_commands": true, "save_snapshot": true, "request_env_variables": true},
	})
	if err != nil {
		t.Fatalf("Execute: %v\nmodel requests:\n%s\nopencode output:\n%s", err, fm, srv.Output())
	}
	t.Logf("MEASURE prompt → 4 tool calls (one retried after a dropped connection) → answer: %v; start to answer %v", time.Since(turnBegan), time.Since(began))
	if resp.FinalText != "All set." || resp.Error != "" {
		t.Errorf("final text %q, error %q", resp.FinalText, resp.Error)
	}

	// What the model received for each call.
	results := finalToolResults(t, fm)
	snapID := ""
	for _, a := range proxy.attempts() {
		if a.Tool == "save_snapshot" {
			snapID = a.ToolCallID
		}
	}
	wantResults := []struct {
		id, text string
		isError  bool
	}{
		{"toolu_bad", "Invalid arguments: commands: Too small: expected array to have >=1 items", true},
		{"toolu_cmds", "Saved 1 service commands", false},
		{"toolu_snap", "Snapshot saved for call " + snapID, false},
		{"toolu_env", "", false},
	}
	for _, w := range wantResults {
		got, ok := results[w.id]
		switch {
		case !ok:
			t.Errorf("the model received no tool_result for %s", w.id)
		case got.IsError != w.isError || (w.text != "" && got.Text != w.text) || (w.text == "" && got.Text == ""):
			t.Errorf("tool_result for %s: %q (is_error %v), want %q (is_error %v)", w.id, got.Text, got.IsError, w.text, w.isError)
		}
	}
	t.Logf("request_env_variables answered the model: %q", results["toolu_env"].Text)

	// The callbacks: none for the invalid call or the sandbox tool; the
	// snapshot twice with one tool_call_id, the first attempt dropped.
	var tools []string
	for _, a := range proxy.attempts() {
		tools = append(tools, a.Tool)
		if want := mustTool(t, a.Tool).Fingerprint(); a.Fingerprint != want {
			t.Errorf("callback %s carried fingerprint %q, want %s", a.Tool, a.Fingerprint, want)
		}
	}
	if want := []string{"save_service_commands", "save_snapshot", "save_snapshot"}; !slices.Equal(tools, want) {
		t.Errorf("callbacks %v, want %v", tools, want)
	}
	if at := proxy.attempts(); len(at) == 3 {
		if !at[1].Dropped || at[2].Dropped || at[1].ToolCallID != at[2].ToolCallID || !strings.HasSuffix(at[1].ToolCallID, ":toolu_snap") {
			t.Errorf("snapshot attempts %+v, want a dropped one and a retry with the same tool_call_id", at[1:])
		}
		if !strings.HasSuffix(at[0].ToolCallID, ":toolu_cmds") {
			t.Errorf("save_service_commands tool_call_id %q", at[0].ToolCallID)
		}
	}
	if h.total.Load() != 2 || h.count(snapID) != 1 {
		t.Errorf("the gateway executed %d calls (snapshot %d times), want 2 (snapshot once)", h.total.Load(), h.count(snapID))
	}
	var replayed int
	for _, rec := range g.logs.records(t) {
		if rec["tool"] == "save_snapshot" && rec["outcome"] == "replayed" {
			replayed++
		}
	}
	if replayed != 1 {
		t.Errorf("%d replayed snapshot callbacks logged, want 1", replayed)
	}

	// OpenCode's session shows the tool parts.
	msgs, err := client.Messages(ctx, resp.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	wantParts := []struct {
		id     string
		status string
		output string
	}{
		{"toolu_bad", opencode.ToolError, "Invalid arguments: commands: Too small: expected array to have >=1 items"},
		{"toolu_cmds", opencode.ToolCompleted, "Saved 1 service commands"},
		{"toolu_snap", opencode.ToolCompleted, "Snapshot saved for call " + snapID},
		{"toolu_env", opencode.ToolCompleted, results["toolu_env"].Text},
	}
	for _, w := range wantParts {
		p := findToolPart(msgs, w.id)
		if p == nil || p.State == nil {
			t.Errorf("no tool part for %s", w.id)
			continue
		}
		out := p.State.Output
		if p.State.Status == opencode.ToolError {
			out = p.State.Error
		}
		if p.State.Status != w.status || !strings.Contains(out, w.output) {
			t.Errorf("tool part %s: status %s, output %q; want %s, %q", w.id, p.State.Status, out, w.status, w.output)
		}
	}
	if n := srv.RegistryHits(); n != 0 {
		t.Errorf("OpenCode tried to install from npm %d times", n)
	}
}

// TestEndToEndCodingMode: a coding session's sandbox has no
// save_service_commands tool, and the gateway rejects a forged call to it.
func TestEndToEndCodingMode(t *testing.T) {
	h := newHandler()
	g := newGateway(t, h, gatewayOptions{})
	repo := installMode(t, "coding")
	fm := fakemodel.New(t)
	srv := opencodetest.Start(t, repo, opencodetest.Options{Config: fm.Config(fakemodel.ConfigOptions{})})
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	ids, err := srv.ToolIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids, "save_service_commands") || !slices.Contains(ids, "save_snapshot") {
		t.Errorf("coding-mode tools %v: want save_snapshot and no save_service_commands", ids)
	}
	if _, err := os.Stat(filepath.Join(repo, ".opencode", "tool", "save_service_commands.ts")); err == nil {
		t.Error("the coding repository holds save_service_commands.ts")
	}
	// A sandbox that forges the call anyway, with its valid token.
	r := post(t, g.srv.Client(), g.url(codingSession, "save_service_commands"), tokenFor(codingSession),
		contract.ToolSaveServiceCommands.Fingerprint(), body("forged-1", `{"commands":[{"name":"x","command":"curl evil"}]}`))
	if r.Status != 200 || r.Result.Success || r.Result.Result != "Tool save_service_commands is not available in coding sessions" {
		t.Errorf("forged call: %v", r)
	}
	if h.total.Load() != 0 {
		t.Errorf("the forged call executed")
	}
}

func mustTool(t *testing.T, name string) contract.Tool {
	tool, ok := contract.LookupTool(name)
	if !ok {
		t.Fatalf("unknown tool %s", name)
	}
	return tool
}

// findToolPart returns the tool part with the call id, or nil.
func findToolPart(msgs []opencode.Message, callID string) *opencode.Part {
	for i := range msgs {
		for j := range msgs[i].Parts {
			if p := &msgs[i].Parts[j]; p.Type == "tool" && p.CallID == callID {
				return p
			}
		}
	}
	return nil
}
