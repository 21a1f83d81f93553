package gateway_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/pgtest"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// readmeGateway is a route wired exactly as the README shows —
// mux.Handle(route.Pattern(), route) — whose Sessions knows every session
// (in setup mode) and counts how often it was asked, so that a request
// rejected by the route's own checks is seen not to reach Sessions or
// the Store.
type readmeGateway struct {
	srv   *httptest.Server
	h     *handler
	asked atomic.Int64
}

func newReadmeGateway(t *testing.T, store agentrt.Store) *readmeGateway {
	t.Helper()
	g := &readmeGateway{h: newHandler()}
	route, err := contract.NewRoute(contract.RouteConfig{
		Handler: g.h,
		Auth:    auth,
		Sessions: contract.SessionsFunc(func(ctx context.Context, id string) (contract.Mode, error) {
			g.asked.Add(1)
			return contract.ModeSetup, nil
		}),
		Store:  store,
		Logger: discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(route.Pattern(), route)
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

// path is the callback path of a session's tool, the session given
// already escaped.
func callbackPath(escapedSession, tool string) string {
	return strings.NewReplacer("{sessionId}", escapedSession, "{toolName}", tool).Replace(contract.CallbackPath)
}

// send makes one request with a token valid for any session.
func (g *readmeGateway) send(t *testing.T, method, path string, header map[string]string, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, g.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer sbx-any")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := g.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Body: b}
	if res.StatusCode == 200 {
		json.Unmarshal(b, &out.Result)
	}
	return out
}

// jsonError decodes the route's JSON error, failing the test when the
// answer is not one.
func jsonError(t *testing.T, what string, r response) (msg, code string) {
	t.Helper()
	var e struct{ Error, Code string }
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q, body %q: not the route's JSON error", what, ct, r.Body)
		return "", ""
	}
	if err := json.Unmarshal(r.Body, &e); err != nil || e.Error == "" || e.Code == "" {
		t.Errorf("%s: body %q is not {error, code}", what, r.Body)
	}
	return e.Error, e.Code
}

// TestRouteOwnsItsPrefix: wired as the README shows, every request under
// the callback path's prefix is answered by the route, in its JSON error
// shape — other methods (GET, PUT, HEAD, lower-case "post") with 405 and
// Allow: POST, other paths under the prefix (a trailing slash, a missing
// or an extra segment) with 404.
func TestRouteOwnsItsPrefix(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"mux.Handle(route.Pattern(), route)", "ReadHeaderTimeout:", "ReadTimeout:", "WriteTimeout:", "IdleTimeout:", "MaxHeaderBytes:"} {
		if !strings.Contains(string(readme), line) {
			t.Errorf("the README's wiring lacks %q: this test no longer wires the route as it shows", line)
		}
	}
	g := newReadmeGateway(t, nil)
	snap := callbackPath(setupSession, "save_snapshot")
	literal, _, _ := strings.Cut(contract.CallbackPath, "{")
	prefix := literal[:strings.LastIndex(literal, "/")+1] // "/proliferate/"
	cases := []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", snap, 405, "method_not_allowed"},
		{"PUT", snap, 405, "method_not_allowed"},
		{"DELETE", snap, 405, "method_not_allowed"},
		{"OPTIONS", snap, 405, "method_not_allowed"},
		{"post", snap, 405, "method_not_allowed"},
		{"POST", snap + "/", 404, "not_found"},
		{"GET", snap + "/", 404, "not_found"},
		{"POST", snap + "/extra", 404, "not_found"},
		{"POST", strings.TrimSuffix(snap, "/save_snapshot"), 404, "not_found"},
		{"POST", prefix, 404, "not_found"},
		{"POST", prefix + setupSession, 404, "not_found"},
		{"POST", prefix + "anything/else/entirely/here", 404, "not_found"},
	}
	for _, tc := range cases {
		what := tc.method + " " + tc.path
		r := g.send(t, tc.method, tc.path, nil, body("m1", snapshotArgs))
		if r.Status != tc.status {
			t.Errorf("%s: %v, want %d", what, r, tc.status)
			continue
		}
		if _, code := jsonError(t, what, r); code != tc.code {
			t.Errorf("%s: code %q, want %q", what, code, tc.code)
		}
		if tc.status == 405 && r.Header.Get("Allow") != "POST" {
			t.Errorf("%s: Allow %q, want POST", what, r.Header.Get("Allow"))
		}
	}
	if r := g.send(t, "HEAD", snap, nil, ""); r.Status != 405 || r.Header.Get("Allow") != "POST" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("HEAD: %v, Allow %q, Content-Type %q", r, r.Header.Get("Allow"), r.Header.Get("Content-Type"))
	}
	if n := g.h.total.Load(); n != 0 {
		t.Errorf("the handler ran %d times", n)
	}
	// The wiring still executes a call, and leaves paths outside the
	// prefix to the mux.
	if r := g.send(t, "POST", snap, nil, body("m2", snapshotArgs)); r.Status != 200 || !r.Result.Success {
		t.Errorf("POST %s: %v", snap, r)
	}
	if r := g.send(t, "POST", "/elsewhere", nil, ""); r.Status != 404 || r.Header.Get("Content-Type") == "application/json" {
		t.Errorf("a path outside the prefix was answered by the route: %v", r)
	}
}

// TestEnvelopeAsJSONParse: the body is read as JSON.parse reads it, not as
// encoding/json does: keys are case-sensitive (but their escapes are
// decoded), and the last of a repeated key counts.
func TestEnvelopeAsJSONParse(t *testing.T) {
	g := newReadmeGateway(t, nil)
	cmds := callbackPath(setupSession, "save_service_commands")
	one := `{"commands":[{"name":"web","command":"npm start"}]}`
	two := `{"commands":[{"name":"web","command":"npm start"},{"name":"db","command":"pg"}]}`
	for _, b := range []string{
		`{"TOOL_CALL_ID":"u1","ARGS":` + one + `}`,
		`{"Tool_Call_Id":"u2","args":` + one + `}`,
		`{"tool_call_id":"u3","Args":` + one + `}`,
	} {
		r := g.send(t, "POST", cmds, nil, b)
		if _, code := jsonError(t, b, r); r.Status != 400 || code != "invalid_body" {
			t.Errorf("%s: %v, want 400 invalid_body", b, r)
		}
	}
	if n := g.h.total.Load(); n != 0 {
		t.Fatalf("upper-case keys executed %d calls", n)
	}
	// The last tool_call_id and the last args count.
	r := g.send(t, "POST", cmds, nil, `{"tool_call_id":"d-first","args":`+one+`,"tool_call_id":"d-last","args":`+two+`}`)
	if r.Status != 200 || r.Result.Result != "Saved 2 service commands" || g.h.count("d-last") != 1 || g.h.count("d-first") != 0 {
		t.Errorf("repeated keys: %v; executions d-first %d, d-last %d", r, g.h.count("d-first"), g.h.count("d-last"))
	}
	// An escaped key is the same key.
	r = g.send(t, "POST", cmds, nil, `{"tool\u005fcall_id":"esc","\u0061rgs":`+one+`}`)
	if r.Status != 200 || r.Result.Result != "Saved 1 service commands" || g.h.count("esc") != 1 {
		t.Errorf("escaped keys: %v", r)
	}
}

// forEachStore runs f with a MemoryStore and with an SQLStore on a real
// PostgreSQL; count tells how many calls the store holds.
func forEachStore(t *testing.T, f func(t *testing.T, store agentrt.Store, count func() int)) {
	t.Run("memory", func(t *testing.T) {
		// It holds the calls it claimed for execution: it forgets none
		// within a test.
		store := &countingStore{Store: contract.NewMemoryStore()}
		f(t, store, func() int { return int(store.claimed.Load()) })
	})
	t.Run("postgres", func(t *testing.T) {
		store, db := openStore(t, pgtest.Start(t), 0)
		f(t, store, func() int { return countRows(t, db) })
	})
}

func countRows(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM session_tool_invocations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCanonicalArguments: a repeated tool_call_id with the same arguments
// is a replay, whatever their key order, whitespace, escapes, number
// spelling or overwritten repeated keys; other arguments (another value,
// an extra key, a lone surrogate for another) are a 409 — in both stores.
func TestCanonicalArguments(t *testing.T) {
	cases := []struct {
		name, first, again string
		replay             bool
	}{
		{"key order", `{"message":"m","extra":{"a":1,"b":[true,null]}}`, `{"extra":{"b":[true,null],"a":1},"message":"m"}`, true},
		{"whitespace", `{"message":"m"}`, "{ \"message\" :\n\t\"m\" }", true},
		{"escapes", `{"message":"ready é"}`, `{"message":"\u0072eady \u00e9"}`, true},
		{"number spelling", `{"message":"m","n":1}`, `{"n":1.0e0,"message":"m"}`, true},
		{"repeated key", `{"message":"m"}`, `{"message":"other","message":"m"}`, true},
		{"other value", `{"message":"m"}`, `{"message":"n"}`, false},
		{"other number", `{"message":"m","n":1}`, `{"message":"m","n":1.5}`, false},
		{"extra key", `{"message":"m"}`, `{"message":"m","n":1}`, false},
		{"array order", `{"message":"m","n":[1,2]}`, `{"message":"m","n":[2,1]}`, false},
		{"lone surrogates", `{"message":"\ud800"}`, `{"message":"\udbff"}`, false},
	}
	forEachStore(t, func(t *testing.T, store agentrt.Store, count func() int) {
		g := newReadmeGateway(t, store)
		snap := callbackPath(setupSession, "save_snapshot")
		for _, tc := range cases {
			id := "canon-" + strings.ReplaceAll(tc.name, " ", "-")
			first := g.send(t, "POST", snap, nil, body(id, tc.first))
			again := g.send(t, "POST", snap, nil, body(id, tc.again))
			if first.Status != 200 || first.Header.Get(agentrt.ReplayHeader) != "" {
				t.Errorf("%s: first call %v", tc.name, first)
				continue
			}
			if tc.replay {
				if again.Status != 200 || again.Header.Get(agentrt.ReplayHeader) != "true" || string(again.Body) != string(first.Body) {
					t.Errorf("%s: %s then %s: %v, want a replay of %v", tc.name, tc.first, tc.again, again, first)
				}
			} else if _, code := jsonError(t, tc.name, again); again.Status != 409 || code != "tool_call_id_conflict" {
				t.Errorf("%s: %s then %s: %v, want 409", tc.name, tc.first, tc.again, again)
			}
			if n := g.h.count(id); n != 1 {
				t.Errorf("%s: executed %d times", tc.name, n)
			}
		}
		if n := count(); n != len(cases) {
			t.Errorf("the store holds %d calls, want %d", n, len(cases))
		}
	})
}

// TestHostileIDsAndHeaders: session ids, tool_call_ids, the fingerprint
// header and args past the documented limits are answered 400 with a
// message naming the limit, before Sessions or the Store is asked — the
// same status and body with a MemoryStore and with an SQLStore on
// PostgreSQL (which cannot store NUL or invalid UTF-8). Ids are compared
// as the JavaScript strings they are: distinct Unicode ids are distinct
// calls, and the two spellings of one id are one call.
func TestHostileIDsAndHeaders(t *testing.T) {
	snap := callbackPath(setupSession, "save_snapshot")
	deep := strings.Repeat(`{"a":`, agentrt.MaxArgsDepth) + "1" + strings.Repeat("}", agentrt.MaxArgsDepth)
	rejected := []struct {
		name, path, body, fingerprint string
		code, says                    string
	}{
		{"session with NUL", callbackPath("a%00b", "save_snapshot"), body("h1", "{}"), "", "invalid_session_id", "control characters"},
		{"session with a newline", callbackPath("a%0Ab", "save_snapshot"), body("h2", "{}"), "", "invalid_session_id", "control characters"},
		{"session of invalid UTF-8", callbackPath("a%FFb", "save_snapshot"), body("h3", "{}"), "", "invalid_session_id", "Unicode"},
		{"session of a UTF-8 surrogate", callbackPath("a%ED%A0%80b", "save_snapshot"), body("h4", "{}"), "", "invalid_session_id", "Unicode"},
		{"session of 10 KB", callbackPath(strings.Repeat("s", 10<<10), "save_snapshot"), body("h5", "{}"), "", "invalid_session_id", "MaxSessionIDLength"},
		{"session one byte over", callbackPath(strings.Repeat("s", agentrt.MaxSessionIDLength+1), "save_snapshot"), body("h6", "{}"), "", "invalid_session_id", "MaxSessionIDLength"},
		{"tool_call_id with NUL", snap, `{"tool_call_id":"a\u0000b","args":{}}`, "", "invalid_body", "control characters"},
		{"tool_call_id with a tab", snap, "{\"tool_call_id\":\"a\\tb\",\"args\":{}}", "", "invalid_body", "control characters"},
		{`tool_call_id "\ud800-x"`, snap, `{"tool_call_id":"\ud800-x","args":{}}`, "", "invalid_body", "lone surrogate"},
		{`tool_call_id "\udbff-x"`, snap, `{"tool_call_id":"\udbff-x","args":{}}`, "", "invalid_body", "lone surrogate"},
		{`tool_call_id "\udc00\ud800"`, snap, `{"tool_call_id":"\udc00\ud800","args":{}}`, "", "invalid_body", "lone surrogate"},
		{`tool_call_id "\xff-x"`, snap, "{\"tool_call_id\":\"\xff-x\",\"args\":{}}", "", "invalid_body", "invalid UTF-8"},
		{`tool_call_id "\xfe-x"`, snap, "{\"tool_call_id\":\"\xfe-x\",\"args\":{}}", "", "invalid_body", "invalid UTF-8"},
		{"tool_call_id one byte over", snap, body(strings.Repeat("i", agentrt.MaxToolCallIDLength+1), "{}"), "", "invalid_body", "MaxToolCallIDLength"},
		{"fingerprint of 512 KB", snap, body("h7", "{}"), strings.Repeat("f", 512<<10), "invalid_fingerprint", "MaxFingerprintLength"},
		{"fingerprint one byte over", snap, body("h8", "{}"), strings.Repeat("f", agentrt.MaxFingerprintLength+1), "invalid_fingerprint", "MaxFingerprintLength"},
		{"fingerprint with a space", snap, body("h9", "{}"), "abc def", "invalid_fingerprint", "printable ASCII"},
		{"args nested too deep", snap, body("h10", `{"a":`+deep+`}`), "", "invalid_body", "MaxArgsDepth"},
	}
	bodies := map[string][2]string{} // by case: the answer with each store
	forEachStore(t, func(t *testing.T, store agentrt.Store, count func() int) {
		g := newReadmeGateway(t, store)
		for _, tc := range rejected {
			hdr := map[string]string{}
			if tc.fingerprint != "" {
				hdr[agentrt.FingerprintHeader] = tc.fingerprint
			}
			r := g.send(t, "POST", tc.path, hdr, tc.body)
			msg, code := jsonError(t, tc.name, r)
			if r.Status != 400 || code != tc.code || !strings.Contains(msg, tc.says) {
				t.Errorf("%s: %v, want 400 %s saying %q", tc.name, r, tc.code, tc.says)
			}
			b := bodies[tc.name]
			if strings.HasSuffix(t.Name(), "/postgres") {
				b[1] = r.String()
			} else {
				b[0] = r.String()
			}
			bodies[tc.name] = b
		}
		if n := g.asked.Load(); n != 0 {
			t.Errorf("Sessions was asked %d times for rejected requests", n)
		}
		if n := count(); n != 0 {
			t.Errorf("rejected requests left %d calls in the store", n)
		}

		// At the limits, and for Unicode ids, calls go through.
		atLimit := []struct {
			name, path, body, fingerprint string
			status                        int
		}{
			{"session at the limit", callbackPath(strings.Repeat("s", agentrt.MaxSessionIDLength), "save_snapshot"), body("ok-1", "{}"), "", 200},
			{"tool_call_id at the limit", snap, body(strings.Repeat("i", agentrt.MaxToolCallIDLength), "{}"), "", 200},
			{"fingerprint at the limit", snap, body("ok-2", "{}"), strings.Repeat("f", agentrt.MaxFingerprintLength), 200},
			{"args at the depth limit", snap, body("ok-3", deep), "", 200},
		}
		for _, tc := range atLimit {
			hdr := map[string]string{}
			if tc.fingerprint != "" {
				hdr[agentrt.FingerprintHeader] = tc.fingerprint
			}
			if r := g.send(t, "POST", tc.path, hdr, tc.body); r.Status != tc.status {
				t.Errorf("%s: %v, want %d", tc.name, r, tc.status)
			}
		}
		// "é" precomposed and decomposed are different JavaScript strings:
		// two calls. "😀" raw and as an escaped surrogate pair are one.
		for _, b := range []string{body("é", "{}"), `{"tool_call_id":"e\u0301","args":{}}`, `{"tool_call_id":"😀","args":{}}`, `{"tool_call_id":"\ud83d\ude00","args":{}}`} {
			if r := g.send(t, "POST", snap, nil, b); r.Status != 200 || !r.Result.Success {
				t.Errorf("%s: %v", b, r)
			}
		}
		if g.h.count("é") != 1 || g.h.count("e\u0301") != 1 || g.h.count("😀") != 1 {
			t.Errorf("executions: é %d, e+U+0301 %d, 😀 %d; want 1 each", g.h.count("é"), g.h.count("e\u0301"), g.h.count("😀"))
		}
	})
	for name, b := range bodies {
		if b[0] != b[1] && b[0] != "" && b[1] != "" {
			t.Errorf("%s: MemoryStore answered %s, SQLStore %s", name, b[0], b[1])
		}
	}
}
