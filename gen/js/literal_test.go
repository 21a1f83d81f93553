package js_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/js"
)

// TestLiteral: node evaluates each JSON value written by Literal (and an
// object literal keyed by Key) to the value JSON.parse makes of the JSON —
// own properties named __proto__ included, at any depth — and Literal
// leaves JSON without such a key as it is.
func TestLiteral(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	cases := []string{
		`{"a":1}`,
		`{"__proto__":{"x":1}}`,
		`{"__proto__" : 2,"b":[{"__proto__":null}]}`,
		`{"\u005f_proto__":{"y":true}}`,
		`{"a":"\"__proto__\":","__proto__":"s"}`,
		`{"x\"__proto__":1}`,
		`["__proto__",{"k":"__proto__"}]`,
		`"__proto__"`,
	}
	for _, c := range cases[:1] {
		if got := js.Literal(json.RawMessage(c)); got != c {
			t.Errorf("Literal(%s) = %s, want it unchanged", c, got)
		}
	}
	var script strings.Builder
	script.WriteString("const canon = (v) => JSON.stringify(v, (k, x) => x !== null && typeof x === \"object\" && !Array.isArray(x) ? Object.fromEntries(Object.getOwnPropertyNames(x).map((n) => [n, x[n]])) : x)\n")
	script.WriteString("const out = []\n")
	for _, c := range cases {
		q, _ := json.Marshal(c)
		script.WriteString("out.push([canon(JSON.parse(" + string(q) + ")), canon(" + js.Literal(json.RawMessage(c)) + ")])\n")
	}
	script.WriteString("out.push([canon(JSON.parse('{\"__proto__\":1,\"b\":2}')), canon({ " + js.Key("__proto__") + ": 1, " + js.Key("b") + ": 2 })])\n")
	script.WriteString("console.log(JSON.stringify(out))\n")
	cmd := exec.Command(node, "-e", script.String())
	cmd.Dir = filepath.Dir(nodetool.Dir(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var pairs [][2]string
	if err := json.Unmarshal(out, &pairs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(pairs) != len(cases)+1 {
		t.Fatalf("%d results, want %d", len(pairs), len(cases)+1)
	}
	for i, p := range pairs {
		what := "Key"
		if i < len(cases) {
			what = js.Literal(json.RawMessage(cases[i]))
		}
		if p[0] != p[1] {
			t.Errorf("%s: JavaScript makes %s, JSON.parse %s", what, p[1], p[0])
		}
	}
}
