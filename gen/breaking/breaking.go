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
//     model's ID forms breaks whoever relied on them.
package breaking

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
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

// Rule is a kind of change.
type Rule struct {
	ID       string
	Category Category
	// Breaking is false for changes that are reported but compatible.
	Breaking bool
	Doc      string
}

// Rules lists every rule, by id.
var Rules = []Rule{
	{"TOOL_REMOVED", Tool, true, "a tool was removed"},
	{"TOOL_ADDED", Tool, false, "a tool was added"},
	{"TOOL_ALIAS_REMOVED", Tool, true, "a name the gateway accepted for a tool was removed"},
	{"TOOL_ALIAS_ADDED", Tool, false, "a tool gained an alias"},
	{"TOOL_EXECUTION_CHANGED", Tool, true, "a tool now executes elsewhere (gateway, sandbox, intercepted)"},
	{"TOOL_DEPRECATED", Tool, false, "a tool was marked deprecated"},
	{"ARG_REMOVED", Args, true, "an argument was removed or renamed: callers still send it and it is now dropped"},
	{"ARG_ADDED_OPTIONAL", Args, false, "an optional or defaulted argument was added"},
	{"ARG_ADDED_REQUIRED", Args, true, "a required argument was added: earlier callers do not send it"},
	{"ARG_NOW_REQUIRED", Args, true, "an optional or defaulted argument became required"},
	{"ARG_NOW_OPTIONAL", Args, false, "a required argument became optional or defaulted"},
	{"ARG_DEFAULT_CHANGED", Args, true, "an argument's default changed: calls that omit it now mean something else"},
	{"ARG_TYPE_CHANGED", Args, true, "an argument's type changed"},
	{"ARG_LIMIT_TIGHTENED", Args, true, "a length, count or numeric limit became stricter"},
	{"ARG_LIMIT_LOOSENED", Args, false, "a length, count or numeric limit became looser"},
	{"ARG_ENUM_VALUE_REMOVED", Args, true, "an enum value was removed"},
	{"ARG_ENUM_VALUE_ADDED", Args, false, "an enum value was added"},
	{"ARG_PATTERN_CHANGED", Args, true, "a pattern or named check was added or changed"},
	{"ARG_PATTERN_REMOVED", Args, false, "a pattern or named check was removed"},
	{"RESULT_FIELD_REMOVED", Result, true, "a result field was removed or renamed"},
	{"RESULT_FIELD_ADDED", Result, false, "a result field was added"},
	{"RESULT_FIELD_NOW_OPTIONAL", Result, true, "a result field may now be absent"},
	{"RESULT_TYPE_CHANGED", Result, true, "a result field's type or values changed"},
	{"RESULT_REMOVED", Result, true, "a tool no longer declares result data"},
	{"MODE_REMOVED", Mode, true, "a mode was removed"},
	{"MODE_ADDED", Mode, false, "a mode was added"},
	{"MODE_TOOL_DROPPED", Mode, true, "a tool is no longer injected in a mode"},
	{"MODE_TOOL_ADDED", Mode, false, "a tool is now injected in a mode"},
	{"MODE_STANDING_LOWERED", Mode, true, "a tool's standing in a mode was lowered"},
	{"MODE_STANDING_RAISED", Mode, false, "a tool's standing in a mode was raised"},
	{"MODE_EXTENDS_CHANGED", Mode, true, "the mode a mode's prompt extends changed"},
	{"SELECTION_CHANGED", Mode, true, "the mode selection rules changed"},
	{"MODEL_REMOVED", Models, true, "a model was removed from the registry"},
	{"MODEL_ADDED", Models, false, "a model was added to the registry"},
	{"MODEL_ID_CHANGED", Models, true, "a model's OpenCode or API ID changed"},
	{"AGENT_REMOVED", Models, true, "an agent type was removed"},
	{"AGENT_MODEL_REMOVED", Models, true, "an agent no longer supports a model"},
	{"AGENT_DEFAULT_MODEL_CHANGED", Models, false, "an agent's default model changed"},
	{"CALLBACK_PATH_CHANGED", Wire, true, "the gateway callback route changed"},
	{"MCP_SERVER_REMOVED", Wire, true, "the MCP server package is no longer generated (codegen.mcp removed)"},
	{"MCP_SERVER_ADDED", Wire, false, "the gateway tools are now also served over MCP (codegen.mcp added)"},
	{"MCP_PACKAGE_MOVED", Wire, true, "the MCP server package's directory, name or core import changed: gateways that import it must follow"},
	{"MCP_SERVER_RENAMED", Wire, true, "the MCP server's name (the contract's name) changed: OpenCode shows its tools to the model as <name>_<tool>"},
}

// RuleByID returns the rule with the given id.
func RuleByID(id string) Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	panic("breaking: unknown rule " + id) // programming error
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
	Message string    `json:"message"`
}

func (f Finding) String() string {
	sev := "compatible"
	if f.Breaking {
		sev = "BREAKING"
	}
	pos := f.Pos
	if !pos.IsValid() {
		pos = f.OldPos
	}
	return fmt.Sprintf("%s: %s %s [%s]: %s", pos, sev, f.Rule, f.Category, f.Message)
}

type cmpr struct {
	out      []Finding
	old, new *model.Spec
}

func (c *cmpr) add(rule string, pos, oldPos model.Pos, subject, format string, args ...any) {
	r := RuleByID(rule)
	c.out = append(c.out, Finding{Rule: r.ID, Category: r.Category, Breaking: r.Breaking, Pos: pos, OldPos: oldPos,
		Subject: subject, Message: fmt.Sprintf(format, args...)})
}

// Compare returns every change from old to new, sorted by subject then
// rule.
func Compare(old, new *model.Spec) []Finding {
	c := &cmpr{old: old, new: new}
	c.tools()
	c.modes()
	c.selection()
	c.models()
	c.mcp()
	if old.Callback.Path != new.Callback.Path {
		c.add("CALLBACK_PATH_CHANGED", model.Pos{}, model.Pos{}, "callback", "callback route changed from %q to %q", old.Callback.Path, new.Callback.Path)
	}
	slices.SortStableFunc(c.out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Subject, b.Subject), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	return c.out
}

// HasBreaking reports whether any finding is breaking.
func HasBreaking(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Breaking })
}

func (c *cmpr) tools() {
	for _, ot := range c.old.Tools {
		nt := c.new.Tool(ot.Name)
		subj := "tool " + ot.Name
		if nt == nil {
			c.add("TOOL_REMOVED", model.Pos{}, ot.Pos, subj, "tool %q was removed", ot.Name)
			continue
		}
		if nt.Name != ot.Name {
			c.add("TOOL_ALIAS_REMOVED", nt.Pos, ot.Pos, subj, "%q is now only an alias of tool %q", ot.Name, nt.Name)
		}
		for _, a := range ot.Aliases {
			if c.new.Tool(a) == nil {
				c.add("TOOL_ALIAS_REMOVED", nt.Pos, ot.Pos, subj, "alias %q of tool %q was removed", a, ot.Name)
			}
		}
		for _, a := range nt.Aliases {
			if !slices.Contains(ot.AllNames(), a) {
				c.add("TOOL_ALIAS_ADDED", nt.Pos, ot.Pos, subj, "tool %q gained alias %q", ot.Name, a)
			}
		}
		if ot.Execution != nt.Execution {
			c.add("TOOL_EXECUTION_CHANGED", nt.Pos, ot.Pos, subj, "tool %q now executes %q: %s (was %q: %s)", ot.Name, nt.Execution, executes(nt.Execution), ot.Execution, executes(ot.Execution))
		}
		if ot.Deprecated == "" && nt.Deprecated != "" {
			c.add("TOOL_DEPRECATED", nt.Pos, ot.Pos, subj, "tool %q is deprecated: %s", ot.Name, nt.Deprecated)
		}
		c.args(subj, ot.Name, ot.Args, nt.Args)
		switch {
		case ot.Result != nil && nt.Result == nil:
			c.add("RESULT_REMOVED", nt.Pos, ot.Pos, subj, "tool %q no longer declares result data", ot.Name)
		case ot.Result != nil:
			c.result(subj, ot.Name, ot.Result, nt.Result)
		}
	}
	for _, nt := range c.new.Tools {
		if c.old.Tool(nt.Name) == nil {
			c.add("TOOL_ADDED", nt.Pos, model.Pos{}, "tool "+nt.Name, "tool %q was added", nt.Name)
		}
	}
}

// executes says how a tool of an execution kind runs.
func executes(e model.Execution) string {
	switch e {
	case model.Gateway:
		return "its sandbox stub calls the gateway back"
	case model.Sandbox:
		return "it runs in the sandbox"
	case model.Intercepted:
		return "the gateway intercepts it from the event stream"
	}
	return "unknown"
}

// renamed pairs the one field removed from an object with the one added,
// when there is exactly one of each and they have the same shape: a rename
// is reported once, as what it is, rather than as a removal and an
// addition.
func renamed(o, n *model.Type) (of, nf *model.Field) {
	var gone, added []*model.Field
	for _, f := range o.Fields {
		if field(n, f.Name) == nil {
			gone = append(gone, f)
		}
	}
	for _, f := range n.Fields {
		if field(o, f.Name) == nil {
			added = append(added, f)
		}
	}
	if len(gone) == 1 && len(added) == 1 && describe(gone[0].Type) == describe(added[0].Type) {
		return gone[0], added[0]
	}
	return nil, nil
}

func field(t *model.Type, name string) *model.Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// args compares argument object types; path names the location for
// messages ("commands[].cwd").
func (c *cmpr) args(subj, path string, o, n *model.Type) {
	ro, rn := renamed(o, n)
	for _, of := range o.Fields {
		p := join(path, of.Name)
		nf := field(n, of.Name)
		if of == ro {
			// Callers still send the old name, which is now dropped.
			c.add("ARG_REMOVED", rn.Pos, of.Pos, subj, "argument %s was renamed to %s", p, rn.Name)
			c.argType(subj, join(path, rn.Name), of.Type, rn.Type, rn.Pos, of.Pos)
			continue
		}
		if nf == nil {
			c.add("ARG_REMOVED", n.Pos, of.Pos, subj, "argument %s was removed", p)
			continue
		}
		switch {
		case of.Presence != model.Required && nf.Presence == model.Required:
			c.add("ARG_NOW_REQUIRED", nf.Pos, of.Pos, subj, "argument %s is now required (was %s)", p, of.Presence)
		case of.Presence == model.Required && nf.Presence != model.Required:
			c.add("ARG_NOW_OPTIONAL", nf.Pos, of.Pos, subj, "argument %s is now %s (was required)", p, presence(nf.Presence))
		case of.Presence == model.Defaulted && nf.Presence == model.Defaulted && !jsonEqual(of.Default, nf.Default):
			c.add("ARG_DEFAULT_CHANGED", nf.Pos, of.Pos, subj, "argument %s's default changed from %s to %s", p, of.Default, nf.Default)
		case of.Presence == model.Optional && nf.Presence == model.Defaulted:
			c.add("ARG_DEFAULT_CHANGED", nf.Pos, of.Pos, subj, "argument %s now defaults to %s when omitted", p, nf.Default)
		case of.Presence == model.Defaulted && nf.Presence == model.Optional:
			c.add("ARG_DEFAULT_CHANGED", nf.Pos, of.Pos, subj, "argument %s no longer defaults to %s", p, of.Default)
		}
		c.argType(subj, p, of.Type, nf.Type, nf.Pos, of.Pos)
	}
	for _, nf := range n.Fields {
		if field(o, nf.Name) != nil || nf == rn {
			continue
		}
		if nf.Presence == model.Required {
			c.add("ARG_ADDED_REQUIRED", nf.Pos, o.Pos, subj, "required argument %s was added", join(path, nf.Name))
		} else {
			c.add("ARG_ADDED_OPTIONAL", nf.Pos, o.Pos, subj, "%s argument %s was added", presence(nf.Presence), join(path, nf.Name))
		}
	}
}

func presence(p model.Presence) string {
	if p == model.Defaulted {
		return "defaulted"
	}
	return string(p)
}

func join(path, name string) string { return path + "." + name }

// argType compares the types of one argument (the model's side sends it).
func (c *cmpr) argType(subj, p string, o, n *model.Type, pos, oldPos model.Pos) {
	if kindChanged(o, n) {
		c.add("ARG_TYPE_CHANGED", pos, oldPos, subj, "argument %s changed type from %s to %s", p, describe(o), describe(n))
		return
	}
	switch o.Kind {
	case model.Object:
		c.args(subj, p, o, n)
	case model.Array:
		c.limits(subj, p, "item count", o.MinItems, o.MaxItems, n.MinItems, n.MaxItems, pos, oldPos)
		c.argType(subj, p+"[]", o.Items, n.Items, pos, oldPos)
	case model.String:
		c.limits(subj, p, "length", o.MinLength, o.MaxLength, n.MinLength, n.MaxLength, pos, oldPos)
		c.patterns(subj, p, o, n, pos, oldPos)
	case model.Number, model.Integer:
		c.bounds(subj, p, o, n, pos, oldPos)
	case model.Enum, model.Literal:
		ov, nv := values(o), values(n)
		for _, v := range ov {
			if !slices.Contains(nv, v) {
				c.add("ARG_ENUM_VALUE_REMOVED", pos, oldPos, subj, "argument %s no longer accepts %q", p, v)
			}
		}
		for _, v := range nv {
			if !slices.Contains(ov, v) {
				c.add("ARG_ENUM_VALUE_ADDED", pos, oldPos, subj, "argument %s now accepts %q", p, v)
			}
		}
	}
}

// kindChanged treats enum and literal as one family (values compared
// separately) and an integer → number change as a loosening.
func kindChanged(o, n *model.Type) bool {
	fam := func(k model.Kind) model.Kind {
		switch k {
		case model.Enum, model.Literal:
			return model.Enum
		case model.Integer:
			return model.Number
		}
		return k
	}
	return fam(o.Kind) != fam(n.Kind) || (o.Kind == model.Number && n.Kind == model.Integer)
}

func values(t *model.Type) []string {
	if t.Kind == model.Literal {
		return []string{t.Literal}
	}
	return t.Enum
}

func describe(t *model.Type) string {
	switch t.Kind {
	case model.Enum:
		return "enum"
	case model.Array:
		return "list of " + describe(t.Items)
	}
	return string(t.Kind)
}

func (c *cmpr) limits(subj, p, what string, omin, omax, nmin, nmax *int, pos, oldPos model.Pos) {
	val := func(x *int) string {
		if x == nil {
			return "none"
		}
		return fmt.Sprint(*x)
	}
	if tighterMin(omin, nmin) || tighterMax(omax, nmax) {
		c.add("ARG_LIMIT_TIGHTENED", pos, oldPos, subj, "argument %s's %s limits tightened from [%s, %s] to [%s, %s]", p, what, val(omin), val(omax), val(nmin), val(nmax))
	} else if !eqInt(omin, nmin) || !eqInt(omax, nmax) {
		c.add("ARG_LIMIT_LOOSENED", pos, oldPos, subj, "argument %s's %s limits loosened from [%s, %s] to [%s, %s]", p, what, val(omin), val(omax), val(nmin), val(nmax))
	}
}

func eqInt(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func tighterMin(o, n *int) bool { return n != nil && (o == nil || *n > *o) }
func tighterMax(o, n *int) bool { return n != nil && (o == nil || *n < *o) }

func (c *cmpr) patterns(subj, p string, o, n *model.Type, pos, oldPos model.Pos) {
	key := func(t *model.Type) []string {
		var ks []string
		for _, x := range t.Patterns {
			ks = append(ks, "pattern "+x.Regexp)
		}
		for _, ch := range t.Checks {
			var res []string
			for _, x := range ch.Reject {
				res = append(res, "!~"+x.Regexp)
			}
			for _, x := range ch.Match {
				res = append(res, "=~"+x.Regexp)
			}
			ks = append(ks, "check #"+ch.Name+" "+strings.Join(res, " "))
		}
		return ks
	}
	ok, nk := key(o), key(n)
	for _, k := range nk {
		if !slices.Contains(ok, k) {
			c.add("ARG_PATTERN_CHANGED", pos, oldPos, subj, "argument %s gained %s", p, k)
		}
	}
	for _, k := range ok {
		if !slices.Contains(nk, k) {
			c.add("ARG_PATTERN_REMOVED", pos, oldPos, subj, "argument %s lost %s", p, k)
		}
	}
}

func (c *cmpr) bounds(subj, p string, o, n *model.Type, pos, oldPos model.Pos) {
	if o.Kind == model.Number && n.Kind == model.Integer {
		return // reported as a type change
	}
	if o.Kind == model.Integer && n.Kind == model.Number {
		c.add("ARG_LIMIT_LOOSENED", pos, oldPos, subj, "argument %s now accepts non-integers", p)
	}
	cmpBound := func(ob, nb *model.Bound, lower bool, what string) {
		switch {
		case ob == nil && nb == nil:
		case ob == nil:
			c.add("ARG_LIMIT_TIGHTENED", pos, oldPos, subj, "argument %s gained %s bound %s", p, what, bound(nb, lower))
		case nb == nil:
			c.add("ARG_LIMIT_LOOSENED", pos, oldPos, subj, "argument %s lost %s bound %s", p, what, bound(ob, lower))
		default:
			d := cmpNum(nb.Value, ob.Value)
			if !lower {
				d = -d
			}
			tight := d > 0 || (d == 0 && nb.Exclusive && !ob.Exclusive)
			loose := d < 0 || (d == 0 && !nb.Exclusive && ob.Exclusive)
			if tight {
				c.add("ARG_LIMIT_TIGHTENED", pos, oldPos, subj, "argument %s's %s bound tightened from %s to %s", p, what, bound(ob, lower), bound(nb, lower))
			} else if loose {
				c.add("ARG_LIMIT_LOOSENED", pos, oldPos, subj, "argument %s's %s bound loosened from %s to %s", p, what, bound(ob, lower), bound(nb, lower))
			}
		}
	}
	cmpBound(o.Minimum, n.Minimum, true, "lower")
	cmpBound(o.Maximum, n.Maximum, false, "upper")
}

func bound(b *model.Bound, lower bool) string {
	op := map[[2]bool]string{{true, false}: ">=", {true, true}: ">", {false, false}: "<=", {false, true}: "<"}[[2]bool{lower, b.Exclusive}]
	return op + string(b.Value)
}

func cmpNum(a, b json.Number) int {
	x, _, err1 := big.ParseFloat(string(a), 10, 256, big.ToNearestEven)
	y, _, err2 := big.ParseFloat(string(b), 10, 256, big.ToNearestEven)
	if err1 != nil || err2 != nil {
		return strings.Compare(string(a), string(b))
	}
	return x.Cmp(y)
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// result compares result data (the gateway's side produces it).
func (c *cmpr) result(subj, path string, o, n *model.Type) {
	ro, rn := renamed(o, n)
	for _, of := range o.Fields {
		p := join(path, of.Name)
		nf := field(n, of.Name)
		if of == ro {
			// Consumers still read the old name, which is now absent.
			c.add("RESULT_FIELD_REMOVED", rn.Pos, of.Pos, subj, "result field %s was renamed to %s", p, rn.Name)
			c.resultType(subj, join(path, rn.Name), of.Type, rn.Type, rn.Pos, of.Pos)
			continue
		}
		if nf == nil {
			c.add("RESULT_FIELD_REMOVED", n.Pos, of.Pos, subj, "result field %s was removed", p)
			continue
		}
		if of.Presence != model.Optional && nf.Presence == model.Optional {
			c.add("RESULT_FIELD_NOW_OPTIONAL", nf.Pos, of.Pos, subj, "result field %s may now be absent", p)
		}
		c.resultType(subj, p, of.Type, nf.Type, nf.Pos, of.Pos)
	}
	for _, nf := range n.Fields {
		if field(o, nf.Name) == nil && nf != rn {
			c.add("RESULT_FIELD_ADDED", nf.Pos, o.Pos, subj, "result field %s was added", join(path, nf.Name))
		}
	}
}

func (c *cmpr) resultType(subj, p string, o, n *model.Type, pos, oldPos model.Pos) {
	if kindChanged(o, n) || (o.Kind == model.Integer && n.Kind == model.Number) {
		c.add("RESULT_TYPE_CHANGED", pos, oldPos, subj, "result field %s changed type from %s to %s", p, describe(o), describe(n))
		return
	}
	switch o.Kind {
	case model.Object:
		c.result(subj, p, o, n)
	case model.Array:
		c.resultType(subj, p+"[]", o.Items, n.Items, pos, oldPos)
	case model.Enum, model.Literal:
		// A value no longer produced breaks nobody; a new one may
		// surprise a consumer that switches on the old ones.
		ov, nv := values(o), values(n)
		for _, v := range nv {
			if !slices.Contains(ov, v) {
				c.add("RESULT_TYPE_CHANGED", pos, oldPos, subj, "result field %s may now be %q (values were %s, now %s)", p, v, quoteAll(ov), quoteAll(nv))
			}
		}
	}
}

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, " | ")
}

func (c *cmpr) modes() {
	for _, om := range c.old.Modes {
		subj := "mode " + om.Name
		nm := c.new.Mode(om.Name)
		if nm == nil {
			c.add("MODE_REMOVED", model.Pos{}, om.Pos, subj, "mode %q was removed", om.Name)
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
			c.add("MODE_EXTENDS_CHANGED", nm.Pos, om.Pos, subj, "mode %q now extends %q (was %q)", om.Name, ne, oe)
		}
		for _, ots := range om.Standings {
			nt := c.new.Tool(ots.Tool.Name)
			if nt == nil {
				continue // TOOL_REMOVED says it, once
			}
			ns := nm.Standing(nt.Name)
			pos := nm.Pos
			for _, x := range nm.Standings {
				if x.Tool == nt {
					pos = x.Pos
				}
			}
			switch {
			case ots.Standing.Injected() && !ns.Injected():
				c.add("MODE_TOOL_DROPPED", pos, ots.Pos, subj, "mode %q no longer injects tool %q (was %s)", om.Name, nt.Name, ots.Standing)
			case !ots.Standing.Injected() && ns.Injected():
				c.add("MODE_TOOL_ADDED", pos, ots.Pos, subj, "mode %q now injects tool %q (%s)", om.Name, nt.Name, ns)
			case ns.Rank() < ots.Standing.Rank():
				c.add("MODE_STANDING_LOWERED", pos, ots.Pos, subj, "tool %q's standing in mode %q lowered from %s to %s", nt.Name, om.Name, ots.Standing, ns)
			case ns.Rank() > ots.Standing.Rank():
				c.add("MODE_STANDING_RAISED", pos, ots.Pos, subj, "tool %q's standing in mode %q raised from %s to %s", nt.Name, om.Name, ots.Standing, ns)
			}
		}
		for _, nts := range nm.Standings {
			if c.old.Tool(nts.Tool.Name) == nil && nts.Standing.Injected() {
				c.add("MODE_TOOL_ADDED", nts.Pos, om.Pos, subj, "mode %q now injects tool %q (%s, new)", om.Name, nts.Tool.Name, nts.Standing)
			}
		}
	}
	for _, nm := range c.new.Modes {
		if c.old.Mode(nm.Name) == nil {
			c.add("MODE_ADDED", nm.Pos, model.Pos{}, "mode "+nm.Name, "mode %q was added", nm.Name)
		}
	}
}

func (c *cmpr) selection() {
	render := func(s model.Selection) string {
		var b strings.Builder
		for _, r := range s.Rules {
			var cs []string
			for _, w := range r.When {
				cs = append(cs, w.Input.Name+"="+w.Value)
			}
			name := "?"
			if r.Mode != nil {
				name = r.Mode.Name
			}
			fmt.Fprintf(&b, "%s→%s; ", strings.Join(cs, ","), name)
		}
		if s.Default != nil {
			b.WriteString("default→" + s.Default.Name)
		}
		return b.String()
	}
	if o, n := render(c.old.Selection), render(c.new.Selection); o != n {
		c.add("SELECTION_CHANGED", c.new.Selection.Pos, c.old.Selection.Pos, "selection", "mode selection changed from %q to %q", o, n)
	}
}

func (c *cmpr) models() {
	for _, om := range c.old.Models {
		subj := "model " + om.Canonical
		nm := c.new.Model(om.Canonical)
		if nm == nil {
			c.add("MODEL_REMOVED", model.Pos{}, om.Pos, subj, "model %q was removed", om.Canonical)
			continue
		}
		if nm.OpenCode != om.OpenCode {
			c.add("MODEL_ID_CHANGED", nm.Pos, om.Pos, subj, "model %q's OpenCode ID changed from %q to %q", om.Canonical, om.OpenCode, nm.OpenCode)
		}
		if nm.API != om.API {
			c.add("MODEL_ID_CHANGED", nm.Pos, om.Pos, subj, "model %q's API ID changed from %q to %q", om.Canonical, om.API, nm.API)
		}
	}
	for _, nm := range c.new.Models {
		if c.old.Model(nm.Canonical) == nil {
			c.add("MODEL_ADDED", nm.Pos, model.Pos{}, "model "+nm.Canonical, "model %q was added", nm.Canonical)
		}
	}
	agent := func(s *model.Spec, name string) *model.Agent {
		for _, a := range s.Agents {
			if a.Name == name {
				return a
			}
		}
		return nil
	}
	for _, oa := range c.old.Agents {
		subj := "agent " + oa.Name
		na := agent(c.new, oa.Name)
		if na == nil {
			c.add("AGENT_REMOVED", model.Pos{}, oa.Pos, subj, "agent %q was removed", oa.Name)
			continue
		}
		for _, m := range oa.Models {
			if !slices.ContainsFunc(na.Models, func(x *model.Model) bool { return x.Canonical == m.Canonical }) {
				c.add("AGENT_MODEL_REMOVED", na.Pos, oa.Pos, subj, "agent %q no longer supports model %q", oa.Name, m.Canonical)
			}
		}
		if oa.Default != nil && na.Default != nil && oa.Default.Canonical != na.Default.Canonical {
			c.add("AGENT_DEFAULT_MODEL_CHANGED", na.Pos, oa.Pos, subj, "agent %q's default model changed from %q to %q", oa.Name, oa.Default.Canonical, na.Default.Canonical)
		}
	}
}
