package gateway_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// fingerprintOf loads the default spec with tools.cue edited (old → new)
// and returns the fingerprint of the named tool in it: the fingerprint a
// stub generated from that version of the contract sends.
func fingerprintOf(t *testing.T, tool, old, new string) string {
	t.Helper()
	src := load.Default()
	text := string(src.Files["tools.cue"])
	if !strings.Contains(text, old) {
		t.Fatalf("tools.cue has no %q", old)
	}
	src.Files["tools.cue"] = []byte(strings.Replace(text, old, new, 1))
	s, err := load.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	return s.Tool(tool).Fingerprint
}

// TestVersionDrift is the run-time drift rule (issue 5 item 4): a call whose
// stub fingerprint differs from the gateway's is executed when its
// arguments validate under the gateway's schema (the change was compatible
// for this call); otherwise it fails, and the message says the sandbox's
// stub is out of date and must be regenerated. Without a fingerprint
// (a stub from before fingerprints, or another client) the arguments are
// simply validated.
func TestVersionDrift(t *testing.T) {
	const nameLimit = "name: strings.MinRunes(1) & strings.MaxRunes(100)"
	current := contract.ToolSaveServiceCommands.Fingerprint()
	if got := fingerprintOf(t, "save_service_commands", nameLimit, nameLimit); got != current {
		t.Fatalf("the default spec's fingerprint %s differs from the generated package's %s: run agentc gen", got, current)
	}
	// An older stub whose schema allowed longer names, and one that was
	// stricter.
	looser := fingerprintOf(t, "save_service_commands", nameLimit, "name: strings.MinRunes(1) & strings.MaxRunes(200)")
	stricter := fingerprintOf(t, "save_service_commands", nameLimit, "name: strings.MinRunes(1) & strings.MaxRunes(50)")
	if looser == current || stricter == current || looser == stricter {
		t.Fatalf("fingerprints current %s, looser %s, stricter %s: want three", current, looser, stricter)
	}

	h := newHandler()
	g := newGateway(t, h, gatewayOptions{})
	c := g.srv.Client()
	url := g.url(setupSession, "save_service_commands")
	args := func(n int) string {
		return `{"commands":[{"name":"` + strings.Repeat("n", n) + `","command":"run"}]}`
	}
	const tooBig = "Invalid arguments: commands.0.name: Too big: expected string to have <=100 characters"
	cases := []struct {
		name, fingerprint, args string
		success                 bool
		result                  string // exact
	}{
		{"current stub", current, args(40), true, "Saved 1 service commands"},
		{"current stub, invalid", current, args(150), false, tooBig},
		{"stricter old stub", stricter, args(40), true, "Saved 1 service commands"},
		{"looser old stub, compatible call", looser, args(80), true, "Saved 1 service commands"},
		{"looser old stub, incompatible call", looser, args(150), false, tooBig +
			" (the sandbox's save_service_commands tool is out of date: its schema fingerprint " + looser +
			" differs from the gateway's " + current + "; regenerate the tool files with agentc gen and restart the sandbox)"},
		{"no fingerprint", "", args(150), false, tooBig},
	}
	for i, tc := range cases {
		id := "drift" + string(rune('a'+i))
		r := post(t, c, url, tokenFor(setupSession), tc.fingerprint, body(id, tc.args))
		if r.Status != 200 || r.Result.Success != tc.success || r.Result.Result != tc.result {
			t.Errorf("%s: %v\nwant success %v, result %q", tc.name, r, tc.success, tc.result)
		}
		if want := map[bool]int{true: 1, false: 0}[tc.success]; h.count(id) != want {
			t.Errorf("%s: executed %d times, want %d", tc.name, h.count(id), want)
		}
		if fp := r.Header.Get(agentrt.FingerprintHeader); fp != current {
			t.Errorf("%s: the answer's fingerprint %q, want the gateway's %s", tc.name, fp, current)
		}
	}
	// A stub for a tool the gateway no longer has.
	r := post(t, c, g.url(setupSession, "verify"), tokenFor(setupSession), "0123456789abcdef", body("drift-gone", "{}"))
	if r.Status != 404 || !strings.Contains(string(r.Body), "regenerate them with agentc gen") {
		t.Errorf("a removed tool's stub: %v", r)
	}
	// Every mismatch is logged for the operators.
	var warned int
	for _, rec := range g.logs.records(t) {
		if rec["msg"] == "agentc callback: the sandbox's stub has another schema fingerprint" && rec["stub_fingerprint"] == looser {
			warned++
		}
	}
	if warned != 2 {
		t.Errorf("%d warnings about the looser stub, want 2", warned)
	}
}

// TestStubsCarryFingerprints checks the generated sandbox side: each
// gateway tool's stub holds its tool's fingerprint and passes it to the
// callback helper, which sends it in the header the route reads.
func TestStubsCarryFingerprints(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "generated", "opencode")
	rt, err := os.ReadFile(filepath.Join(root, "tool", "agentc", "runtime.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rt), `export const FINGERPRINT_HEADER = "`+agentrt.FingerprintHeader+`"`) {
		t.Errorf("runtime.ts does not send %s", agentrt.FingerprintHeader)
	}
	for _, tool := range contract.Tools() {
		src, err := os.ReadFile(filepath.Join(root, "tool", tool.FileName()+".ts"))
		if err != nil {
			t.Fatal(err)
		}
		decl := `const fingerprint = "` + tool.Fingerprint() + `"`
		if got := strings.Contains(string(src), decl) && strings.Contains(string(src), "ctx.abort, fingerprint)"); got != tool.GatewayExecuted() {
			t.Errorf("%s.ts: carries and sends its fingerprint: %v, want %v", tool.FileName(), got, tool.GatewayExecuted())
		}
	}
}
