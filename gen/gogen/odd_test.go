package gogen

import (
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// TestRenderOddComments: declarations whose comments hold text gofmt lays
// out in ways the writer does not reproduce go to go/format unindented, so
// that gofmt formats each such comment as the doc comment it is, and come
// out as gofmt formats the whole file: in tools.go (an object's doc, a
// field's, a tool's deprecation), modes.go (a mode's goal) and dispatch.go
// (a deprecated gateway tool's method). vet
// refuses a text with a control character, but not one with another
// character that is not printable (a zero-width space, U+200B): the odd
// path is reached from a spec that vet accepts.
func TestRenderOddComments(t *testing.T) {
	const zwsp = "\u200b"
	src := load.Default()
	modes := string(src.Files["modes.cue"])
	const goal = `goal:         "Get the repository running and save a snapshot"`
	if !strings.Contains(modes, goal) {
		t.Fatal("the default spec's modes.cue has no such goal: the case tests nothing")
	}
	src.Files["modes.cue"] = []byte(strings.Replace(modes, goal, strings.Replace(goal, "the", `the\u0001`, 1), 1))
	if _, err := load.Load(src); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Fatalf("vet admits a goal with a control character: %v", err)
	}
	src.Files["modes.cue"] = []byte(strings.Replace(modes, goal, strings.Replace(goal, "the", `the\u200b`, 1), 1))
	s, err := load.Load(src)
	if err != nil {
		t.Fatalf("vet refuses a goal with a zero-width space: %v", err)
	}
	odd := "Odd " + zwsp + " text.\n\n- a list item\n\n\tcode"
	var tool *model.Tool
	for _, tl := range s.Tools {
		if tl.Execution.GatewayExecuted() && len(tl.Args.Fields) > 0 {
			tool = tl
			break
		}
	}
	if tool == nil {
		t.Fatal("the default spec has no gateway tool with arguments")
	}
	tool.Deprecated = odd
	tool.Args.Doc = odd
	tool.Args.Fields[0].Type.Doc = odd
	files := emitGo(t, s)
	checkGofmt(t, "odd", files)
	for _, name := range []string{"tools.go", "dispatch.go", "modes.go"} {
		if !strings.Contains(string(goFile(t, files, name)), zwsp) {
			t.Errorf("%s holds no odd comment: the case tests nothing", name)
		}
	}
	// gofmt took the odd comments for doc comments and reformatted them:
	// "// \tcode" is a code block, "//\tcode".
	for _, name := range []string{"tools.go", "dispatch.go"} {
		if got := goFile(t, files, name); !strings.Contains(string(got), "\t//\tcode\n") {
			t.Errorf("%s: an odd field or method comment was not formatted as a doc comment:\n%s", name, got)
		}
	}
}
