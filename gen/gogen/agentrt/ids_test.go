package agentrt_test

import (
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
)

// TestRouteRefusesInvalidUTF8IDs: a tool_call_id or session id holding raw
// bytes that are not UTF-8 ("\xff-1" and "\xfe-1", sent as bytes) is
// refused with a 400 and the id's message, like a lone surrogate, before
// the Store sees it: neither executes, and the second is not answered as
// a replay of the first (which it would be if both were read as "\ufffd-1").
func TestRouteRefusesInvalidUTF8IDs(t *testing.T) {
	h := newEchoer()
	route, ev := newRoute(t, h, nil)
	const echo = "/cb/s-full/tools/echo"
	for _, id := range []string{"\xff-1", "\xfe-1"} {
		a := serve(route, request{path: echo, token: "sbx", body: `{"tool_call_id":"` + id + `","args":{"text":"x"}}`})
		want := agentrt.CheckToolCallID(id)
		if want == "" || !strings.Contains(want, "invalid UTF-8") {
			t.Fatalf("CheckToolCallID(%q) = %q, want a refusal naming invalid UTF-8", id, want)
		}
		if a.status != 400 || a.code != "invalid_body" || a.errorText != want || a.replay != "" {
			t.Errorf("tool_call_id %q: %+v, want 400 invalid_body %q", id, a, want)
		}
		if n := h.count(id); n != 0 {
			t.Errorf("tool_call_id %q executed %d times", id, n)
		}
		if e := ev.last(); e.Status != 400 || e.Outcome == "executed" || e.Outcome == "replayed" {
			t.Errorf("tool_call_id %q: event %+v", id, e)
		}
	}
	// What the two would have been read as is a valid id of its own, never
	// claimed by them: it executes, once.
	a := serve(route, request{path: echo, token: "sbx", body: `{"tool_call_id":"\ufffd-1","args":{"text":"x"}}`})
	if a.status != 200 || a.replay != "" || h.count("\ufffd-1") != 1 {
		t.Errorf(`tool_call_id "\ufffd-1": %+v, %d executions, want executed once`, a, h.count("\ufffd-1"))
	}

	for _, s := range []struct{ seg, id string }{{"%FF-1", "\xff-1"}, {"%FE-1", "\xfe-1"}} {
		a := serve(route, request{path: "/cb/" + s.seg + "/tools/echo", token: "sbx", body: `{"tool_call_id":"s1","args":{"text":"x"}}`})
		want := agentrt.CheckSessionID(s.id)
		if want == "" || a.status != 400 || a.code != "invalid_session_id" || a.errorText != want {
			t.Errorf("session %s: %+v, want 400 invalid_session_id %q", s.seg, a, want)
		}
	}
	if n := h.count("s1"); n != 0 {
		t.Errorf("calls of sessions with invalid ids executed %d times", n)
	}
}

// TestJSString: a JSON string token decodes as JavaScript reads it, with
// nothing replaced: escapes, surrogate pairs joined, a lone surrogate as
// its WTF-8 bytes, invalid UTF-8 kept; a token that is not one fails.
func TestJSString(t *testing.T) {
	cases := []struct {
		raw, want string
		ok        bool
	}{
		{`"plain"`, "plain", true},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t", true},
		{`"\u00e9\u20AC"`, "é€", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\ud800-x"`, "\xed\xa0\x80-x", true},
		{`"x\udbff"`, "x\xed\xaf\xbf", true},
		{`"\udc00\ud800"`, "\xed\xb0\x80\xed\xa0\x80", true},
		{`"\ud800\u0041"`, "\xed\xa0\x80A", true},
		{"\"\xff-x\"", "\xff-x", true},
		{`"\ufffd"`, "\ufffd", true},
		{`"\u12"`, "", false},
		{`"\x"`, "", false},
		{`"a\"`, "", false},
		{`plain`, "", false},
		{`"`, "", false},
		{`"a" `, "", false},
	}
	for _, c := range cases {
		got, ok := agentrt.JSString([]byte(c.raw))
		if ok != c.ok || got != c.want {
			t.Errorf("JSString(%s) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}

// TestRouteLimits: each limit the README lists is answered 400 (413 for
// the body) with a message naming what is wrong, before Sessions or the
// Store is asked anything: the session of the body cases is unknown, which
// would be a 404 if it were looked up first, and no store attempt is
// counted. A rejected id is clipped in the event.
func TestRouteLimits(t *testing.T) {
	h := newEchoer()
	route, ev := newRoute(t, h, nil)
	const unknown = "/cb/s-none/tools/echo"
	deep := strings.Repeat("[", agentrt.MaxArgsDepth) + strings.Repeat("]", agentrt.MaxArgsDepth)
	long := strings.Repeat("a", agentrt.MaxToolCallIDLength+1)
	for _, c := range []struct {
		req        request
		status     int
		code, want string
	}{
		{request{path: "/cb/" + strings.Repeat("s", agentrt.MaxSessionIDLength+1) + "/tools/echo"},
			400, "invalid_session_id", "longer than 512 bytes (MaxSessionIDLength)"},
		{request{path: "/cb/s%01x/tools/echo"}, 400, "invalid_session_id", "must not hold control characters"},
		{request{path: unknown, fingerprint: strings.Repeat("f", agentrt.MaxFingerprintLength+1)},
			400, "invalid_fingerprint", "longer than 128 bytes (MaxFingerprintLength)"},
		{request{path: unknown, fingerprint: "a\x7fb"}, 400, "invalid_fingerprint", "must be printable ASCII"},
		{request{path: unknown, fingerprint: "a b"}, 400, "invalid_fingerprint", "must be printable ASCII"},
		{request{path: unknown, fingerprint: "caf\u00e9"}, 400, "invalid_fingerprint", "must be printable ASCII"},
		{request{path: unknown, fingerprint: "a\xffb"}, 400, "invalid_fingerprint", "must be printable ASCII"},
		{request{path: unknown, body: `{"tool_call_id":"` + long + `","args":{}}`}, 400, "invalid_body", "longer than 512 bytes (MaxToolCallIDLength)"},
		{request{path: unknown, body: `{"tool_call_id":"a\u007f","args":{}}`}, 400, "invalid_body", "must not hold control characters"},
		{request{path: unknown, body: `{"tool_call_id":1,"args":{}}`}, 400, "invalid_body", "tool_call_id must be a string"},
		{request{path: unknown, body: `{"tool_call_id":"a","args":[]}`}, 400, "invalid_body", "args must be a JSON object"},
		{request{path: unknown, body: `{"tool_call_id":"a","args":{"x":` + deep + `}}`}, 400, "invalid_body", "deeper than 512 objects and arrays (MaxArgsDepth)"},
		{request{path: unknown, body: `{"tool_call_id":"a",`}, 400, "invalid_body", "the body is not valid JSON"},
		{request{path: unknown, body: `{"tool_call_id":"` + strings.Repeat("a", agentrt.DefaultMaxBodyBytes) + `"}`},
			413, "body_too_large", "exceeds 1048576 bytes"},
	} {
		c.req.token = "sbx"
		a := serve(route, c.req)
		if a.status != c.status || a.code != c.code || !strings.Contains(a.errorText, c.want) {
			t.Errorf("%.80s: %d %s %q, want %d %s %q", c.req.path+" "+c.req.body, a.status, a.code, a.errorText, c.status, c.code, c.want)
		}
		if e := ev.last(); e.StoreAttempts != 0 || len(e.ToolCallID) > 80 || len(e.SessionID) > 80 {
			t.Errorf("%.80s: event %.300v", c.req.path+" "+c.req.body, e)
		}
	}
	if n := h.count("a"); n != 0 {
		t.Errorf("refused calls executed %d times", n)
	}
}
