package cli

import "testing"

// TestVersionString: the one line agentc version prints names the module
// version, what replaces the module, and, in parentheses, the VCS revision
// (marked when the checkout was modified) and the Go version.
func TestVersionString(t *testing.T) {
	for _, c := range []struct {
		v    buildVersion
		want string
	}{
		{buildVersion{Version: "v1.2.0", Go: "go1.26.8"}, "agentc v1.2.0 (go1.26.8)"},
		{buildVersion{Version: "(devel)"}, "agentc (devel)"},
		{buildVersion{Version: "v0.0.0-2026-ae86204e", Revision: "ae86204e", Modified: true, Go: "go1.26.8"},
			"agentc v0.0.0-2026-ae86204e (revision ae86204e, modified; go1.26.8)"},
		{buildVersion{Version: "v0.1.0", Revision: "ae86204e", Go: "go1.26.8"}, "agentc v0.1.0 (revision ae86204e; go1.26.8)"},
		{buildVersion{Version: "(devel)", ReplacedBy: "../agentc", Go: "go1.26.8"}, "agentc (devel), replaced by ../agentc (go1.26.8)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.v, got, c.want)
		}
	}
}
