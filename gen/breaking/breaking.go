// Package breaking compares two versions of an agent contract and reports
// every change, each under a rule with an id and a category, judged in the
// direction that matters for each side of the wire:
//
//   - Arguments flow from the model (through a sandbox stub that may be
//     older than the gateway) to the gateway, which validates them again. A
//     change is breaking when a call the old contract accepted may now be
//     rejected or mean something else: a removed or renamed argument, a new
//     required one, a tightened limit, a removed enum value, a changed
//     default, a changed type.
//   - Result data flows from the gateway to its consumers: a removed field,
//     a changed type, or a field that may now be absent is breaking; a new
//     field is not.
//   - Tools, modes and models: removing one, dropping a tool from a mode,
//     lowering its standing, changing how it executes, or changing a
//     model's ID forms breaks whoever relied on them. Renaming a tool while
//     keeping its old name as an alias breaks nobody: the gateway resolves
//     aliases before it gates by mode and dispatches.
//
// The new spec may accept breaking changes it makes on purpose (its
// section breaking, model.Breaking): each acceptance names one rule and
// the subject of the findings it accepts. An accepted finding is still
// reported, marked accepted, and does not count as breaking.
package breaking

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"

	"github.com/agentc-dev/agentc/gen/model"
)

// Category groups rules.
type Category string

// The categories.
const (
	Tool   Category = "tool"
	Args   Category = "args"
	Result Category = "result"
	Mode   Category = "mode"
	Models Category = "model"
	Wire   Category = "wire"
)

// Key is a part of a finding's subject. An acceptance names its subject
// by exactly the keys its rule takes.
type Key uint8

// The keys.
const (
	// KeyTool is a tool's name.
	KeyTool Key = 1 << iota
	// KeyField is an argument's or result field's path below its tool, as
	// messages print it after the tool's name: "commands[].name".
	KeyField
	// KeyMode is a mode's name.
	KeyMode
	// KeyModel is a model's canonical ID.
	KeyModel
	// KeyAgent is an agent's name.
	KeyAgent
)

// keyNames are the keys' names in the spec's section breaking, in the
// order of their bits, which is the order an acceptance's keys are
// described in.
var keyNames = []string{"tool", "field", "mode", "model", "agent"}

// String names the keys of k: "tool", or "tool and field".
func (k Key) String() string {
	var names []string
	for i, name := range keyNames {
		if k&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, " and ")
}

// Rule is a kind of change.
type Rule struct {
	ID       string
	Category Category
	// Breaking is false for changes that are reported but compatible.
	Breaking bool
	// Keys are the keys that name a finding's subject (none for a subject
	// a spec has only one of: the selection, the callback, the MCP server).
	Keys Key
	Doc  string
}

// Rules lists every rule, by id.
var Rules = []Rule{
	{"TOOL_REMOVED", Tool, true, KeyTool, "a tool was removed"},
	{"TOOL_ADDED", Tool, false, KeyTool, "a tool was added"},
	{"TOOL_ALIAS_REMOVED", Tool, true, KeyTool, "a name the gateway accepted for a tool was removed"},
	{"TOOL_ALIAS_ADDED", Tool, false, KeyTool, "a tool gained an alias"},
	{"TOOL_RENAMED", Tool, false, KeyTool, "a tool was renamed (or merged into another) and its old name kept as an alias: calls by the old name still dispatch"},
	{"TOOL_EXECUTION_CHANGED", Tool, true, KeyTool, "a tool now executes elsewhere (gateway, sandbox, intercepted)"},
	{"TOOL_DEPRECATED", Tool, false, KeyTool, "a tool was marked deprecated"},
	{"ARG_REMOVED", Args, true, KeyTool | KeyField, "an argument was removed or renamed: callers still send it and it is now dropped"},
	{"ARG_ADDED_OPTIONAL", Args, false, KeyTool | KeyField, "an optional or defaulted argument was added"},
	{"ARG_ADDED_REQUIRED", Args, true, KeyTool | KeyField, "a required argument was added: earlier callers do not send it"},
	{"ARG_NOW_REQUIRED", Args, true, KeyTool | KeyField, "an optional or defaulted argument became required"},
	{"ARG_NOW_OPTIONAL", Args, false, KeyTool | KeyField, "a required argument became optional or defaulted"},
	{"ARG_DEFAULT_CHANGED", Args, true, KeyTool | KeyField, "an argument's default changed: calls that omit it now mean something else"},
	{"ARG_TYPE_CHANGED", Args, true, KeyTool | KeyField, "an argument's type changed"},
	{"ARG_LIMIT_TIGHTENED", Args, true, KeyTool | KeyField, "a length, count or numeric limit became stricter"},
	{"ARG_LIMIT_LOOSENED", Args, false, KeyTool | KeyField, "a length, count or numeric limit became looser, or an enum a string, or an integer a number"},
	{"ARG_ENUM_VALUE_REMOVED", Args, true, KeyTool | KeyField, "an enum value was removed"},
	{"ARG_ENUM_VALUE_ADDED", Args, false, KeyTool | KeyField, "an enum value was added"},
	{"ARG_PATTERN_CHANGED", Args, true, KeyTool | KeyField, "a value must now match, or not match, a pattern it need not before (the field's own, or a named check's)"},
	{"ARG_PATTERN_REMOVED", Args, false, KeyTool | KeyField, "a pattern was removed (the field's own, or a named check's)"},
	{"RESULT_FIELD_REMOVED", Result, true, KeyTool | KeyField, "a result field was removed or renamed"},
	{"RESULT_FIELD_ADDED", Result, false, KeyTool | KeyField, "a result field was added"},
	{"RESULT_FIELD_NOW_OPTIONAL", Result, true, KeyTool | KeyField, "a result field may now be absent"},
	{"RESULT_TYPE_CHANGED", Result, true, KeyTool | KeyField, "a result field's type changed, or it may now be a value it could not be"},
	{"RESULT_REMOVED", Result, true, KeyTool, "a tool no longer declares result data"},
	{"MODE_REMOVED", Mode, true, KeyMode, "a mode was removed"},
	{"MODE_ADDED", Mode, false, KeyMode, "a mode was added"},
	{"MODE_TOOL_DROPPED", Mode, true, KeyMode | KeyTool, "a tool is no longer injected in a mode"},
	{"MODE_TOOL_ADDED", Mode, false, KeyMode | KeyTool, "a tool is now injected in a mode"},
	{"MODE_STANDING_LOWERED", Mode, true, KeyMode | KeyTool, "a tool's standing in a mode was lowered"},
	{"MODE_STANDING_RAISED", Mode, false, KeyMode | KeyTool, "a tool's standing in a mode was raised"},
	{"MODE_EXTENDS_CHANGED", Mode, true, KeyMode, "the mode a mode's prompt extends changed"},
	{"SELECTION_CHANGED", Mode, true, 0, "the mode selection rules changed"},
	{"MODEL_REMOVED", Models, true, KeyModel, "a model was removed from the registry"},
	{"MODEL_ADDED", Models, false, KeyModel, "a model was added to the registry"},
	{"MODEL_ID_CHANGED", Models, true, KeyModel, "a model's OpenCode or API ID changed"},
	{"AGENT_REMOVED", Models, true, KeyAgent, "an agent type was removed"},
	{"AGENT_MODEL_REMOVED", Models, true, KeyAgent | KeyModel, "an agent no longer supports a model"},
	{"AGENT_DEFAULT_MODEL_CHANGED", Models, false, KeyAgent, "an agent's default model changed"},
	{"CALLBACK_PATH_CHANGED", Wire, true, 0, "the gateway callback route changed"},
	{"MCP_SERVER_REMOVED", Wire, true, 0, "the MCP server package is no longer generated (codegen.mcp removed)"},
	{"MCP_SERVER_ADDED", Wire, false, 0, "the gateway tools are now also served over MCP (codegen.mcp added)"},
	{"MCP_PACKAGE_MOVED", Wire, true, 0, "the MCP server package's directory, name or core import changed: gateways that import it must follow"},
	{"MCP_SERVER_RENAMED", Wire, true, 0, "the MCP server's name (the contract's name) changed: OpenCode shows its tools to the model as <name>_<tool>"},
}

// LookupRule returns the rule with the given id, if there is one.
func LookupRule(id string) (Rule, bool) {
	if i := slices.IndexFunc(Rules, func(r Rule) bool { return r.ID == id }); i >= 0 {
		return Rules[i], true
	}
	return Rule{}, false
}

// About names a finding's subject by the keys its rule takes; the others
// are "".
type About struct {
	Tool  string `json:"tool,omitempty"`
	Field string `json:"field,omitempty"`
	Mode  string `json:"mode,omitempty"`
	Model string `json:"model,omitempty"`
	Agent string `json:"agent,omitempty"`
}

// AboutOf returns the subject an acceptance names.
func AboutOf(a *model.Acceptance) About {
	return About{Tool: a.Tool, Field: a.Field, Mode: a.Mode, Model: a.Model, Agent: a.Agent}
}

// values are a's keys' values, in the order of keyNames.
func (a About) values() []string { return []string{a.Tool, a.Field, a.Mode, a.Model, a.Agent} }

// Keys returns the keys a names its subject by.
func (a About) Keys() Key {
	var k Key
	for i, v := range a.values() {
		if v != "" {
			k |= 1 << i
		}
	}
	return k
}

// subject is the finding's Subject: the mode, agent, model or tool it is
// about, in that order of preference; for the subjects a spec has only
// one of, the rule id's first word ("selection", "callback", "mcp").
func (a About) subject(rule string) string {
	switch {
	case a.Mode != "":
		return "mode " + a.Mode
	case a.Agent != "":
		return "agent " + a.Agent
	case a.Model != "":
		return "model " + a.Model
	case a.Tool != "":
		return "tool " + a.Tool
	}
	first, _, _ := strings.Cut(rule, "_")
	return strings.ToLower(first)
}

// path is an argument's or result field's path as messages print it: the
// tool's name, then the field's path below it.
func (a About) path() string { return a.Tool + "." + a.Field }

// field returns a with the field path extended by name, a field's name
// (never "": the loader refuses a field it cannot name in Go).
func (a About) field(name string) About {
	if a.Field != "" {
		name = a.Field + "." + name
	}
	a.Field = name
	return a
}

// Finding is one change.
type Finding struct {
	Rule     string   `json:"rule"`
	Category Category `json:"category"`
	Breaking bool     `json:"breaking"`
	// Pos is where the change is in the new spec; OldPos where it was in
	// the old one (for removals Pos is the enclosing element's).
	Pos     model.Pos `json:"pos"`
	OldPos  model.Pos `json:"old_pos"`
	Subject string    `json:"subject"`
	// About names the subject as an acceptance does.
	About
	Message string `json:"message"`
	// Accepted is set on a breaking change the new spec accepts: Reason
	// and AcceptedAt are then the acceptance's reason and position.
	Accepted   bool      `json:"accepted"`
	Reason     string    `json:"reason,omitempty"`
	AcceptedAt model.Pos `json:"accepted_at,omitzero"`
}

func (f Finding) String() string {
	sev := "compatible"
	switch {
	case f.Accepted:
		sev = "accepted"
	case f.Breaking:
		sev = "BREAKING"
	}
	pos := f.Pos
	if !pos.IsValid() {
		pos = f.OldPos
	}
	s := fmt.Sprintf("%s: %s %s [%s]: %s", pos, sev, f.Rule, f.Category, f.Message)
	if f.Accepted {
		s += fmt.Sprintf("; accepted at %s: %s", f.AcceptedAt, f.Reason)
	}
	return s
}

type cmpr struct {
	out      []Finding
	old, new *model.Spec
	// continued holds the new tools that carry on an old one: its name
	// names them in the new spec.
	continued map[*model.Tool]bool
}

func (c *cmpr) add(rule string, about About, pos, oldPos model.Pos, format string, args ...any) {
	r, ok := LookupRule(rule)
	if !ok {
		panic("breaking: unknown rule " + rule) // programming error
	}
	c.out = append(c.out, Finding{Rule: r.ID, Category: r.Category, Breaking: r.Breaking, Pos: pos, OldPos: oldPos,
		Subject: about.subject(r.ID), About: about, Message: fmt.Sprintf(format, args...)})
}

// Compare returns every change from old to new, sorted by subject then
// rule, with the breaking changes that new accepts (new.Breaking) marked
// Accepted.
func Compare(old, new *model.Spec) []Finding {
	c := &cmpr{old: old, new: new, continued: map[*model.Tool]bool{}}
	for _, ot := range old.Tools {
		if nt := new.Tool(ot.Name); nt != nil {
			c.continued[nt] = true
		}
	}
	c.tools()
	c.modes()
	c.selection()
	c.models()
	c.mcp()
	if old.Callback.Path != new.Callback.Path {
		c.add("CALLBACK_PATH_CHANGED", About{}, new.Callback.Pos, old.Callback.Pos, "callback route changed from %q to %q", old.Callback.Path, new.Callback.Path)
	}
	slices.SortStableFunc(c.out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Subject, b.Subject), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	for i, f := range c.out {
		if j := slices.IndexFunc(new.Breaking.Accept, func(a *model.Acceptance) bool { return accepts(a, f) }); j >= 0 {
			a := new.Breaking.Accept[j]
			c.out[i].Accepted, c.out[i].Reason, c.out[i].AcceptedAt = true, a.Reason, a.Pos
		}
	}
	return c.out
}

// accepts reports whether a accepts f: a breaking finding under a's rule,
// about a's subject.
func accepts(a *model.Acceptance, f Finding) bool {
	return f.Breaking && f.Rule == a.Rule && f.About == AboutOf(a)
}

// Unused returns the acceptances of new (new.Breaking) that accept none of
// fs, the findings Compare returned for it: the change they accepted is no
// longer a change against this baseline, or never was one.
func Unused(new *model.Spec, fs []Finding) []*model.Acceptance {
	return slices.DeleteFunc(slices.Clone(new.Breaking.Accept), func(a *model.Acceptance) bool {
		return slices.ContainsFunc(fs, func(f Finding) bool { return accepts(a, f) })
	})
}

// Describe names what an acceptance accepts: `ARG_REMOVED for tool "t",
// field "x"`.
func Describe(a *model.Acceptance) string {
	var keys []string
	for i, v := range AboutOf(a).values() {
		if v != "" {
			keys = append(keys, fmt.Sprintf("%s %q", keyNames[i], v))
		}
	}
	if len(keys) == 0 {
		return a.Rule
	}
	return a.Rule + " for " + strings.Join(keys, ", ")
}

// CheckAcceptance reports what is wrong with an acceptance, for the loader
// to position: an unknown or compatible rule (key 0), or a key the rule
// takes that is missing or one it does not take that is set (that key).
// It returns "" when the acceptance is well formed.
func CheckAcceptance(a *model.Acceptance) (Key, string) {
	r, ok := LookupRule(a.Rule)
	switch {
	case !ok:
		return 0, fmt.Sprintf("unknown breaking rule %q", a.Rule)
	case !r.Breaking:
		return 0, fmt.Sprintf("rule %s is compatible (%s): there is nothing to accept", r.ID, r.Doc)
	}
	has := AboutOf(a).Keys()
	for i := range keyNames {
		k := Key(1 << i)
		switch {
		case r.Keys&k != 0 && has&k == 0:
			return k, fmt.Sprintf("an acceptance of %s names its subject by %s: %s is missing", r.ID, r.Keys, k)
		case r.Keys&k == 0 && has&k != 0:
			if r.Keys == 0 {
				return k, fmt.Sprintf("%s has no %s: a spec has one %s, so an acceptance of it names nothing else", r.ID, k, About{}.subject(r.ID))
			}
			return k, fmt.Sprintf("%s has no %s: an acceptance of it names its subject by %s", r.ID, k, r.Keys)
		}
	}
	return 0, ""
}

func (c *cmpr) tools() {
	for _, ot := range c.old.Tools {
		nt := c.new.Tool(ot.Name)
		at := About{Tool: ot.Name}
		if nt == nil {
			c.add("TOOL_REMOVED", at, model.Pos{}, ot.Pos, "tool %q was removed", ot.Name)
			continue
		}
		if nt.Name != ot.Name {
			// The old name is now nt's alias: the gateway resolves it to nt
			// (LookupTool), gates it by nt's standing in the session's mode
			// (compared in modes) and decodes nt's arguments (compared
			// below), so calls by it still dispatch.
			if prev := c.old.Tool(nt.Name); prev != nil && prev != ot {
				c.add("TOOL_RENAMED", at, nt.Pos, ot.Pos, "tool %q was merged into tool %q: calls by %q, now its alias, dispatch to it", ot.Name, nt.Name, ot.Name)
			} else {
				c.add("TOOL_RENAMED", at, nt.Pos, ot.Pos, "tool %q was renamed to %q and kept as its alias: calls by %q still dispatch", ot.Name, nt.Name, ot.Name)
			}
		}
		for _, a := range ot.Aliases {
			switch t := c.new.Tool(a); {
			case t == nil:
				c.add("TOOL_ALIAS_REMOVED", at, nt.Pos, ot.Pos, "alias %q of tool %q was removed", a, ot.Name)
			case t != nt:
				c.add("TOOL_ALIAS_REMOVED", at, nt.Pos, ot.Pos, "alias %q of tool %q now names tool %q", a, ot.Name, t.Name)
			}
		}
		for _, a := range missing(nt.Aliases, ot.AllNames()) {
			c.add("TOOL_ALIAS_ADDED", at, nt.Pos, ot.Pos, "tool %q gained alias %q", ot.Name, a)
		}
		if ot.Execution != nt.Execution {
			c.add("TOOL_EXECUTION_CHANGED", at, nt.Pos, ot.Pos, "tool %q now executes %q: %s (was %q: %s)", ot.Name, nt.Execution, executes(nt.Execution), ot.Execution, executes(ot.Execution))
		}
		if ot.Deprecated == "" && nt.Deprecated != "" {
			c.add("TOOL_DEPRECATED", at, nt.Pos, ot.Pos, "tool %q is deprecated: %s", ot.Name, nt.Deprecated)
		}
		c.fields(true, at, ot.Args, nt.Args)
		switch {
		case ot.Result != nil && nt.Result == nil:
			c.add("RESULT_REMOVED", at, nt.Pos, ot.Pos, "tool %q no longer declares result data", ot.Name)
		case ot.Result != nil:
			c.fields(false, at, ot.Result, nt.Result)
		}
	}
	for _, nt := range c.new.Tools {
		if !c.continued[nt] {
			c.add("TOOL_ADDED", About{Tool: nt.Name}, nt.Pos, model.Pos{}, "tool %q was added", nt.Name)
		}
	}
}

// executes says how a tool of an execution kind runs; the loader admits
// no kind but these three.
func executes(e model.Execution) string {
	switch e {
	case model.Gateway:
		return "its sandbox stub calls the gateway back"
	case model.Sandbox:
		return "it runs in the sandbox"
	}
	return "the gateway intercepts it from the event stream"
}

// renamed pairs the one field removed from an object with the one added,
// when there is exactly one of each and they have the same shape: a rename
// is reported once, as what it is, rather than as a removal and an
// addition.
func renamed(o, n *model.Type) (of, nf *model.Field) {
	gone := slices.DeleteFunc(slices.Clone(o.Fields), func(f *model.Field) bool { return field(n, f.Name) != nil })
	added := slices.DeleteFunc(slices.Clone(n.Fields), func(f *model.Field) bool { return field(o, f.Name) != nil })
	if len(gone) == 1 && len(added) == 1 && describe(gone[0].Type) == describe(added[0].Type) {
		return gone[0], added[0]
	}
	return nil, nil
}

func field(t *model.Type, name string) *model.Field {
	if i := slices.IndexFunc(t.Fields, func(f *model.Field) bool { return f.Name == name }); i >= 0 {
		return t.Fields[i]
	}
	return nil
}

// fields compares the fields of two object types; at names the tool and
// the path of the objects below it. Arguments (args) flow from the model
// to the gateway; result data from the gateway to its consumers.
func (c *cmpr) fields(args bool, at About, o, n *model.Type) {
	noun, removed := "result field", "RESULT_FIELD_REMOVED"
	if args {
		noun, removed = "argument", "ARG_REMOVED"
	}
	ro, rn := renamed(o, n)
	for _, of := range o.Fields {
		fa := at.field(of.Name)
		nf := field(n, of.Name)
		switch {
		case of == ro:
			// Callers still send the old name, which is now dropped;
			// consumers still read it, and it is now absent.
			c.add(removed, fa, rn.Pos, of.Pos, "%s %s was renamed to %s", noun, fa.path(), rn.Name)
			c.typ(args, at.field(rn.Name), of.Type, rn.Type, rn.Pos, of.Pos)
			continue
		case nf == nil:
			c.add(removed, fa, n.Pos, of.Pos, "%s %s was removed", noun, fa.path())
			continue
		case args:
			c.argPresence(fa, of, nf)
		case of.Presence != model.Optional && nf.Presence == model.Optional:
			c.add("RESULT_FIELD_NOW_OPTIONAL", fa, nf.Pos, of.Pos, "result field %s may now be absent", fa.path())
		}
		c.typ(args, fa, of.Type, nf.Type, nf.Pos, of.Pos)
	}
	for _, nf := range n.Fields {
		if field(o, nf.Name) != nil || nf == rn {
			continue
		}
		fa := at.field(nf.Name)
		switch {
		case !args:
			c.add("RESULT_FIELD_ADDED", fa, nf.Pos, o.Pos, "result field %s was added", fa.path())
		case nf.Presence == model.Required:
			c.add("ARG_ADDED_REQUIRED", fa, nf.Pos, o.Pos, "required argument %s was added", fa.path())
		default:
			c.add("ARG_ADDED_OPTIONAL", fa, nf.Pos, o.Pos, "%s argument %s was added", presence(nf.Presence), fa.path())
		}
	}
}

// argPresence compares whether an argument is required, optional or
// defaulted, and its default.
func (c *cmpr) argPresence(fa About, of, nf *model.Field) {
	p := fa.path()
	switch {
	case of.Presence != model.Required && nf.Presence == model.Required:
		c.add("ARG_NOW_REQUIRED", fa, nf.Pos, of.Pos, "argument %s is now required (was %s)", p, presence(of.Presence))
	case of.Presence == model.Required && nf.Presence != model.Required:
		c.add("ARG_NOW_OPTIONAL", fa, nf.Pos, of.Pos, "argument %s is now %s (was required)", p, presence(nf.Presence))
	case of.Presence == model.Defaulted && nf.Presence == model.Defaulted && !jsonEqual(of.Default, nf.Default):
		c.add("ARG_DEFAULT_CHANGED", fa, nf.Pos, of.Pos, "argument %s's default changed from %s to %s", p, of.Default, nf.Default)
	case of.Presence == model.Optional && nf.Presence == model.Defaulted:
		c.add("ARG_DEFAULT_CHANGED", fa, nf.Pos, of.Pos, "argument %s now defaults to %s when omitted", p, nf.Default)
	case of.Presence == model.Defaulted && nf.Presence == model.Optional:
		c.add("ARG_DEFAULT_CHANGED", fa, nf.Pos, of.Pos, "argument %s no longer defaults to %s", p, of.Default)
	}
}

func presence(p model.Presence) string {
	if p == model.Defaulted {
		return "defaulted"
	}
	return string(p)
}

// typ compares the types of one argument or result field (args as for
// fields). An argument may widen, and a result narrow, to another kind
// (narrower): every call the old argument admitted the new one admits, and
// every value consumers now see they could see before.
func (c *cmpr) typ(args bool, at About, o, n *model.Type, pos, oldPos model.Pos) {
	p := at.path()
	ok := args && narrower(o.Kind, n.Kind) || !args && narrower(n.Kind, o.Kind)
	switch {
	// An enum and a literal are not different types: their values compare.
	case o.Kind != n.Kind && !ok && (values(o) == nil || values(n) == nil):
		rule, noun := "ARG_TYPE_CHANGED", "argument"
		if !args {
			rule, noun = "RESULT_TYPE_CHANGED", "result field"
		}
		c.add(rule, at, pos, oldPos, "%s %s changed type from %s to %s", noun, p, describe(o), describe(n))
		return
	case ok && !args:
		return // a result that narrowed shows consumers nothing new
	case ok:
		c.add("ARG_LIMIT_LOOSENED", at, pos, oldPos, "argument %s now accepts any %s (was %s)", p, describe(n), describe(o))
	}
	switch o.Kind {
	case model.Object:
		c.fields(args, at, o, n)
		return
	case model.Array:
		if args {
			c.limits(at, "item count", o.MinItems, o.MaxItems, n.MinItems, n.MaxItems, pos, oldPos)
		}
		items := at
		items.Field += "[]"
		c.typ(args, items, o.Items, n.Items, pos, oldPos)
		return
	}
	ov, nv := values(o), values(n)
	if !args {
		// A value no longer produced breaks nobody; a new one may
		// surprise a consumer that switches on the old ones.
		for _, v := range missing(nv, ov) {
			c.add("RESULT_TYPE_CHANGED", at, pos, oldPos, "result field %s may now be %q (values were %s, now %s)", p, v, model.Disjunction(ov), model.Disjunction(nv))
		}
		return
	}
	// An enum that widened to a string meets the string's limits and
	// patterns as if they were new.
	switch n.Kind {
	case model.String:
		c.limits(at, "length", o.MinLength, o.MaxLength, n.MinLength, n.MaxLength, pos, oldPos)
		c.patterns(at, o, n, pos, oldPos)
	case model.Number, model.Integer:
		c.bounds(at, o, n, pos, oldPos)
	case model.Enum, model.Literal:
		for _, v := range missing(ov, nv) {
			c.add("ARG_ENUM_VALUE_REMOVED", at, pos, oldPos, "argument %s no longer accepts %q", p, v)
		}
		for _, v := range missing(nv, ov) {
			c.add("ARG_ENUM_VALUE_ADDED", at, pos, oldPos, "argument %s now accepts %q", p, v)
		}
	}
}

// missing returns the elements of a that b lacks, in a's order.
func missing(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return slices.Contains(b, x) })
}

// narrower reports whether kind a admits some of the values of kind b and
// no other: an enum's or a literal's of a string's, an integer's of a
// number's.
func narrower(a, b model.Kind) bool {
	return (a == model.Enum || a == model.Literal) && b == model.String || a == model.Integer && b == model.Number
}

func values(t *model.Type) []string {
	if t.Kind == model.Literal {
		return []string{t.Literal}
	}
	return t.Enum
}

func describe(t *model.Type) string {
	if t.Kind == model.Array {
		return "list of " + describe(t.Items)
	}
	return string(t.Kind)
}

func (c *cmpr) limits(at About, what string, omin, omax, nmin, nmax *int, pos, oldPos model.Pos) {
	p := at.path()
	val := func(x *int) string {
		if x == nil {
			return "none"
		}
		return fmt.Sprint(*x)
	}
	if tighterMin(omin, nmin) || tighterMax(omax, nmax) {
		c.add("ARG_LIMIT_TIGHTENED", at, pos, oldPos, "argument %s's %s limits tightened from [%s, %s] to [%s, %s]", p, what, val(omin), val(omax), val(nmin), val(nmax))
	} else if val(omin) != val(nmin) || val(omax) != val(nmax) {
		c.add("ARG_LIMIT_LOOSENED", at, pos, oldPos, "argument %s's %s limits loosened from [%s, %s] to [%s, %s]", p, what, val(omin), val(omax), val(nmin), val(nmax))
	}
}

func tighterMin(o, n *int) bool { return n != nil && (o == nil || *n > *o) }
func tighterMax(o, n *int) bool { return n != nil && (o == nil || *n < *o) }

// patterns compares the patterns a string must match (=~) and must not
// match (!~), whether the field or a named check holds them: renaming a
// check, reordering its patterns or moving one between a check and the
// field changes no call's fate.
func (c *cmpr) patterns(at About, o, n *model.Type, pos, oldPos model.Pos) {
	op, np := patternList(o), patternList(n)
	for _, x := range missing(np, op) {
		c.add("ARG_PATTERN_CHANGED", at, pos, oldPos, "argument %s gained pattern %s", at.path(), x)
	}
	for _, x := range missing(op, np) {
		c.add("ARG_PATTERN_REMOVED", at, pos, oldPos, "argument %s lost pattern %s", at.path(), x)
	}
}

// patternList lists t's patterns and its named checks', each as "=~re" or
// "!~re": the field's own patterns must match as a check's Match do.
func patternList(t *model.Type) []string {
	var l []string
	for _, ch := range append([]*model.Check{{Match: t.Patterns}}, t.Checks...) {
		for _, x := range ch.Reject {
			l = append(l, "!~"+x.Regexp)
		}
		for _, x := range ch.Match {
			l = append(l, "=~"+x.Regexp)
		}
	}
	return l
}

func (c *cmpr) bounds(at About, o, n *model.Type, pos, oldPos model.Pos) {
	p := at.path()
	cmpBound := func(ob, nb *model.Bound, lower bool, what string) {
		switch {
		case ob == nil && nb == nil:
		case ob == nil:
			c.add("ARG_LIMIT_TIGHTENED", at, pos, oldPos, "argument %s gained %s bound %s", p, what, bound(nb, lower))
		case nb == nil:
			c.add("ARG_LIMIT_LOOSENED", at, pos, oldPos, "argument %s lost %s bound %s", p, what, bound(ob, lower))
		default:
			// An integer's bound compares as the integers it admits.
			oi, ni := integral(o.Kind, ob, lower), integral(n.Kind, nb, lower)
			if ni.Tighter(oi, lower) {
				c.add("ARG_LIMIT_TIGHTENED", at, pos, oldPos, "argument %s's %s bound tightened from %s to %s", p, what, bound(ob, lower), bound(nb, lower))
			} else if oi.Tighter(ni, lower) {
				c.add("ARG_LIMIT_LOOSENED", at, pos, oldPos, "argument %s's %s bound loosened from %s to %s", p, what, bound(ob, lower), bound(nb, lower))
			}
		}
	}
	cmpBound(o.Minimum, n.Minimum, true, "lower")
	cmpBound(o.Maximum, n.Maximum, false, "upper")
}

// integral returns b, a bound of a value of kind k, as the inclusive bound
// of the integers it admits when k is integer (>0 is >=1, <=2.5 is <=2), so
// that bounds written otherwise compare equal; else b.
func integral(k model.Kind, b *model.Bound, lower bool) *model.Bound {
	r, ok := new(big.Rat).SetString(string(b.Value))
	if k != model.Integer || !ok {
		return b
	}
	i := new(big.Int).Div(r.Num(), r.Denom()) // the floor: Denom is positive
	switch {
	case lower && (b.Exclusive || !r.IsInt()):
		i.Add(i, big.NewInt(1))
	case !lower && b.Exclusive && r.IsInt():
		i.Sub(i, big.NewInt(1))
	}
	return &model.Bound{Value: json.Number(i.String())}
}

func bound(b *model.Bound, lower bool) string {
	op := map[[2]bool]string{{true, false}: ">=", {true, true}: ">", {false, false}: "<=", {false, true}: "<"}[[2]bool{lower, b.Exclusive}]
	return op + string(b.Value)
}

// jsonEqual compares two defaults as values (1.0 is 1, fields in any
// order): JSON as the loader has CUE write it, which always decodes.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	return reflect.DeepEqual(x, y)
}

func (c *cmpr) modes() {
	for _, om := range c.old.Modes {
		at := About{Mode: om.Name}
		nm := c.new.Mode(om.Name)
		if nm == nil {
			c.add("MODE_REMOVED", at, model.Pos{}, om.Pos, "mode %q was removed", om.Name)
			continue
		}
		oe, ne := "", ""
		if om.Extends != nil {
			oe = om.Extends.Name
		}
		if nm.Extends != nil {
			ne = nm.Extends.Name
		}
		if oe != ne {
			c.add("MODE_EXTENDS_CHANGED", at, nm.Pos, om.Pos, "mode %q now extends %q (was %q)", om.Name, ne, oe)
		}
		for _, ots := range om.Standings {
			nt := c.new.Tool(ots.Tool.Name)
			if nt == nil {
				continue // TOOL_REMOVED says it, once
			}
			tat := About{Mode: om.Name, Tool: nt.Name}
			ns, pos := model.Unavailable, nm.Pos
			if i := slices.IndexFunc(nm.Standings, func(x model.ToolStanding) bool { return x.Tool == nt }); i >= 0 {
				ns, pos = nm.Standings[i].Standing, nm.Standings[i].Pos
			}
			switch {
			case ots.Standing.Injected() && !ns.Injected():
				c.add("MODE_TOOL_DROPPED", tat, pos, ots.Pos, "mode %q no longer injects tool %q (was %s)", om.Name, nt.Name, ots.Standing)
			case !ots.Standing.Injected() && ns.Injected():
				c.add("MODE_TOOL_ADDED", tat, pos, ots.Pos, "mode %q now injects tool %q (%s)", om.Name, nt.Name, ns)
			case ns.Rank() < ots.Standing.Rank():
				c.add("MODE_STANDING_LOWERED", tat, pos, ots.Pos, "tool %q's standing in mode %q lowered from %s to %s", nt.Name, om.Name, ots.Standing, ns)
			case ns.Rank() > ots.Standing.Rank():
				c.add("MODE_STANDING_RAISED", tat, pos, ots.Pos, "tool %q's standing in mode %q raised from %s to %s", nt.Name, om.Name, ots.Standing, ns)
			}
		}
		for _, nts := range nm.Standings {
			if !c.continued[nts.Tool] && nts.Standing.Injected() {
				c.add("MODE_TOOL_ADDED", About{Mode: om.Name, Tool: nts.Tool.Name}, nts.Pos, om.Pos, "mode %q now injects tool %q (%s, new)", om.Name, nts.Tool.Name, nts.Standing)
			}
		}
	}
	for _, nm := range c.new.Modes {
		if c.old.Mode(nm.Name) == nil {
			c.add("MODE_ADDED", About{Mode: nm.Name}, nm.Pos, model.Pos{}, "mode %q was added", nm.Name)
		}
	}
}

// selection compares the mode selection rules. A loaded spec's rules and
// default all name a mode: the loader refuses an unknown one.
func (c *cmpr) selection() {
	render := func(s model.Selection) string {
		var b strings.Builder
		for _, r := range s.Rules {
			var cs []string
			for _, w := range r.When {
				cs = append(cs, w.Input.Name+"="+w.Value)
			}
			fmt.Fprintf(&b, "%s→%s; ", strings.Join(cs, ","), r.Mode.Name)
		}
		return b.String() + "default→" + s.Default.Name
	}
	if o, n := render(c.old.Selection), render(c.new.Selection); o != n {
		c.add("SELECTION_CHANGED", About{}, c.new.Selection.Pos, c.old.Selection.Pos, "mode selection changed from %q to %q", o, n)
	}
}

func (c *cmpr) models() {
	for _, om := range c.old.Models {
		at := About{Model: om.Canonical}
		nm := c.new.Model(om.Canonical)
		if nm == nil {
			c.add("MODEL_REMOVED", at, model.Pos{}, om.Pos, "model %q was removed", om.Canonical)
			continue
		}
		if nm.OpenCode != om.OpenCode {
			c.add("MODEL_ID_CHANGED", at, nm.Pos, om.Pos, "model %q's OpenCode ID changed from %q to %q", om.Canonical, om.OpenCode, nm.OpenCode)
		}
		if nm.API != om.API {
			c.add("MODEL_ID_CHANGED", at, nm.Pos, om.Pos, "model %q's API ID changed from %q to %q", om.Canonical, om.API, nm.API)
		}
	}
	for _, nm := range c.new.Models {
		if c.old.Model(nm.Canonical) == nil {
			c.add("MODEL_ADDED", About{Model: nm.Canonical}, nm.Pos, model.Pos{}, "model %q was added", nm.Canonical)
		}
	}
	for _, oa := range c.old.Agents {
		at := About{Agent: oa.Name}
		i := slices.IndexFunc(c.new.Agents, func(a *model.Agent) bool { return a.Name == oa.Name })
		if i < 0 {
			c.add("AGENT_REMOVED", at, model.Pos{}, oa.Pos, "agent %q was removed", oa.Name)
			continue
		}
		na := c.new.Agents[i]
		for _, m := range oa.Models {
			if !slices.ContainsFunc(na.Models, func(x *model.Model) bool { return x.Canonical == m.Canonical }) {
				c.add("AGENT_MODEL_REMOVED", About{Agent: oa.Name, Model: m.Canonical}, na.Pos, oa.Pos, "agent %q no longer supports model %q", oa.Name, m.Canonical)
			}
		}
		// The loader admits no agent without a default model.
		if oa.Default.Canonical != na.Default.Canonical {
			c.add("AGENT_DEFAULT_MODEL_CHANGED", at, na.Pos, oa.Pos, "agent %q's default model changed from %q to %q", oa.Name, oa.Default.Canonical, na.Default.Canonical)
		}
	}
}
