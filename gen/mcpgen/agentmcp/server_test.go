package agentmcp

import "testing"

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
	}
	for _, c := range cases {
		got, ok := jsString([]byte(c.raw))
		if ok != c.ok || got != c.want {
			t.Errorf("jsString(%s) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}

// TestRawMetaString: the raw id is used only when the body holds the value
// the SDK decoded; otherwise the decoded value stands.
func TestRawMetaString(t *testing.T) {
	const key = "k"
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"k":"\ud800-x"}}}`
	if got := rawMetaString([]byte(body), key, "\ufffd-x"); got != "\xed\xa0\x80-x" {
		t.Errorf("lone surrogate: %q", got)
	}
	if got := rawMetaString([]byte(body), key, "\ufffd-y"); got != "\ufffd-y" {
		t.Errorf("another decoded value: %q, want it kept", got)
	}
	if got := rawMetaString([]byte(`{"params":`), key, "\ufffd"); got != "\ufffd" {
		t.Errorf("a body that is not JSON: %q, want the decoded value", got)
	}
}
