package load

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue"

	"github.com/agentc-dev/agentc/gen/model"
)

// proxy builds what the prompt proxy (seed 002) needs: the proxy settings,
// the modes' per-agent prompt texts, the layered model parameters and the
// experiments. It runs after modes and models are built, since it refers to
// both; params are the prompt parameters' names, sorted.
func (l *loader) proxy(root cue.Value, s *model.Spec, params []string) {
	pv := lookup(root, cue.Str("proxy"))
	at := func(field string) cue.Value { return pv.LookupPath(cue.ParsePath(field)) }
	s.Proxy = model.Proxy{Path: str(at("path")), TimeoutMS: l.integer(at("timeout_ms")), EnvURL: str(at("env.url")),
		EnvMode: str(at("env.mode")), EnvParams: str(at("env.params"))}
	var agents []string
	_ = at("agents").Decode(&agents) // concrete strings, as tools' aliases
	for i, a := range agents {
		if slices.Contains(s.Proxy.Agents, a) {
			l.errorf(lookup(pv, cue.Str("agents"), cue.Index(i)), "duplicate-agent", "proxy.agents lists %q twice", a)
			continue
		}
		s.Proxy.Agents = append(s.Proxy.Agents, a)
	}
	slices.Sort(s.Proxy.Agents)
	l.envNames(pv, "proxy")

	l.agentPrompts(root, s, params)
	l.modelParams(root, s)
	l.experiments(root, s, params)
}

// agentPrompts resolves each mode's per-agent texts, inheriting the parent
// mode's text for the same agent as the prompt itself is inherited.
func (l *loader) agentPrompts(root cue.Value, s *model.Spec, params []string) {
	own := map[*model.Mode]map[string]string{} // each mode's own texts, by agent
	for _, m := range s.Modes {
		own[m] = map[string]string{}
		for name, av := range l.named(lookup(root, cue.Str("modes"), cue.Str(m.Name), cue.Str("agents")), true) {
			pv := lookup(av, cue.Str("prompt"))
			if !l.knownAgent(s, av, name, fmt.Sprintf("mode %q has a prompt for", m.Name)) {
				continue
			}
			text := strings.TrimSpace(l.text(pv))
			own[m][name] = text
			l.checkText(pv, text, params, []*model.Mode{m}, fmt.Sprintf("prompt of mode %q for agent %q", m.Name, name))
		}
	}
	for _, m := range s.Modes {
		// The texts of m and the modes it extends, by agent, the farthest
		// mode's first, however long the chain; a cycle (reported) ends it.
		texts := map[string][]string{}
		lineage, _ := lineageOf(m)
		for _, x := range slices.Backward(lineage) {
			for a, text := range own[x] {
				texts[a] = append(texts[a], text)
			}
		}
		for _, a := range slices.Sorted(maps.Keys(texts)) {
			m.AgentPrompts = append(m.AgentPrompts, &model.AgentPrompt{Agent: a, Prompt: strings.Join(texts[a], "\n\n")})
		}
	}
}

// knownAgent reports whether name is in proxy.agents, recording a finding
// at v when it is not.
func (l *loader) knownAgent(s *model.Spec, v cue.Value, name, what string) bool {
	if slices.Contains(s.Proxy.Agents, name) {
		return true
	}
	l.errorf(v, "unknown-agent", "%s OpenCode agent %q, which is not in proxy.agents%s", what, name, suggest(name, s.Proxy.Agents))
	return false
}

// checkText reports, each at its place in v, the {{placeholders}} of text
// that name no prompt parameter (params, sorted), and the tools text
// mentions although one of modes does not let its prompt mention them.
func (l *loader) checkText(v cue.Value, text string, params []string, modes []*model.Mode, what string) {
	for _, ph := range model.Placeholder.FindAllStringSubmatch(text, -1) {
		if slices.Contains(params, ph[1]) {
			continue
		}
		pos := l.textPos(v, func(raw string) int { return strings.Index(raw, ph[0]) })
		if l.spacedPlaceholder(pos, ph[1], what) {
			continue
		}
		hint := ""
		if k := closest(ph[1], params); k != "" {
			hint = fmt.Sprintf("; did you mean {{%s}}?", k)
		}
		l.errs.Add(pos, "placeholder", "%s uses {{%s}}, which is not in prompt_params%s", what, ph[1], hint)
	}
	for _, m := range modes {
		for _, ts := range m.Standings {
			if l.clashed[ts.Tool] || ts.Standing.Mentionable() || !Mentions(text, ts.Tool) {
				continue
			}
			pos := l.textPos(v, func(raw string) int { return mentionIndex(raw, ts.Tool) })
			l.errs.Add(pos, "prompt-mentions-tool", "%s mentions tool %q, which is %s in mode %q", what, ts.Tool.Name, ts.Standing, m.Name)
		}
	}
}

// modelParams builds the parameter layers.
func (l *loader) modelParams(root cue.Value, s *model.Spec) {
	mv := lookup(root, cue.Str("model_params"))
	mp := &s.ModelParams
	mp.Default = l.params(mv)
	modeLayers := func(v cue.Value, where string) []*model.ModeLayer {
		var out []*model.ModeLayer
		for name, pv := range l.named(lookup(v, cue.Str("modes")), true) {
			m := l.knownMode(s, pv, name, where+" names")
			if m == nil {
				continue
			}
			out = append(out, &model.ModeLayer{Mode: m, Params: l.params(pv)})
		}
		slices.SortFunc(out, func(a, b *model.ModeLayer) int { return cmp.Compare(a.Mode.Name, b.Mode.Name) })
		return out
	}
	for id, pv := range l.named(lookup(mv, cue.Str("models")), false) {
		m := s.Model(id)
		if m == nil {
			l.errorf(pv, "unknown-model", "model_params.models names model %q, which is not in the registry%s", id, suggest(id, modelIDs(s)))
			continue
		}
		mp.Models = append(mp.Models, &model.ModelLayer{Model: m, Params: l.params(pv),
			Modes: modeLayers(pv, fmt.Sprintf("model_params.models.%q.modes", id))})
	}
	slices.SortFunc(mp.Models, func(a, b *model.ModelLayer) int { return cmp.Compare(a.Model.Canonical, b.Model.Canonical) })
	mp.Modes = modeLayers(mv, "model_params.modes")
}

// params reads one #Params layer at v.
func (l *loader) params(v cue.Value) model.Params {
	var p model.Params
	if f, err := lookup(v, cue.Str("temperature")).Float64(); err == nil {
		p.Temperature = &f
	}
	if f, err := lookup(v, cue.Str("top_p")).Float64(); err == nil {
		p.TopP = &f
	}
	if ov := lookup(v, cue.Str("options")); ov.Exists() {
		if b, ok := l.concreteJSON(ov, "model-params"); ok {
			// An object, as the metaschema says; each option's JSON as
			// concreteJSON wrote it, keys sorted.
			_ = json.Unmarshal(b, &p.Options)
		}
	}
	return p
}

// experiments builds the experiments and checks their references and
// weights.
func (l *loader) experiments(root cue.Value, s *model.Spec, params []string) {
	for name, ev := range l.named(lookup(root, cue.Str("experiments")), true) {
		e := &model.Experiment{Name: name, Pos: l.vpos(ev)}
		lit, _ := lookup(ev, cue.Str("modes")).List()
		for lit.Next() {
			name := str(lit.Value())
			m := l.knownMode(s, lit.Value(), name, fmt.Sprintf("experiment %q runs in", e.Name))
			switch {
			case m == nil:
			case slices.Contains(e.Modes, m):
				l.errorf(lit.Value(), "experiment", "experiment %q lists mode %q twice", e.Name, name)
			default:
				e.Modes = append(e.Modes, m)
			}
		}
		slices.SortFunc(e.Modes, func(a, b *model.Mode) int { return cmp.Compare(a.Name, b.Name) })
		ait, _ := lookup(ev, cue.Str("agents")).List()
		for ait.Next() {
			name := str(ait.Value())
			switch {
			case !l.knownAgent(s, ait.Value(), name, fmt.Sprintf("experiment %q runs for", e.Name)):
			case slices.Contains(e.Agents, name):
				l.errorf(ait.Value(), "experiment", "experiment %q lists agent %q twice", e.Name, name)
			default:
				e.Agents = append(e.Agents, name)
			}
		}
		slices.Sort(e.Agents)
		modes := e.Modes
		if len(modes) == 0 {
			modes = s.Modes
		}
		for name, vv := range l.named(lookup(ev, cue.Str("variants")), true) {
			v := &model.Variant{Name: name}
			v.Weight = l.integer(lookup(vv, cue.Str("weight")))
			pv := lookup(vv, cue.Str("prompt"))
			v.Prompt = strings.TrimSpace(l.text(pv))
			l.checkText(pv, v.Prompt, params, modes, fmt.Sprintf("prompt of variant %q of experiment %q", v.Name, e.Name))
			v.Params = l.params(lookup(vv, cue.Str("params")))
			e.TotalWeight += v.Weight
			e.Variants = append(e.Variants, v)
		}
		slices.SortFunc(e.Variants, func(a, b *model.Variant) int { return cmp.Compare(a.Name, b.Name) })
		switch {
		case len(e.Variants) == 0:
			l.errs.Add(e.Pos, "experiment-weight", "experiment %q has no variants", e.Name)
		case e.TotalWeight == 0:
			l.errs.Add(e.Pos, "experiment-weight", "experiment %q has a total weight of 0: no session could be allocated", e.Name)
		case e.TotalWeight > maxTotalWeight:
			l.errs.Add(e.Pos, "experiment-weight", "experiment %q has a total weight of %d; keep it at most %d", e.Name, e.TotalWeight, maxTotalWeight)
		}
		s.Experiments = append(s.Experiments, e)
	}
	slices.SortFunc(s.Experiments, func(a, b *model.Experiment) int { return cmp.Compare(a.Name, b.Name) })
}

// envName is an environment variable name the plugin can read.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxTotalWeight bounds an experiment's total weight, so that the hash
// modulo the total stays close to uniform (2^32 / 10^6 buckets each).
const maxTotalWeight = 1_000_000
