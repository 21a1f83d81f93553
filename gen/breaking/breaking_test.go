package breaking

import (
	"encoding/json"
	"slices"
	"strings"
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

// report is Compare's findings of old against new, one "RULE: message" a
// line.
func report(old, new *model.Spec) string {
	var lines []string
	for _, f := range Compare(old, new) {
		lines = append(lines, f.Rule+": "+f.Message)
	}
	return strings.Join(lines, "\n")
}

func rule(id string) Rule {
	r, _ := LookupRule(id)
	return r
}

// hasBreaking reports whether any finding is breaking and not accepted.
func hasBreaking(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Breaking && !f.Accepted })
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
			checkKeys(t, got)
			if !slices.Equal(rules(got), c.want) {
				t.Errorf("rules = %v, want %v\n%v", rules(got), c.want, got)
			}
			if b := hasBreaking(got); b != c.breaking {
				t.Errorf("breaking = %v, want %v", b, c.breaking)
			}
		})
	}
}

func TestToolsModelsEnums(t *testing.T) {
	o := spec(obj(fld("e", model.Required, &model.Type{Kind: model.Enum, Enum: []string{"x", "y"}})), nil, model.Available)
	n := spec(obj(fld("e", model.Required, &model.Type{Kind: model.Enum, Enum: []string{"x", "z"}})), nil, model.Available)
	n.Tools[0].Execution = model.Sandbox
	n.Models[0].API = "c-2"
	n.Callback.Path = "/y/{sessionId}/{toolName}"
	all := Compare(o, n)
	checkKeys(t, all)
	got := rules(all)
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
		checkKeys(t, fs)
		if got := rules(fs); !slices.Equal(got, c.want) {
			t.Errorf("%s: rules %v, want %v", c.name, got, c.want)
		}
		if want := len(c.want) > 0 && rule(c.want[0]).Breaking; hasBreaking(fs) != want {
			t.Errorf("%s: breaking %v, want %v", c.name, hasBreaking(fs), want)
		}
	}
}

// withTool adds a gateway tool to s, standing in mode m as given.
func withTool(s *model.Spec, name string, aliases []string, args *model.Type, standing model.Standing) *model.Tool {
	t := &model.Tool{Name: name, Aliases: aliases, Execution: model.Gateway, Args: args}
	s.Tools = append(s.Tools, t)
	slices.SortFunc(s.Tools, func(a, b *model.Tool) int { return strings.Compare(a.Name, b.Name) })
	s.Modes[0].Standings = append(s.Modes[0].Standings, model.ToolStanding{Tool: t, Standing: standing})
	return t
}

// rename renames tool t of s to name, keeping its old name as an alias.
func rename(s *model.Spec, from, to string) {
	t := s.Tool(from)
	t.Name, t.Aliases = to, append([]string{from}, t.Aliases...)
}

// A tool renamed with its old name kept as an alias still answers calls by
// the old name: the generated LookupTool resolves it, Mode.Has gates the
// tool it resolves to, and its arguments decode as that tool's. So the
// rename alone is compatible — not a removed alias beside an added tool —
// and what else changed is compared against the tool it now names.
func TestRenameKeepsAlias(t *testing.T) {
	args := func() *model.Type { return obj(fld("a", model.Required, str())) }
	o, n := spec(args(), nil, model.Available), spec(args(), nil, model.Available)
	rename(n, "t", "u")
	fs := Compare(o, n)
	checkKeys(t, fs)
	if got := rules(fs); !slices.Equal(got, []string{"TOOL_RENAMED"}) || hasBreaking(fs) {
		t.Fatalf("rename: %v", fs)
	}
	if fs[0].Tool != "t" || fs[0].Message != `tool "t" was renamed to "u" and kept as its alias: calls by "t" still dispatch` {
		t.Errorf("rename: %+v", fs[0])
	}

	// The renamed tool's other changes are the old name's: a mode that no
	// longer injects it gates calls by the old name too.
	n = spec(obj(fld("a", model.Required, str()), fld("b", model.Required, str())), nil, model.Unavailable)
	rename(n, "t", "u")
	fs = Compare(o, n)
	checkKeys(t, fs)
	if got := rules(fs); !slices.Equal(got, []string{"MODE_TOOL_DROPPED", "ARG_ADDED_REQUIRED", "TOOL_RENAMED"}) {
		t.Errorf("rename with changes: %v", fs)
	}
	if fs[0].Mode != "m" || fs[0].Tool != "u" || fs[1].Tool != "t" || fs[1].Field != "b" {
		t.Errorf("rename with changes: subjects %+v", fs)
	}

	// Renamed without the alias: calls by the old name fail.
	n = spec(args(), nil, model.Available)
	n.Tools[0].Name = "u"
	if got := rules(Compare(o, n)); !slices.Equal(got, []string{"MODE_TOOL_ADDED", "TOOL_REMOVED", "TOOL_ADDED"}) {
		t.Errorf("rename without alias: %v", got)
	}

	// Merged into a tool that existed: both names dispatch to it.
	o = spec(args(), nil, model.Available)
	withTool(o, "v", nil, args(), model.Available)
	n = spec(args(), nil, model.Available)
	n.Tools, n.Modes[0].Standings = nil, nil
	withTool(n, "v", []string{"t"}, args(), model.Available)
	fs = Compare(o, n)
	if got := rules(fs); !slices.Equal(got, []string{"TOOL_RENAMED", "TOOL_ALIAS_ADDED"}) || fs[0].Message != `tool "t" was merged into tool "v": calls by "t", now its alias, dispatch to it` {
		t.Errorf("merge: %v", fs)
	}

	// An alias that now names another tool of its own: calls by it reach
	// that tool, which is new.
	o = spec(args(), nil, model.Available)
	o.Tools[0].Aliases = []string{"w"}
	n = spec(args(), nil, model.Available)
	withTool(n, "w", nil, args(), model.Available)
	fs = Compare(o, n)
	if got := rules(fs); !slices.Equal(got, []string{"MODE_TOOL_ADDED", "TOOL_ALIAS_REMOVED", "TOOL_ADDED"}) || fs[1].Message != `alias "w" of tool "t" now names tool "w"` {
		t.Errorf("alias taken by a new tool: %v", fs)
	}
}

// accept returns s with acceptances of rule for the subject.
func accept(s *model.Spec, as ...*model.Acceptance) *model.Spec {
	for i, a := range as {
		a.Pos = model.Pos{File: "b.cue", Line: i + 1, Col: 2}
		if a.Reason == "" {
			a.Reason = "on purpose"
		}
	}
	s.Breaking.Accept = as
	return s
}

func TestAccept(t *testing.T) {
	base := func() *model.Type {
		return obj(fld("a", model.Required, str()), fld("b", model.Required, str()))
	}
	old := spec(base(), nil, model.Available)
	// a and b removed, the tool dropped from mode m.
	fresh := func() *model.Spec { return spec(obj(), nil, model.Unavailable) }

	fs := Compare(old, accept(fresh(), &model.Acceptance{Rule: "ARG_REMOVED", Tool: "t", Field: "a"}))
	if got := rules(fs); !slices.Equal(got, []string{"MODE_TOOL_DROPPED", "ARG_REMOVED", "ARG_REMOVED"}) {
		t.Fatalf("rules %v", got)
	}
	if !fs[1].Accepted || fs[1].Field != "a" || fs[1].Reason != "on purpose" || fs[1].AcceptedAt.String() != "b.cue:1:2" {
		t.Errorf("ARG_REMOVED of a not accepted: %+v", fs[1])
	}
	if fs[0].Accepted || fs[2].Accepted || !hasBreaking(fs) {
		t.Errorf("only a's removal is accepted: %v", fs)
	}
	if !strings.HasSuffix(fs[1].String(), `accepted ARG_REMOVED [args]: argument t.a was removed; accepted at b.cue:1:2: on purpose`) {
		t.Errorf("String() = %q", fs[1].String())
	}

	// Every breaking change accepted: nothing fails.
	n := accept(fresh(),
		&model.Acceptance{Rule: "ARG_REMOVED", Tool: "t", Field: "a"},
		&model.Acceptance{Rule: "ARG_REMOVED", Tool: "t", Field: "b"},
		&model.Acceptance{Rule: "MODE_TOOL_DROPPED", Mode: "m", Tool: "t"})
	fs = Compare(old, n)
	if hasBreaking(fs) || len(Unused(n, fs)) != 0 {
		t.Errorf("all accepted: breaking %v, unused %v: %v", hasBreaking(fs), Unused(n, fs), fs)
	}

	// Another rule, tool, field or mode accepts nothing, and is unused.
	for _, a := range []*model.Acceptance{
		{Rule: "ARG_TYPE_CHANGED", Tool: "t", Field: "a"},
		{Rule: "ARG_REMOVED", Tool: "x", Field: "a"},
		{Rule: "ARG_REMOVED", Tool: "t", Field: "c"},
		{Rule: "MODE_TOOL_DROPPED", Mode: "other", Tool: "t"},
	} {
		n := accept(fresh(), a)
		fs := Compare(old, n)
		if slices.ContainsFunc(fs, func(f Finding) bool { return f.Accepted }) {
			t.Errorf("%s accepts %v", Describe(a), fs)
		}
		if u := Unused(n, fs); len(u) != 1 || u[0] != a {
			t.Errorf("%s: unused %v", Describe(a), u)
		}
	}

	// Describe names what an acceptance accepts, as messages quote it.
	for a, want := range map[*model.Acceptance]string{
		{Rule: "ARG_REMOVED", Tool: "t", Field: "a"}:          `ARG_REMOVED for tool "t", field "a"`,
		{Rule: "MODE_TOOL_DROPPED", Mode: "m", Tool: "t"}:     `MODE_TOOL_DROPPED for tool "t", mode "m"`,
		{Rule: "AGENT_MODEL_REMOVED", Agent: "a", Model: "c"}: `AGENT_MODEL_REMOVED for model "c", agent "a"`,
		{Rule: "SELECTION_CHANGED"}:                           "SELECTION_CHANGED",
	} {
		if got := Describe(a); got != want {
			t.Errorf("Describe(%+v) = %q, want %q", *a, got, want)
		}
	}

	// An acceptance whose change the baseline already has is unused.
	n = accept(fresh(), &model.Acceptance{Rule: "ARG_REMOVED", Tool: "t", Field: "a"})
	if u := Unused(n, Compare(fresh(), n)); len(u) != 1 {
		t.Errorf("stale acceptance: unused %v", u)
	}
}

func TestCheckAcceptance(t *testing.T) {
	cases := []struct {
		a       model.Acceptance
		key     Key
		message string
	}{
		{model.Acceptance{Rule: "ARG_REMOVED", Tool: "t", Field: "a"}, 0, ""},
		{model.Acceptance{Rule: "SELECTION_CHANGED"}, 0, ""},
		{model.Acceptance{Rule: "AGENT_MODEL_REMOVED", Agent: "a", Model: "m"}, 0, ""},
		{model.Acceptance{Rule: "NOPE"}, 0, `unknown breaking rule "NOPE"`},
		{model.Acceptance{Rule: "TOOL_RENAMED", Tool: "t"}, 0, "rule TOOL_RENAMED is compatible"},
		{model.Acceptance{Rule: "ARG_REMOVED", Tool: "t"}, KeyField, "an acceptance of ARG_REMOVED names its subject by tool and field: field is missing"},
		{model.Acceptance{Rule: "TOOL_REMOVED", Tool: "t", Mode: "m"}, KeyMode, "TOOL_REMOVED has no mode: an acceptance of it names its subject by tool"},
		{model.Acceptance{Rule: "CALLBACK_PATH_CHANGED", Tool: "t"}, KeyTool, "CALLBACK_PATH_CHANGED has no tool: a spec has one callback"},
	}
	for _, c := range cases {
		k, msg := CheckAcceptance(&c.a)
		if k != c.key || !strings.HasPrefix(msg, c.message) || (c.message == "") != (msg == "") {
			t.Errorf("%+v: (%v, %q), want (%v, %q…)", c.a, k, msg, c.key, c.message)
		}
	}
}

// checkKeys fails unless each finding names its subject by exactly its
// rule's keys, so that an acceptance can name any finding.
func checkKeys(t *testing.T, fs []Finding) {
	t.Helper()
	for _, f := range fs {
		r, _ := LookupRule(f.Rule)
		if has := f.About.Keys(); has != r.Keys {
			t.Errorf("%s names its subject by %s, want %s", f, has, r.Keys)
		}
	}
}

// TestNumericBounds: a numeric argument's bounds compare as numbers (10 is
// above 9, 1.0 is 1), an exclusive bound at the same value is the
// stricter, an integer's as the integers they admit (>0 is >=1), and an
// integer that may now be a fraction is a loosened limit.
func TestNumericBounds(t *testing.T) {
	num := func(kind model.Kind, min, max *model.Bound) *model.Spec {
		return spec(obj(fld("n", model.Required, &model.Type{Kind: kind, Minimum: min, Maximum: max})), nil, model.Available)
	}
	b := func(v string, exclusive bool) *model.Bound {
		return &model.Bound{Value: json.Number(v), Exclusive: exclusive}
	}
	cases := []struct {
		name     string
		old, new *model.Spec
		rules    []string
		message  string
	}{
		{"gained lower", num(model.Number, nil, nil), num(model.Number, b("1", false), nil),
			[]string{"ARG_LIMIT_TIGHTENED"}, "argument t.n gained lower bound >=1"},
		{"lost upper", num(model.Number, nil, b("5", true)), num(model.Number, nil, nil),
			[]string{"ARG_LIMIT_LOOSENED"}, "argument t.n lost upper bound <5"},
		{"upper lowered, compared as numbers", num(model.Integer, nil, b("10", false)), num(model.Integer, nil, b("9", false)),
			[]string{"ARG_LIMIT_TIGHTENED"}, "argument t.n's upper bound tightened from <=10 to <=9"},
		{"lower lowered, compared as numbers", num(model.Integer, b("10", false), nil), num(model.Integer, b("9", false), nil),
			[]string{"ARG_LIMIT_LOOSENED"}, "argument t.n's lower bound loosened from >=10 to >=9"},
		{"upper made exclusive", num(model.Number, nil, b("10", false)), num(model.Number, nil, b("10", true)),
			[]string{"ARG_LIMIT_TIGHTENED"}, "argument t.n's upper bound tightened from <=10 to <10"},
		{"lower made inclusive", num(model.Number, b("0", true), nil), num(model.Number, b("0", false), nil),
			[]string{"ARG_LIMIT_LOOSENED"}, "argument t.n's lower bound loosened from >0 to >=0"},
		{"same value written otherwise", num(model.Number, b("1", false), b("1e2", false)), num(model.Number, b("1.0", false), b("100", false)),
			nil, ""},
		{"integer's bound written otherwise", num(model.Integer, b("0", true), b("10", true)), num(model.Integer, b("1", false), b("9.5", false)),
			nil, ""},
		{"integer's bound tightened, written otherwise", num(model.Integer, b("0", true), b("2.5", false)), num(model.Integer, b("1.5", false), b("3", true)),
			[]string{"ARG_LIMIT_TIGHTENED"}, "argument t.n's lower bound tightened from >0 to >=1.5"},
		{"integer's bound loosened, written otherwise", num(model.Integer, nil, b("-1", true)), num(model.Integer, nil, b("-1.5", false)),
			nil, ""},
		{"number's bound is no integer's", num(model.Number, b("0", true), nil), num(model.Number, b("1", false), nil),
			[]string{"ARG_LIMIT_TIGHTENED"}, "argument t.n's lower bound tightened from >0 to >=1"},
		{"integer to number, same numbers above", num(model.Integer, b("0", true), nil), num(model.Number, b("1", false), nil),
			[]string{"ARG_LIMIT_LOOSENED"}, "argument t.n now accepts any number (was integer)"},
		{"integer to number", num(model.Integer, nil, nil), num(model.Number, nil, nil),
			[]string{"ARG_LIMIT_LOOSENED"}, "argument t.n now accepts any number (was integer)"},
		{"number to integer", num(model.Number, nil, nil), num(model.Integer, nil, nil),
			[]string{"ARG_TYPE_CHANGED"}, "argument t.n changed type from number to integer"},
	}
	for _, c := range cases {
		fs := Compare(c.old, c.new)
		checkKeys(t, fs)
		if got := rules(fs); !slices.Equal(got, c.rules) {
			t.Errorf("%s: rules %v, want %v: %v", c.name, got, c.rules, fs)
			continue
		}
		if len(fs) > 0 && fs[0].Message != c.message {
			t.Errorf("%s: message %q, want %q", c.name, fs[0].Message, c.message)
		}
	}
}

// TestEveryRule makes each rule's change, alone, to a one-tool spec and
// expects exactly that rule, with its message; a rule added to Rules
// without a case here fails the test.
func TestEveryRule(t *testing.T) {
	args := func() *model.Type { return obj(fld("a", model.Required, str())) }
	res := func() *model.Type { return obj(fld("id", model.Required, str())) }
	// base is the spec every case starts from, on both sides: tool t with
	// argument a and result field id, in mode m; model c; agent a.
	base := func() *model.Spec { return spec(args(), res(), model.Available) }
	// with returns base changed by each edit.
	with := func(edits ...func(*model.Spec)) *model.Spec {
		s := base()
		for _, e := range edits {
			e(s)
		}
		return s
	}
	arg := func(f *model.Field) func(*model.Spec) { return func(s *model.Spec) { s.Tools[0].Args = obj(f) } }
	argType := func(typ *model.Type) func(*model.Spec) { return arg(fld("a", model.Required, typ)) }
	defaulted := func(v string) *model.Field {
		return &model.Field{Name: "a", Presence: model.Defaulted, Default: json.RawMessage(v), Type: str()}
	}
	result := func(f *model.Field) func(*model.Spec) { return func(s *model.Spec) { s.Tools[0].Result = obj(f) } }
	otherMode := func(s *model.Spec) { s.Modes = append(s.Modes, &model.Mode{Name: "n"}) }
	otherModel := func(s *model.Spec) {
		s.Models = append(s.Models, &model.Model{Canonical: "d", OpenCode: "p/d", API: "d-1"})
	}
	agentUsesIt := func(s *model.Spec) { s.Agents[0].Models = s.Models }
	mcp := func(dir string) func(*model.Spec) {
		return func(s *model.Spec) {
			s.Codegen.MCP = &model.MCPCodegen{Dir: dir, Package: "contractmcp", CoreImport: "example.com/x/contract"}
		}
	}
	enum := func(vs ...string) *model.Type { return &model.Type{Kind: model.Enum, Enum: vs} }
	cases := []struct {
		rule     string
		old, new *model.Spec
		message  string
	}{
		{"TOOL_REMOVED", base(), with(func(s *model.Spec) { s.Tools, s.Modes[0].Standings = nil, nil }), `tool "t" was removed`},
		{"TOOL_ADDED", base(), with(func(s *model.Spec) { withTool(s, "u", nil, args(), model.Unavailable) }), `tool "u" was added`},
		{"TOOL_ALIAS_REMOVED", with(func(s *model.Spec) { s.Tools[0].Aliases = []string{"x"} }), base(), `alias "x" of tool "t" was removed`},
		{"TOOL_ALIAS_ADDED", base(), with(func(s *model.Spec) { s.Tools[0].Aliases = []string{"x"} }), `tool "t" gained alias "x"`},
		{"TOOL_RENAMED", base(), with(func(s *model.Spec) { rename(s, "t", "u") }), `tool "t" was renamed to "u" and kept as its alias: calls by "t" still dispatch`},
		{"TOOL_EXECUTION_CHANGED", base(), with(func(s *model.Spec) { s.Tools[0].Execution = model.Sandbox }),
			`tool "t" now executes "sandbox": it runs in the sandbox (was "gateway": its sandbox stub calls the gateway back)`},
		{"TOOL_DEPRECATED", base(), with(func(s *model.Spec) { s.Tools[0].Deprecated = "use u" }), `tool "t" is deprecated: use u`},
		{"ARG_REMOVED", base(), with(func(s *model.Spec) { s.Tools[0].Args = obj() }), "argument t.a was removed"},
		{"ARG_ADDED_OPTIONAL", base(), with(func(s *model.Spec) {
			s.Tools[0].Args.Fields = append(s.Tools[0].Args.Fields, fld("b", model.Optional, str()))
		}),
			"optional argument t.b was added"},
		{"ARG_ADDED_REQUIRED", base(), with(func(s *model.Spec) {
			s.Tools[0].Args.Fields = append(s.Tools[0].Args.Fields, fld("b", model.Required, str()))
		}),
			"required argument t.b was added"},
		{"ARG_NOW_REQUIRED", with(arg(fld("a", model.Optional, str()))), base(), "argument t.a is now required (was optional)"},
		{"ARG_NOW_REQUIRED", with(arg(defaulted(`"x"`))), base(), "argument t.a is now required (was defaulted)"},
		{"ARG_NOW_OPTIONAL", base(), with(arg(defaulted(`"x"`))), "argument t.a is now defaulted (was required)"},
		{"ARG_DEFAULT_CHANGED", with(arg(defaulted(`"."`))), with(arg(defaulted(`"/"`))), `argument t.a's default changed from "." to "/"`},
		{"ARG_DEFAULT_CHANGED", with(arg(fld("a", model.Optional, str()))), with(arg(defaulted(`"."`))), `argument t.a now defaults to "." when omitted`},
		{"ARG_DEFAULT_CHANGED", with(arg(defaulted(`"."`))), with(arg(fld("a", model.Optional, str()))), `argument t.a no longer defaults to "."`},
		{"ARG_TYPE_CHANGED", base(), with(argType(&model.Type{Kind: model.Array, Items: str()})), "argument t.a changed type from string to list of string"},
		{"ARG_TYPE_CHANGED", with(argType(enum("x"))), with(argType(&model.Type{Kind: model.Integer})), "argument t.a changed type from enum to integer"},
		{"ARG_LIMIT_TIGHTENED", with(argType(&model.Type{Kind: model.Array, Items: str()})), with(argType(&model.Type{Kind: model.Array, Items: str(), MinItems: ip(1)})),
			"argument t.a's item count limits tightened from [none, none] to [1, none]"},
		{"ARG_LIMIT_LOOSENED", with(argType(str(func(t *model.Type) { t.MinLength = ip(2) }))), base(), "argument t.a's length limits loosened from [2, none] to [none, none]"},
		{"ARG_ENUM_VALUE_REMOVED", with(argType(enum("x", "y"))), with(argType(enum("x"))), `argument t.a no longer accepts "y"`},
		{"ARG_ENUM_VALUE_ADDED", with(argType(enum("x"))), with(argType(enum("x", "y"))), `argument t.a now accepts "y"`},
		{"ARG_PATTERN_CHANGED", base(), with(argType(str(func(t *model.Type) { t.Patterns = []model.Pattern{{Regexp: "^a"}} }))),
			"argument t.a gained pattern =~^a"},
		{"ARG_PATTERN_REMOVED", with(argType(str(func(t *model.Type) {
			t.Checks = []*model.Check{{Name: "Rel", Match: []model.Pattern{{Regexp: "^[a-z]"}}}}
		}))), base(), `argument t.a lost pattern =~^[a-z]`},
		{"RESULT_FIELD_REMOVED", base(), with(func(s *model.Spec) { s.Tools[0].Result = obj() }), "result field t.id was removed"},
		{"RESULT_FIELD_ADDED", with(func(s *model.Spec) { s.Tools[0].Result = obj() }), base(), "result field t.id was added"},
		{"RESULT_FIELD_NOW_OPTIONAL", base(), with(result(fld("id", model.Optional, str()))), "result field t.id may now be absent"},
		{"RESULT_TYPE_CHANGED", with(result(fld("id", model.Required, &model.Type{Kind: model.Integer}))), with(result(fld("id", model.Required, &model.Type{Kind: model.Number}))),
			"result field t.id changed type from integer to number"},
		{"RESULT_TYPE_CHANGED", with(result(fld("id", model.Required, enum("x")))), with(result(fld("id", model.Required, enum("x", "y")))),
			`result field t.id may now be "y" (values were "x", now "x" | "y")`},
		{"RESULT_REMOVED", base(), with(func(s *model.Spec) { s.Tools[0].Result = nil }), `tool "t" no longer declares result data`},
		{"MODE_REMOVED", with(otherMode), base(), `mode "n" was removed`},
		{"MODE_ADDED", base(), with(otherMode), `mode "n" was added`},
		{"MODE_TOOL_DROPPED", base(), spec(args(), res(), model.Unavailable), `mode "m" no longer injects tool "t" (was available)`},
		{"MODE_TOOL_ADDED", spec(args(), res(), model.Unavailable), base(), `mode "m" now injects tool "t" (available)`},
		{"MODE_STANDING_LOWERED", spec(args(), res(), model.Mandatory), base(), `tool "t"'s standing in mode "m" lowered from mandatory to available`},
		{"MODE_STANDING_RAISED", base(), spec(args(), res(), model.Mandatory), `tool "t"'s standing in mode "m" raised from available to mandatory`},
		{"MODE_EXTENDS_CHANGED", with(otherMode), with(otherMode, func(s *model.Spec) { s.Modes[0].Extends = s.Modes[1] }), `mode "m" now extends "n" (was "")`},
		{"SELECTION_CHANGED", base(), with(func(s *model.Spec) {
			s.Selection.Rules = []*model.Rule{{When: []model.Condition{{Input: &model.SelectionInput{Name: "client"}, Value: "web"}}, Mode: s.Modes[0]}}
		}), `mode selection changed from "default→m" to "client=web→m; default→m"`},
		{"MODEL_REMOVED", with(otherModel), base(), `model "d" was removed`},
		{"MODEL_ADDED", base(), with(otherModel), `model "d" was added`},
		{"MODEL_ID_CHANGED", base(), with(func(s *model.Spec) { s.Models[0].OpenCode = "q/c" }), `model "c"'s OpenCode ID changed from "p/c" to "q/c"`},
		{"AGENT_REMOVED", base(), with(func(s *model.Spec) { s.Agents = nil }), `agent "a" was removed`},
		{"AGENT_MODEL_REMOVED", with(otherModel, agentUsesIt), with(otherModel), `agent "a" no longer supports model "d"`},
		{"AGENT_DEFAULT_MODEL_CHANGED", with(otherModel, agentUsesIt), with(otherModel, agentUsesIt, func(s *model.Spec) { s.Agents[0].Default = s.Models[1] }),
			`agent "a"'s default model changed from "c" to "d"`},
		{"CALLBACK_PATH_CHANGED", base(), with(func(s *model.Spec) { s.Callback.Path = "/y/{sessionId}/{toolName}" }),
			`callback route changed from "/x/{sessionId}/{toolName}" to "/y/{sessionId}/{toolName}"`},
		{"MCP_SERVER_REMOVED", with(mcp("go/mcp")), base(), "the MCP server package go/mcp is no longer generated"},
		{"MCP_SERVER_ADDED", base(), with(mcp("go/mcp")), "the gateway tools are now also served over MCP by package contractmcp (go/mcp)"},
		{"MCP_PACKAGE_MOVED", with(mcp("go/mcp")), with(mcp("go/m")), "the MCP server package moved from contractmcp (go/mcp) to contractmcp (go/m)"},
		{"MCP_SERVER_RENAMED", with(mcp("go/mcp")), with(mcp("go/mcp"), func(s *model.Spec) { s.Contract.Name = "d" }),
			`the MCP server is now "d", not "": its tools reach the model as d_<tool>`},
	}
	tested := map[string]bool{}
	for _, c := range cases {
		tested[c.rule] = true
		fs := Compare(c.old, c.new)
		checkKeys(t, fs)
		if len(fs) != 1 || fs[0].Rule != c.rule || fs[0].Message != c.message {
			t.Errorf("%s: got %v, want only %s: %s", c.rule, fs, c.rule, c.message)
			continue
		}
		if r := rule(c.rule); fs[0].Breaking != r.Breaking || fs[0].Category != r.Category {
			t.Errorf("%s: breaking %v, category %s; the rule says %v, %s", c.rule, fs[0].Breaking, fs[0].Category, r.Breaking, r.Category)
		}
	}
	for _, r := range Rules {
		if !tested[r.ID] {
			t.Errorf("rule %s has no case", r.ID)
		}
	}
}

// TestKinds: an argument may widen to a kind that admits every value it
// did (an enum to a string, an integer to a number), a result may narrow;
// the other way is a changed type.
func TestKinds(t *testing.T) {
	enum := &model.Type{Kind: model.Enum, Enum: []string{"x", "y"}}
	lit := &model.Type{Kind: model.Literal, Literal: "x"}
	limited := str(func(t *model.Type) { t.MaxLength = ip(1) })
	num, integer := &model.Type{Kind: model.Number}, &model.Type{Kind: model.Integer}
	arg := func(t *model.Type) *model.Spec { return spec(obj(fld("a", model.Required, t)), nil, model.Available) }
	res := func(t *model.Type) *model.Spec { return spec(obj(), obj(fld("a", model.Required, t)), model.Available) }
	cases := []struct {
		name     string
		old, new *model.Spec
		want     string
	}{
		{"argument enum to string", arg(enum), arg(str()), "ARG_LIMIT_LOOSENED: argument t.a now accepts any string (was enum)"},
		{"argument literal to string", arg(lit), arg(str()), "ARG_LIMIT_LOOSENED: argument t.a now accepts any string (was literal)"},
		{"argument enum to a string with limits", arg(enum), arg(limited),
			"ARG_LIMIT_LOOSENED: argument t.a now accepts any string (was enum)\nARG_LIMIT_TIGHTENED: argument t.a's length limits tightened from [none, none] to [none, 1]"},
		{"argument string to enum", arg(str()), arg(enum), "ARG_TYPE_CHANGED: argument t.a changed type from string to enum"},
		{"argument list of enum to list of string", arg(&model.Type{Kind: model.Array, Items: enum}), arg(&model.Type{Kind: model.Array, Items: str()}),
			"ARG_LIMIT_LOOSENED: argument t.a[] now accepts any string (was enum)"},
		{"result string to enum", res(str()), res(enum), ""},
		{"result number to integer", res(num), res(integer), ""},
		{"result enum to string", res(enum), res(str()), "RESULT_TYPE_CHANGED: result field t.a changed type from enum to string"},
		{"result integer to number", res(integer), res(num), "RESULT_TYPE_CHANGED: result field t.a changed type from integer to number"},
	}
	for _, c := range cases {
		if got := report(c.old, c.new); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPatterns: patterns compare as the set a value must match and must
// not match, whoever holds them.
func TestPatterns(t *testing.T) {
	check := func(name string, reject ...string) *model.Check {
		c := &model.Check{Name: name}
		for _, r := range reject {
			c.Reject = append(c.Reject, model.Pattern{Regexp: r})
		}
		return c
	}
	arg := func(patterns []string, checks ...*model.Check) *model.Spec {
		return spec(obj(fld("a", model.Required, str(func(t *model.Type) {
			for _, p := range patterns {
				t.Patterns = append(t.Patterns, model.Pattern{Regexp: p})
			}
			t.Checks = checks
		}))), nil, model.Available)
	}
	cases := []struct {
		name     string
		old, new *model.Spec
		want     string
	}{
		{"check renamed", arg(nil, check("Rel", "^/", "^$")), arg(nil, check("RelPath", "^/", "^$")), ""},
		{"patterns reordered", arg(nil, check("Rel", "^/", "^$")), arg(nil, check("Rel", "^$", "^/")), ""},
		{"check split in two", arg(nil, check("Rel", "^/", "^$")), arg(nil, check("A", "^/"), check("B", "^$")), ""},
		{"check gained a pattern", arg(nil, check("Rel", "^/")), arg(nil, check("Rel", "^/", "^$")), "ARG_PATTERN_CHANGED: argument t.a gained pattern !~^$"},
		{"check lost a pattern", arg(nil, check("Rel", "^/", "^$")), arg(nil, check("Rel", "^/")), "ARG_PATTERN_REMOVED: argument t.a lost pattern !~^$"},
		{"pattern gained", arg(nil), arg([]string{"^a"}), "ARG_PATTERN_CHANGED: argument t.a gained pattern =~^a"},
	}
	for _, c := range cases {
		if got := report(c.old, c.new); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
