package load_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// TestBreakingAccept: the section breaking becomes model.Breaking, in
// declaration order, each acceptance with its subject, its reason (trimmed)
// and its position; a spec without the section has none.
func TestBreakingAccept(t *testing.T) {
	files := baseFiles(t)
	s, err := load.Load(load.Bytes(displayDir, files))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Breaking.Accept) != 0 {
		t.Errorf("base spec accepts %v, want nothing", s.Breaking.Accept)
	}
	files["breaking.cue"] = []byte(`package agentc

breaking: accept: [
	{rule: "ARG_REMOVED", tool: "save_files", field: "files[].dir", reason: " renamed to cwd\n"},
	{rule: "AGENT_MODEL_REMOVED", agent: "opencode", model: "model-b", reason: "retired"},
	{rule: "CALLBACK_PATH_CHANGED", reason: "one gateway left"},
]
`)
	s, err = load.Load(load.Bytes(displayDir, files))
	if err != nil {
		t.Fatal(err)
	}
	want := []*model.Acceptance{
		{Rule: "ARG_REMOVED", Tool: "save_files", Field: "files[].dir", Reason: "renamed to cwd", Pos: model.Pos{File: "spec/breaking.cue", Line: 4, Col: 2}},
		{Rule: "AGENT_MODEL_REMOVED", Agent: "opencode", Model: "model-b", Reason: "retired", Pos: model.Pos{File: "spec/breaking.cue", Line: 5, Col: 2}},
		{Rule: "CALLBACK_PATH_CHANGED", Reason: "one gateway left", Pos: model.Pos{File: "spec/breaking.cue", Line: 6, Col: 2}},
	}
	if d := cmp.Diff(want, s.Breaking.Accept); d != "" {
		t.Errorf("accept differs (-want +got):\n%s", d)
	}
}
