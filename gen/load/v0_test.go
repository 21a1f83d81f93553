package load_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// v0Dir is the first version of the contract (seed 000), a second complete
// spec kept for tests.
var v0Dir = filepath.Join("..", "..", "spec", "testdata", "v0")

func loadV0(t *testing.T) *model.Spec {
	t.Helper()
	src, err := load.Dir(v0Dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := load.Load(src)
	if err != nil {
		t.Fatalf("spec/testdata/v0 does not load:\n%v", err)
	}
	return s
}

// TestV0 checks the first contract version against seed 000: six tools,
// every tool injected in every mode with the seed's mode table, five tools
// intercepted by the gateway and request_env_variables run in the sandbox,
// and verify's default folder.
func TestV0(t *testing.T) {
	t.Parallel()
	s := loadV0(t)
	if s.Contract.Revision != "000" {
		t.Errorf("revision = %q, want 000", s.Contract.Revision)
	}
	var toolNames []string
	for _, tool := range s.Tools {
		toolNames = append(toolNames, tool.Name)
	}
	wantTools := []string{"automation.complete", "request_env_variables", "save_env_files", "save_service_commands", "save_snapshot", "verify"}
	if diff := cmp.Diff(wantTools, toolNames); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}

	for _, tool := range s.Tools {
		want := model.Intercepted
		if tool.Name == "request_env_variables" {
			want = model.Sandbox
		}
		if tool.Execution != want {
			t.Errorf("tool %s runs %q, want %q", tool.Name, tool.Execution, want)
		}
		if tool.Deprecated != "" {
			t.Errorf("tool %s is deprecated in v0: %q", tool.Name, tool.Deprecated)
		}
	}
	if got := s.Tool("automation.complete").Aliases; !slices.Equal(got, []string{"automation_complete"}) {
		t.Errorf("automation.complete aliases = %q, want [automation_complete]", got)
	}
	if s.Tool("automation_complete") != s.Tool("automation.complete") {
		t.Errorf("the alias automation_complete does not resolve to automation.complete")
	}

	// Seed 000 §6.1's mode table; every tool is injected in every mode.
	table := map[string]map[string]model.Standing{
		"setup": {
			"verify": model.Require, "save_snapshot": model.Require, "request_env_variables": model.Emphasized,
			"save_service_commands": model.Emphasized, "save_env_files": model.Emphasized, "automation.complete": model.Unmentioned,
		},
		"coding": {
			"verify": model.Encouraged, "save_snapshot": model.Available, "request_env_variables": model.Available,
			"save_service_commands": model.Available, "save_env_files": model.Available, "automation.complete": model.Unmentioned,
		},
		"automation": {
			"verify": model.Available, "save_snapshot": model.Available, "request_env_variables": model.Available,
			"save_service_commands": model.Available, "save_env_files": model.Available, "automation.complete": model.Mandatory,
		},
	}
	if len(s.Modes) != len(table) {
		t.Errorf("v0 has %d modes, want %d", len(s.Modes), len(table))
	}
	for name, want := range table {
		m := s.Mode(name)
		if m == nil {
			t.Errorf("mode %s missing", name)
			continue
		}
		got := map[string]model.Standing{}
		n := 0
		for _, ts := range m.Standings {
			got[ts.Tool.Name] = ts.Standing
			if ts.Standing.Injected() {
				n++
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("mode %s standings (-want +got):\n%s", name, diff)
		}
		if n != 6 {
			t.Errorf("mode %s injects %d tools, want all 6", name, n)
		}
	}
	if a := s.Mode("automation"); a == nil || a.Extends == nil || a.Extends.Name != "coding" {
		t.Errorf("automation does not extend coding")
	}

	verify := s.Tool("verify")
	if len(verify.Args.Fields) != 1 {
		t.Fatalf("verify has %d arguments, want 1", len(verify.Args.Fields))
	}
	folder := verify.Args.Fields[0]
	if folder.Name != "folder" || folder.Presence != model.Defaulted || folder.Type.Kind != model.String ||
		string(folder.Default) != `".proliferate/.verification/"` {
		t.Errorf("verify.folder = %s %s %s default %s, want a string defaulting to \".proliferate/.verification/\"",
			folder.Name, folder.Presence, folder.Type.Kind, folder.Default)
	}
	if verify.Result == nil || len(verify.Result.Fields) != 1 || verify.Result.Fields[0].Name != "s3KeyPrefix" {
		t.Errorf("verify's result should carry the S3 key prefix")
	}

	// Seed 000 says prebuild where seed 001 says configuration.
	for _, name := range []string{"save_service_commands", "save_env_files"} {
		r := s.Tool(name).Result
		if r == nil || r.Fields[0].Name != "prebuildId" {
			t.Errorf("%s's result should start with prebuildId", name)
		}
	}
	if got := s.Tool("save_snapshot").Result.Fields[1].Type.Enum; !slices.Equal(got, []string{"prebuild", "session"}) {
		t.Errorf("save_snapshot target = %q, want [prebuild session]", got)
	}
}

// TestV0DiffersOnlyWhereSeedsDiffer compares v0 with the default spec: what
// did not change between seed 000 and seed 001 must be identical, so that
// `agentc breaking` between the two reports only their real differences.
func TestV0DiffersOnlyWhereSeedsDiffer(t *testing.T) {
	t.Parallel()
	v0 := loadV0(t)
	cur, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}

	// Selection, agents, models, prompt parameters and OpenCode settings did
	// not change.
	if diff := cmp.Diff(selectionOf(cur), selectionOf(v0)); diff != "" {
		t.Errorf("selection differs (-current +v0):\n%s", diff)
	}
	if diff := cmp.Diff(agentsOf(cur), agentsOf(v0)); diff != "" {
		t.Errorf("agents differ (-current +v0):\n%s", diff)
	}
	if diff := cmp.Diff(modelsOf(cur), modelsOf(v0)); diff != "" {
		t.Errorf("models differ (-current +v0):\n%s", diff)
	}
	if diff := cmp.Diff(paramsOf(cur), paramsOf(v0)); diff != "" {
		t.Errorf("prompt parameters differ (-current +v0):\n%s", diff)
	}
	cfg := func(s *model.Spec) any {
		var x any
		if err := json.Unmarshal(s.OpenCode.Config, &x); err != nil {
			t.Fatal(err)
		}
		return []any{s.OpenCode.ToolDir, s.OpenCode.ConfigPaths, s.OpenCode.PluginPackage, s.OpenCode.PluginVersion, x}
	}
	if diff := cmp.Diff(cfg(cur), cfg(v0)); diff != "" {
		t.Errorf("opencode settings differ (-current +v0):\n%s", diff)
	}
	// The MCP package (codegen.mcp) is agentc's, not the seeds': the
	// current spec opts in, v0 does not.
	curCodegen, v0Codegen := cur.Codegen, v0.Codegen
	curCodegen.MCP = nil
	curCodegen.GoImportPos, v0Codegen.GoImportPos = model.Pos{}, model.Pos{} // where, not what
	if diff := cmp.Diff(curCodegen, v0Codegen); diff != "" {
		t.Errorf("codegen differs (-current +v0):\n%s", diff)
	}

	// verify is the only tool seed 001 dropped; none was added.
	for _, tool := range v0.Tools {
		if cur.Tool(tool.Name) == nil && tool.Name != "verify" {
			t.Errorf("tool %s is in v0 but not in the current spec", tool.Name)
		}
	}
	if len(cur.Tools) != len(v0.Tools)-1 {
		t.Errorf("current spec has %d tools, v0 %d: only verify should differ", len(cur.Tools), len(v0.Tools))
	}

	// Arguments did not change for any tool both versions have: same
	// schema, same field docs.
	for _, c := range cur.Tools {
		o := v0.Tool(c.Name)
		if o == nil {
			continue
		}
		if c.Fingerprint != o.Fingerprint {
			t.Errorf("tool %s's argument schema differs between v0 and the current spec", c.Name)
		}
		if diff := cmp.Diff(fieldDocs(c.Args), fieldDocs(o.Args)); diff != "" {
			t.Errorf("tool %s's argument docs differ (-current +v0):\n%s", c.Name, diff)
		}
		if !slices.Equal(c.Aliases, o.Aliases) || c.Summary != o.Summary {
			t.Errorf("tool %s's aliases or summary differ", c.Name)
		}
	}
	// Descriptions changed only where the seeds' vocabulary (prebuild →
	// configuration), delivery (interception → callbacks with retries) or
	// mode scoping changed.
	changed := map[string]bool{"save_snapshot": true, "save_service_commands": true, "save_env_files": true}
	for _, c := range cur.Tools {
		if o := v0.Tool(c.Name); o != nil && (c.Description != o.Description) != changed[c.Name] {
			t.Errorf("tool %s: description changed = %v, want %v", c.Name, c.Description != o.Description, changed[c.Name])
		}
	}
	// request_env_variables runs in the sandbox in both versions, and
	// automation.complete's result did not change.
	if cur.Tool("request_env_variables").Execution != v0.Tool("request_env_variables").Execution {
		t.Errorf("request_env_variables changed execution")
	}
	if diff := cmp.Diff(fieldDocs(cur.Tool("automation.complete").Result), fieldDocs(v0.Tool("automation.complete").Result)); diff != "" {
		t.Errorf("automation.complete's result differs (-current +v0):\n%s", diff)
	}
	// The automation mode's critical instructions address a limitation both
	// seeds list (custom prompts bypass mode instructions).
	if cur.Mode("automation").Critical != v0.Mode("automation").Critical {
		t.Errorf("automation's critical instructions differ")
	}
}

func selectionOf(s *model.Spec) any {
	type rule struct {
		When map[string]string
		Mode string
	}
	var rules []rule
	for _, r := range s.Selection.Rules {
		w := map[string]string{}
		for _, c := range r.When {
			w[c.Input.Name] = c.Value
		}
		rules = append(rules, rule{w, r.Mode.Name})
	}
	inputs := map[string]string{}
	for _, in := range s.Selection.Inputs {
		inputs[in.Name] = in.Doc
	}
	return []any{inputs, rules, s.Selection.Default.Name}
}

func agentsOf(s *model.Spec) map[string][]string {
	out := map[string][]string{}
	for _, a := range s.Agents {
		ids := []string{a.Default.Canonical}
		for _, m := range a.Models {
			ids = append(ids, m.Canonical)
		}
		out[a.Name] = ids
	}
	return out
}

func modelsOf(s *model.Spec) map[string][3]string {
	out := map[string][3]string{}
	for _, m := range s.Models {
		out[m.Canonical] = [3]string{m.Display, m.OpenCode, m.API}
	}
	return out
}

func paramsOf(s *model.Spec) map[string]string {
	out := map[string]string{}
	for _, p := range s.PromptParams {
		out[p.Name] = p.Doc
	}
	return out
}

// fieldDocs maps every field path of an object type to its kind and doc.
func fieldDocs(t *model.Type) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, t *model.Type)
	walk = func(prefix string, t *model.Type) {
		if t == nil {
			return
		}
		if t.Items != nil {
			walk(prefix+"[]", t.Items)
		}
		for _, f := range t.Fields {
			out[prefix+"."+f.Name] = string(f.Type.Kind) + " " + string(f.Presence) + ": " + f.Type.Doc
			walk(prefix+"."+f.Name, f.Type)
		}
	}
	walk("", t)
	return out
}
