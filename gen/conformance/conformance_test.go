package conformance

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/model"
)

// TestConformance runs every corpus case through the generated Go, the
// generated zod under node and CUE, and demands the same answers.
func TestConformance(t *testing.T) {
	s := defaultSpec(t)
	for _, tool := range s.Tools {
		if goDecoders[tool.Name] == nil {
			t.Errorf("tool %s has no Go decoder in goDecoders", tool.Name)
		}
	}
	cases := readCorpus(t)
	if len(cases) < 500 {
		t.Errorf("corpus has %d cases, want at least 500", len(cases))
	}
	zod := startZod(t, s)
	cx := newCUE(t, specDir(t))
	conform(t, s, cases, runGo, zod, cx, nil)
}

// goRunner runs one input through generated Go decoders.
type goRunner func(tool string, input []byte) (verdict, error)

// conform runs cases through Go, zod and CUE and reports every difference
// as a test error, except the inputs listed in known (input → reason),
// which must still differ: a known disagreement that no longer shows is
// reported too, so that the list is pruned when the bug is fixed.
func conform(t *testing.T, s *model.Spec, cases []corpusCase, goRun goRunner, zod *zodProc, cx *cueExec, known map[string]string) {
	t.Helper()
	perTool := map[string]int{}
	for _, c := range cases {
		perTool[c.Tool]++
	}
	for _, tool := range s.Tools {
		if perTool[tool.Name] == 0 {
			t.Errorf("no corpus cases for tool %s", tool.Name)
		}
	}
	argsOf := map[string]*model.Type{}
	for _, tool := range s.Tools {
		argsOf[tool.Name] = tool.Args
	}
	var disagreements, issueMismatches, knownSeen int
	seenKnown := map[string]bool{}
	for _, c := range cases {
		gv, err := goRun(c.Tool, c.Input)
		if err != nil {
			t.Fatalf("%s: go: %v", c.Where, err)
		}
		zv, err := zod.run(c.Tool, c.Input)
		if err != nil {
			t.Fatalf("%s: zod: %v", c.Where, err)
		}
		cueOK, err := cx.accepts(cx.schema(c.Tool), argsOf[c.Tool], c.Input)
		if err != nil {
			t.Fatalf("%s: cue: %v", c.Where, err)
		}
		if zv.OK {
			zv.Data = intNegativeZero(argsOf[c.Tool], zv.Data)
		}
		label := c.Where + " " + c.Name
		var problems []string
		if gv.Syntax != zv.Syntax || gv.OK != zv.OK || cueOK != zv.OK {
			disagreements++
			problems = append(problems, fmt.Sprintf("disagreement: go ok=%v syntax=%v, zod ok=%v syntax=%v, cue ok=%v\ngo:  %s\nzod: %s", gv.OK, gv.Syntax, zv.OK, zv.Syntax, cueOK, gv.Issues, zv.Issues))
		} else {
			if gv.Issues != zv.Issues {
				issueMismatches++
				problems = append(problems, fmt.Sprintf("issues differ\ngo:  %s\nzod: %s", gv.Issues, zv.Issues))
			}
			if gv.Data != zv.Data {
				problems = append(problems, fmt.Sprintf("decoded data differ\ngo:  %s\nzod: %s", gv.Data, zv.Data))
			}
		}
		key := c.Tool + "\t" + string(c.Input)
		if reason, ok := known[key]; ok {
			seenKnown[key] = true
			if len(problems) == 0 {
				t.Errorf("%s: listed as a known disagreement (%s) but all executors now agree; remove it from the list\ninput: %s", label, reason, c.Input)
			} else {
				knownSeen++
				t.Logf("%s: known disagreement (%s)\ninput: %s\n%s", label, reason, c.Input, strings.Join(problems, "\n"))
			}
			continue
		}
		for _, p := range problems {
			t.Errorf("%s: %s\ninput: %s", label, p, c.Input)
		}
		if len(problems) > 0 {
			continue
		}
		want := map[string]bool{"ok": zv.OK, "bad": !zv.OK && !zv.Syntax, "syntax": zv.Syntax}
		if !want[c.Expect] {
			t.Errorf("%s: the corpus expects %s; all three say ok=%v syntax=%v\ninput: %s\nissues: %s", label, c.Expect, zv.OK, zv.Syntax, c.Input, zv.Issues)
		}
	}
	for key, reason := range known {
		if !seenKnown[key] {
			t.Errorf("known disagreement %q (%s) is not in the corpus", key, reason)
		}
	}
	t.Logf("%d cases over %d tools: %d accept/reject disagreements, %d issue-list mismatches (%d of them known)", len(cases), len(perTool), disagreements, issueMismatches, knownSeen)
}

// intNegativeZero returns the canonical JSON data with each negative zero
// marker at an integer position of type t replaced by 0: zod keeps the -0
// JSON.parse gives for "-0", while a Go integer has no negative zero, and
// the two are the same integer. A -0 where a number is wanted must match.
func intNegativeZero(t *model.Type, data string) string {
	if !strings.Contains(data, "$negativeZero") {
		return data
	}
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		return data
	}
	var walk func(t *model.Type, v any) any
	walk = func(t *model.Type, v any) any {
		switch t.Kind {
		case model.Integer:
			if m, ok := v.(map[string]any); ok && len(m) == 1 && m["$negativeZero"] == true {
				return float64(0)
			}
		case model.Array:
			if l, ok := v.([]any); ok {
				for i := range l {
					l[i] = walk(t.Items, l[i])
				}
			}
		case model.Object:
			if m, ok := v.(map[string]any); ok {
				for _, f := range t.Fields {
					if x, ok := m[f.Name]; ok {
						m[f.Name] = walk(f.Type, x)
					}
				}
			}
		}
		return v
	}
	out, _ := json.Marshal(walk(t, v))
	return string(out)
}
