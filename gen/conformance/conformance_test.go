package conformance

import (
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
	perTool := map[string]int{}
	for _, c := range cases {
		perTool[c.Tool]++
	}
	for _, tool := range s.Tools {
		if perTool[tool.Name] == 0 {
			t.Errorf("no corpus cases for tool %s", tool.Name)
		}
	}
	zod := startZod(t, s)
	cx := newCUE(t, specDir(t))
	argsOf := map[string]*model.Type{}
	for _, tool := range s.Tools {
		argsOf[tool.Name] = tool.Args
	}
	var disagreements, issueMismatches int
	for _, c := range cases {
		gv, err := runGo(c.Tool, c.Input)
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
		label := c.Where + " " + c.Name
		if gv.Syntax != zv.Syntax || gv.OK != zv.OK || cueOK != zv.OK {
			disagreements++
			t.Errorf("%s: disagreement: go ok=%v syntax=%v, zod ok=%v syntax=%v, cue ok=%v\ninput: %s\ngo:  %s\nzod: %s", label, gv.OK, gv.Syntax, zv.OK, zv.Syntax, cueOK, c.Input, gv.Issues, zv.Issues)
			continue
		}
		if gv.Issues != zv.Issues {
			issueMismatches++
			t.Errorf("%s: issues differ\ninput: %s\ngo:  %s\nzod: %s", label, c.Input, gv.Issues, zv.Issues)
		}
		if gv.Data != zv.Data {
			t.Errorf("%s: decoded data differ\ninput: %s\ngo:  %s\nzod: %s", label, c.Input, gv.Data, zv.Data)
		}
		want := map[string]bool{"ok": zv.OK, "bad": !zv.OK && !zv.Syntax, "syntax": zv.Syntax}
		if !want[c.Expect] {
			t.Errorf("%s: the corpus expects %s; all three say ok=%v syntax=%v\ninput: %s\nissues: %s", label, c.Expect, zv.OK, zv.Syntax, c.Input, zv.Issues)
		}
	}
	t.Logf("%d cases over %d tools: %d accept/reject disagreements, %d issue-list mismatches", len(cases), len(perTool), disagreements, issueMismatches)
}
