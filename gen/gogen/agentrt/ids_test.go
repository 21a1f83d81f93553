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
