package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

const snapshotArgs = `{"message":"ready"}`

// TestRouteAnswers walks the route's decision order: every status it
// answers, with its JSON error, and the 200 answers.
func TestRouteAnswers(t *testing.T) {
	h := newHandler()
	g := newGateway(t, h, gatewayOptions{maxBody: 4096})
	c := g.srv.Client()
	tok := tokenFor(setupSession)
	snap := g.url(setupSession, "save_snapshot")

	type want struct {
		status int
		code   string // the JSON error's code, for non-200
		// success and result (a substring) of a 200 answer.
		success bool
		result  string
	}
	cases := []struct {
		name, method, url, token, body string
		want                           want
	}{
		{"wrong path", "POST", g.srv.URL + "/proliferate/" + setupSession + "/tool/save_snapshot", tok, body("p1", "{}"), want{status: 404, code: "not_found"}},
		{"extra segment", "POST", snap + "/x", tok, body("p2", "{}"), want{status: 404, code: "not_found"}},
		{"GET", "GET", snap, tok, "", want{status: 405, code: "method_not_allowed"}},
		{"no token", "POST", snap, "", body("a1", "{}"), want{status: 401, code: "unauthorized"}},
		{"invalid token", "POST", snap, "forged", body("a2", "{}"), want{status: 401, code: "unauthorized"}},
		{"api token", "POST", snap, "api.x", body("a3", "{}"), want{status: 403, code: "forbidden"}},
		{"other session's token", "POST", snap, tokenFor(codingSession), body("a4", "{}"), want{status: 403, code: "forbidden"}},
		{"unknown tool", "POST", g.url(setupSession, "save_everything"), tok, body("t1", "{}"), want{status: 404, code: "unknown_tool"}},
		{"sandbox tool", "POST", g.url(setupSession, "request_env_variables"), tok, body("t2", `{"keys":[]}`), want{status: 404, code: "unknown_tool"}},
		{"too large", "POST", snap, tok, body("b0", `{"message":"`+strings.Repeat("x", 5000)+`"}`), want{status: 413, code: "body_too_large"}},
		{"not JSON", "POST", snap, tok, "{", want{status: 400, code: "invalid_body"}},
		{"array body", "POST", snap, tok, "[]", want{status: 400, code: "invalid_body"}},
		{"no tool_call_id", "POST", snap, tok, `{"args":{}}`, want{status: 400, code: "invalid_body"}},
		{"numeric tool_call_id", "POST", snap, tok, `{"tool_call_id":7,"args":{}}`, want{status: 400, code: "invalid_body"}},
		{"empty tool_call_id", "POST", snap, tok, `{"tool_call_id":"","args":{}}`, want{status: 400, code: "invalid_body"}},
		{"long tool_call_id", "POST", snap, tok, body(strings.Repeat("i", 513), "{}"), want{status: 400, code: "invalid_body"}},
		{"no args", "POST", snap, tok, `{"tool_call_id":"b1"}`, want{status: 400, code: "invalid_body"}},
		{"null args", "POST", snap, tok, `{"tool_call_id":"b2","args":null}`, want{status: 400, code: "invalid_body"}},
		{"array args", "POST", snap, tok, `{"tool_call_id":"b3","args":[]}`, want{status: 400, code: "invalid_body"}},
		{"unknown session", "POST", g.url("44444444-4444-4444-8444-444444444444", "save_snapshot"), "sbx-any", body("s1", "{}"), want{status: 404, code: "unknown_session"}},
		{"executed", "POST", snap, tok, body("ok1", snapshotArgs), want{status: 200, success: true, result: "Snapshot saved for call ok1"}},
		{"alias", "POST", g.url(autoSession, "automation_complete"), tokenFor(autoSession),
			body("ok2", `{"run_id":"r1","completion_id":"c1","outcome":"succeeded"}`), want{status: 200, success: true, result: "Run r1 completed"}},
		{"mode gate", "POST", g.url(codingSession, "save_service_commands"), tokenFor(codingSession),
			body("m1", `{"commands":[{"name":"web","command":"npm start"}]}`), want{status: 200, result: "Tool save_service_commands is not available in coding sessions"}},
		{"invalid arguments", "POST", g.url(setupSession, "save_service_commands"), tok,
			body("v1", `{"commands":[]}`), want{status: 200, result: "Invalid arguments: commands: Too small: expected array to have >=1 items"}},
		{"conflict", "POST", snap, tok, body("ok1", `{"message":"other"}`), want{status: 409, code: "tool_call_id_conflict"}},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var b []byte
		b, _ = readAll(res)
		if res.StatusCode != tc.want.status {
			t.Errorf("%s: status %d %s, want %d", tc.name, res.StatusCode, b, tc.want.status)
			continue
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.name, ct)
		}
		if tc.want.status != 200 {
			var e struct{ Error, Code string }
			if err := json.Unmarshal(b, &e); err != nil || e.Code != tc.want.code || e.Error == "" {
				t.Errorf("%s: body %s, want a JSON error with code %q", tc.name, b, tc.want.code)
			}
			continue
		}
		var r contract.Result
		if err := json.Unmarshal(b, &r); err != nil {
			t.Errorf("%s: body %s: %v", tc.name, b, err)
			continue
		}
		if r.Success != tc.want.success || !strings.Contains(r.Result, tc.want.result) {
			t.Errorf("%s: %s, want success %v and a result containing %q", tc.name, b, tc.want.success, tc.want.result)
		}
	}
	if res := post(t, c, snap, tok, "", "null"); res.Status != 400 {
		t.Errorf("body null: %v", res)
	}
	// Only the successful calls executed: not the rejected, gated,
	// invalid or conflicting ones.
	if n := h.total.Load(); n != 2 {
		t.Errorf("the handler ran %d times, want 2 (ok1, ok2)", n)
	}
	// The 405 says what is allowed; the 401 how to authenticate.
	req, _ := http.NewRequest("PUT", snap, nil)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("Allow") != "POST" {
		t.Errorf("405 Allow = %q", res.Header.Get("Allow"))
	}
	if r := post(t, c, snap, "", "", body("x", "{}")); !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("401 WWW-Authenticate = %q", r.Header.Get("WWW-Authenticate"))
	}
}

// TestRouteData checks the 200 body: {success, result, data} with the
// handler's typed data, and the gateway's fingerprint in the answer.
func TestRouteData(t *testing.T) {
	h := newHandler()
	g := newGateway(t, h, gatewayOptions{})
	r := post(t, g.srv.Client(), g.url(setupSession, "save_service_commands"), tokenFor(setupSession), "",
		body("d1", `{"commands":[{"name":"web","command":"npm run dev","cwd":"app"},{"name":"db","command":"pg"}]}`))
	want := `{"success":true,"result":"Saved 2 service commands","data":{"configurationId":"cfg-1","commandCount":2}}` + "\n"
	if r.Status != 200 || string(r.Body) != want {
		t.Errorf("got %v, want 200 %s", r, want)
	}
	if fp := r.Header.Get(agentrt.FingerprintHeader); fp != contract.ToolSaveServiceCommands.Fingerprint() {
		t.Errorf("answer's %s = %q", agentrt.FingerprintHeader, fp)
	}
}

// TestRouteLogs checks the one log record per call: tool, tool_call_id,
// session, status, outcome and duration.
func TestRouteLogs(t *testing.T) {
	h := newHandler()
	g := newGateway(t, h, gatewayOptions{})
	c := g.srv.Client()
	url := g.url(setupSession, "save_snapshot")
	post(t, c, url, tokenFor(setupSession), "", body("log1", snapshotArgs))
	post(t, c, url, tokenFor(setupSession), "", body("log1", snapshotArgs))
	post(t, c, url, "nope", "", body("log2", snapshotArgs))
	recs := g.logs.records(t)
	if len(recs) != 3 {
		t.Fatalf("%d log records, want 3: %v", len(recs), recs)
	}
	wants := []map[string]any{
		{"level": "INFO", "tool": "save_snapshot", "tool_call_id": "log1", "session_id": setupSession, "status": float64(200), "outcome": "executed", "success": true},
		{"level": "INFO", "tool": "save_snapshot", "tool_call_id": "log1", "session_id": setupSession, "status": float64(200), "outcome": "replayed", "success": true},
		{"level": "WARN", "tool": "save_snapshot", "session_id": setupSession, "status": float64(401), "outcome": "unauthorized"},
	}
	for i, w := range wants {
		for k, v := range w {
			if recs[i][k] != v {
				t.Errorf("record %d: %s = %v, want %v (%v)", i, k, recs[i][k], v, recs[i])
			}
		}
		if d, ok := recs[i]["duration"].(float64); !ok || d <= 0 {
			t.Errorf("record %d: duration %v", i, recs[i]["duration"])
		}
	}
}

// TestReplay: a repeated call is answered with the stored result, marked as
// a replay, and does not execute again; the same tool_call_id in another
// session is another call.
func TestReplay(t *testing.T) {
	h := newHandler()
	g := newGateway(t, h, gatewayOptions{})
	c := g.srv.Client()
	first := post(t, c, g.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("r1", snapshotArgs))
	// Whitespace does not make another call.
	again := post(t, c, g.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("r1", `{ "message": "ready" }`))
	if string(first.Body) != string(again.Body) || again.Header.Get(agentrt.ReplayHeader) != "true" || first.Header.Get(agentrt.ReplayHeader) != "" {
		t.Errorf("first %v (replay %q), again %v (replay %q)", first, first.Header.Get(agentrt.ReplayHeader), again, again.Header.Get(agentrt.ReplayHeader))
	}
	if n := h.count("r1"); n != 1 {
		t.Errorf("r1 executed %d times", n)
	}
	other := post(t, c, g.url(codingSession, "save_snapshot"), tokenFor(codingSession), "", body("r1", snapshotArgs))
	if other.Status != 200 || other.Header.Get(agentrt.ReplayHeader) != "" || h.count("r1") != 2 {
		t.Errorf("r1 in another session: %v, executions %d; want a separate execution", other, h.count("r1"))
	}
}

// TestDroppedConnection is the snapshot TCP-drop trap on the gateway side:
// the client gives up while the tool executes; the execution is not
// cancelled, and the retry with the same tool_call_id waits for it and gets
// its result. The Handler's doc says so: its ctx is not cancelled when the
// caller leaves and has no deadline.
func TestDroppedConnection(t *testing.T) {
	src, err := os.ReadFile("../../generated/go/contract/dispatch.go")
	if err != nil {
		t.Fatal(err)
	}
	if doc := strings.Join(strings.Fields(strings.ReplaceAll(string(src), "\n//", "\n")), " "); !strings.Contains(doc, "not cancelled when the caller leaves") ||
		!strings.Contains(doc, "has no deadline") {
		t.Error("the generated Handler's doc does not say that its ctx is not cancelled when the caller leaves and has no deadline")
	}
	h := newHandler()
	h.gate, h.started = make(chan struct{}), make(chan string, 1)
	g := newGateway(t, h, gatewayOptions{})
	url := g.url(setupSession, "save_snapshot")

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body("drop1", snapshotArgs)))
		req.Header.Set("Authorization", "Bearer "+tokenFor(setupSession))
		_, err := g.srv.Client().Do(req)
		errc <- err
	}()
	<-h.started
	cancel() // the socket is gone
	if err := <-errc; err == nil {
		t.Fatal("the dropped request succeeded")
	}
	var wg sync.WaitGroup
	var retry response
	wg.Add(1)
	go func() {
		defer wg.Done()
		retry = post(t, g.srv.Client(), url, tokenFor(setupSession), "", body("drop1", snapshotArgs))
	}()
	time.Sleep(50 * time.Millisecond) // the retry is waiting for the first execution
	close(h.gate)
	wg.Wait()
	if retry.Status != 200 || !retry.Result.Success || retry.Result.Result != "Snapshot saved for call drop1" || retry.Header.Get(agentrt.ReplayHeader) != "true" {
		t.Errorf("retry: %v (replay %q)", retry, retry.Header.Get(agentrt.ReplayHeader))
	}
	if n := h.count("drop1"); n != 1 {
		t.Errorf("drop1 executed %d times", n)
	}
	if e := h.ctxErr.Load(); e != nil {
		t.Errorf("the execution's context was cancelled: %v", e)
	}
}

// TestMemoryStoreRetention: a completed result is kept for the retention
// (5 minutes by the spec), then forgotten.
func TestMemoryStoreRetention(t *testing.T) {
	if contract.DefaultRetention != 5*time.Minute {
		t.Errorf("DefaultRetention = %v, want the spec's 5m", contract.DefaultRetention)
	}
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	store := &agentrt.MemoryStore{Now: clock}
	h := newHandler()
	g := newGateway(t, h, gatewayOptions{store: store})
	c := g.srv.Client()
	url := g.url(setupSession, "save_snapshot")
	call := func() response { return post(t, c, url, tokenFor(setupSession), "", body("ret1", snapshotArgs)) }

	call()
	advance(contract.DefaultRetention - time.Millisecond)
	if r := call(); r.Header.Get(agentrt.ReplayHeader) != "true" || h.count("ret1") != 1 {
		t.Errorf("just before the retention ended: %v, executions %d", r, h.count("ret1"))
	}
	advance(time.Millisecond)
	if r := call(); r.Header.Get(agentrt.ReplayHeader) != "" || h.count("ret1") != 2 {
		t.Errorf("after the retention: %v, executions %d; want a new execution", r, h.count("ret1"))
	}
}

func readAll(res *http.Response) ([]byte, error) {
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return []byte(b.String()), nil
		}
	}
}
