package load

import (
	"strings"

	"cuelang.org/go/cue"

	"github.com/agentc-dev/agentc/gen/breaking"
	"github.com/agentc-dev/agentc/gen/model"
)

// breaking reads the section breaking: the breaking changes this revision
// of the spec accepts. Each acceptance must name a breaking rule and its
// subject by exactly the keys that rule takes (package breaking says
// which), and no two may accept the same findings. Whether an acceptance
// accepts anything depends on the baseline, so agentc breaking says that.
func (l *loader) breaking(root cue.Value, s *model.Spec) {
	bv := lookup(root, cue.Str("breaking"))
	var ids []string
	for _, r := range breaking.Rules {
		if r.Breaking {
			ids = append(ids, r.ID)
		}
	}
	seen := map[string]model.Pos{}
	it, _ := lookup(bv, cue.Str("accept")).List()
	for it.Next() {
		av := it.Value()
		field := func(k string) string { return str(lookup(av, cue.Str(k))) }
		a := &model.Acceptance{Rule: field("rule"), Tool: field("tool"), Field: field("field"), Mode: field("mode"), Model: field("model"),
			Agent: field("agent"), Reason: strings.TrimSpace(field("reason")), Pos: l.vpos(av)}
		if k, msg := breaking.CheckAcceptance(a); msg != "" {
			at := lookup(av, cue.Str("rule"))
			if k != 0 {
				if at = lookup(av, cue.Str(k.String())); !at.Exists() {
					at = av
				}
			}
			if _, known := breaking.LookupRule(a.Rule); !known {
				msg += suggest(a.Rule, ids)
			}
			l.errorf(at, "breaking", "breaking.accept: %s", msg)
			continue
		}
		if a.Reason == "" {
			l.errorf(lookup(av, cue.Str("reason")), "breaking", "breaking.accept: the acceptance of %s needs a reason: why the break is acceptable", breaking.Describe(a))
			continue
		}
		key := breaking.Describe(a)
		if p, dup := seen[key]; dup {
			l.errs.Add(a.Pos, "breaking", "breaking.accept: %s is accepted twice (also at %s)", key, p)
			continue
		}
		seen[key] = a.Pos
		s.Breaking.Accept = append(s.Breaking.Accept, a)
	}
}
