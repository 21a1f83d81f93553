package breaking

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentc-dev/agentc/gen/model"
)

func ip(n int) *int { return &n }

func str(mods ...func(*model.Type)) *model.Type {
	t := &model.Type{Kind: model.String}
	for _, m := range mods {
		m(t)
	}
	return t
}

func obj(fs ...*model.Field) *model.Type { return &model.Type{Kind: model.Object, Fields: fs} }

func fld(name string, p model.Presence, t *model.Type) *model.Field {
	return &model.Field{Name: name, Presence: p, Type: t}
}

// spec builds a one-tool, one-mode spec around the given args and result.
func spec(args, result *model.Type, standing model.Standing) *model.Spec {
	t := &model.Tool{Name: "t", Execution: model.Gateway, Args: args, Result: result}
	m := &model.Mode{Name: "m", Standings: []model.ToolStanding{{Tool: t, Standing: standing}}}
	mod := &model.Model{Canonical: "c", OpenCode: "p/c", API: "c-1"}
	return &model.Spec{Tools: []*model.Tool{t}, Modes: []*model.Mode{m}, Models: []*model.Model{mod},
		Agents:    []*model.Agent{{Name: "a", Models: []*model.Model{mod}, Default: mod}},
		Selection: model.Selection{Default: m}, Callback: model.Callback{Path: "/x/{sessionId}/{toolName}"}}
}

func rules(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

func TestRules(t *testing.T) {
	base := func() *model.Type {
		return obj(fld("a", model.Required, str(func(t *model.Type) { t.MaxLength = ip(10) })))
	}
	res := func() *model.Type { return obj(fld("id", model.Required, str())) }
	cases := []struct {
		name     string
		old, new *model.Spec
		want     []string
		breaking bool
	}{
		{"same", spec(base(), res(), model.Available), spec(base(), res(), model.Available), nil, false},
		{"arg removed", spec(base(), res(), model.Available), spec(obj(), res(), model.Available), []string{"ARG_REMOVED"}, true},
		{"required arg added", spec(base(), res(), model.Available),
			spec(obj(append(base().Fields, fld("b", model.Required, str()))...), res(), model.Available), []string{"ARG_ADDED_REQUIRED"}, true},
		{"optional arg added", spec(base(), res(), model.Available),
			spec(obj(append(base().Fields, fld("b", model.Optional, str()))...), res(), model.Available), []string{"ARG_ADDED_OPTIONAL"}, false},
		{"limit tightened", spec(base(), res(), model.Available),
			spec(obj(fld("a", model.Required, str(func(t *model.Type) { t.MaxLength = ip(5) }))), res(), model.Available), []string{"ARG_LIMIT_TIGHTENED"}, true},
		{"limit loosened", spec(base(), res(), model.Available),
			spec(obj(fld("a", model.Required, str())), res(), model.Available), []string{"ARG_LIMIT_LOOSENED"}, false},
		{"now optional", spec(base(), res(), model.Available),
			spec(obj(fld("a", model.Optional, str(func(t *model.Type) { t.MaxLength = ip(10) }))), res(), model.Available), []string{"ARG_NOW_OPTIONAL"}, false},
		{"type changed", spec(base(), res(), model.Available),
			spec(obj(fld("a", model.Required, &model.Type{Kind: model.Integer})), res(), model.Available), []string{"ARG_TYPE_CHANGED"}, true},
		{"default changed",
			spec(obj(fld("a", model.Defaulted, str())), res(), model.Available),
			spec(obj(fld("a", model.Defaulted, str())), res(), model.Available), nil, false},
		{"result field removed", spec(base(), res(), model.Available), spec(base(), obj(), model.Available), []string{"RESULT_FIELD_REMOVED"}, true},
		{"result field added", spec(base(), obj(), model.Available), spec(base(), res(), model.Available), []string{"RESULT_FIELD_ADDED"}, false},
		{"tool dropped from mode", spec(base(), res(), model.Available), spec(base(), res(), model.Unavailable), []string{"MODE_TOOL_DROPPED"}, true},
		{"standing lowered", spec(base(), res(), model.Mandatory), spec(base(), res(), model.Available), []string{"MODE_STANDING_LOWERED"}, true},
		{"standing raised", spec(base(), res(), model.Available), spec(base(), res(), model.Emphasized), []string{"MODE_STANDING_RAISED"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Compare(c.old, c.new)
			if !slices.Equal(rules(got), c.want) {
				t.Errorf("rules = %v, want %v\n%v", rules(got), c.want, got)
			}
			if HasBreaking(got) != c.breaking {
				t.Errorf("breaking = %v, want %v", HasBreaking(got), c.breaking)
			}
		})
	}
}

func TestDefaultChanged(t *testing.T) {
	o := spec(obj(&model.Field{Name: "a", Presence: model.Defaulted, Default: json.RawMessage(`"."`), Type: str()}), nil, model.Available)
	n := spec(obj(&model.Field{Name: "a", Presence: model.Defaulted, Default: json.RawMessage(`"/"`), Type: str()}), nil, model.Available)
	if got := rules(Compare(o, n)); !slices.Equal(got, []string{"ARG_DEFAULT_CHANGED"}) {
		t.Errorf("rules = %v", got)
	}
}

func TestToolsModelsEnums(t *testing.T) {
	o := spec(obj(fld("e", model.Required, &model.Type{Kind: model.Enum, Enum: []string{"x", "y"}})), nil, model.Available)
	n := spec(obj(fld("e", model.Required, &model.Type{Kind: model.Enum, Enum: []string{"x", "z"}})), nil, model.Available)
	n.Tools[0].Execution = model.Sandbox
	n.Models[0].API = "c-2"
	n.Callback.Path = "/y/{sessionId}/{toolName}"
	got := rules(Compare(o, n))
	want := []string{"CALLBACK_PATH_CHANGED", "MODEL_ID_CHANGED", "ARG_ENUM_VALUE_ADDED", "ARG_ENUM_VALUE_REMOVED", "TOOL_EXECUTION_CHANGED"}
	if !slices.Equal(got, want) {
		t.Errorf("rules = %v, want %v", got, want)
	}
	o2 := spec(obj(), nil, model.Available)
	n2 := spec(obj(), nil, model.Available)
	n2.Tools = nil
	n2.Modes[0].Standings = nil
	n2.Models = nil
	n2.Agents[0].Models = nil
	got = rules(Compare(o2, n2))
	// The removed tool's absence from the mode is part of TOOL_REMOVED, not
	// a second finding.
	want = []string{"AGENT_MODEL_REMOVED", "MODEL_REMOVED", "TOOL_REMOVED"}
	if !slices.Equal(got, want) {
		t.Errorf("rules = %v, want %v", got, want)
	}
}

// One field removed and one of the same shape added is a rename, reported
// once; its types are still compared under the new name.
func TestRenames(t *testing.T) {
	res := func(name string) *model.Type {
		return obj(fld("n", model.Required, str()), fld(name, model.Required, str()))
	}
	fs := Compare(spec(obj(), res("prebuildId"), model.Available), spec(obj(), res("configurationId"), model.Available))
	if len(fs) != 1 || fs[0].Rule != "RESULT_FIELD_REMOVED" || fs[0].Message != "result field t.prebuildId was renamed to configurationId" {
		t.Errorf("result rename: %v", fs)
	}
	arg := func(name string, max int) *model.Type {
		return obj(fld(name, model.Required, str(func(t *model.Type) { t.MaxLength = ip(max) })))
	}
	fs = Compare(spec(arg("dir", 10), nil, model.Available), spec(arg("cwd", 5), nil, model.Available))
	if got := rules(fs); !slices.Equal(got, []string{"ARG_LIMIT_TIGHTENED", "ARG_REMOVED"}) || fs[1].Message != "argument t.dir was renamed to cwd" {
		t.Errorf("argument rename: %v", fs)
	}
	// Different shapes, or more than one candidate: a removal and an addition.
	num := obj(fld("cwd", model.Required, &model.Type{Kind: model.Integer}))
	if got := rules(Compare(spec(arg("dir", 10), nil, model.Available), spec(num, nil, model.Available))); !slices.Equal(got, []string{"ARG_ADDED_REQUIRED", "ARG_REMOVED"}) {
		t.Errorf("shape change: %v", got)
	}
	two := obj(fld("a", model.Optional, str()), fld("b", model.Optional, str()))
	if got := rules(Compare(spec(arg("dir", 10), nil, model.Available), spec(two, nil, model.Available))); !slices.Equal(got, []string{"ARG_ADDED_OPTIONAL", "ARG_ADDED_OPTIONAL", "ARG_REMOVED"}) {
		t.Errorf("two added: %v", got)
	}
}

// Every rule id is unique and documented.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] || r.Doc == "" || r.Category == "" {
			t.Errorf("rule %+v: duplicate or undocumented", r)
		}
		seen[r.ID] = true
	}
}

// TestMCP: the MCP transport's rules.
func TestMCP(t *testing.T) {
	args := obj(fld("a", model.Required, str()))
	with := func(dir, pkg, core, name string) *model.Spec {
		s := spec(args, nil, model.Available)
		s.Contract.Name = name
		if dir != "" {
			s.Codegen.MCP = &model.MCPCodegen{Dir: dir, Package: pkg, CoreImport: core}
		}
		return s
	}
	base := with("go/contractmcp", "contractmcp", "example.com/x/contract", "c")
	cases := []struct {
		name     string
		old, new *model.Spec
		want     []string
	}{
		{"same", base, with("go/contractmcp", "contractmcp", "example.com/x/contract", "c"), nil},
		{"added", with("", "", "", "c"), base, []string{"MCP_SERVER_ADDED"}},
		{"removed", base, with("", "", "", "c"), []string{"MCP_SERVER_REMOVED"}},
		{"moved", base, with("go/mcp", "contractmcp", "example.com/x/contract", "c"), []string{"MCP_PACKAGE_MOVED"}},
		{"core moved", base, with("go/contractmcp", "contractmcp", "example.com/y/contract", "c"), []string{"MCP_PACKAGE_MOVED"}},
		{"renamed", base, with("go/contractmcp", "contractmcp", "example.com/x/contract", "d"), []string{"MCP_SERVER_RENAMED"}},
		{"renamed without MCP", with("", "", "", "c"), with("", "", "", "d"), nil},
	}
	for _, c := range cases {
		fs := Compare(c.old, c.new)
		if got := rules(fs); !slices.Equal(got, c.want) {
			t.Errorf("%s: rules %v, want %v", c.name, got, c.want)
		}
		if want := len(c.want) > 0 && RuleByID(c.want[0]).Breaking; HasBreaking(fs) != want {
			t.Errorf("%s: breaking %v, want %v", c.name, HasBreaking(fs), want)
		}
	}
}
