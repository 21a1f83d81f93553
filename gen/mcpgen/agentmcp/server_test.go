package agentmcp

import "testing"

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
