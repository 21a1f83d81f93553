package proxygen_test

import (
	"encoding/json"
	"maps"

	"github.com/agentc-dev/agentc/gen/model"
)

// The resolution the plugin and the service must both implement, computed
// from the model: the tests' oracle for a spec the generated package was
// not generated from.

// merge returns p with over's fields laid over it: a set field replaces,
// options merge key by key.
func merge(p, over model.Params) model.Params {
	out := p
	if over.Temperature != nil {
		out.Temperature = over.Temperature
	}
	if over.TopP != nil {
		out.TopP = over.TopP
	}
	if len(over.Options) > 0 {
		out.Options = make(map[string]json.RawMessage, len(p.Options)+len(over.Options))
		maps.Copy(out.Options, p.Options)
		maps.Copy(out.Options, over.Options)
	}
	return out
}

// resolveParams returns the parameters for a mode and a model (nil for a
// model outside the registry), before experiments: defaults, the model's
// layer, the mode's, the model's layer for the mode.
func resolveParams(mp model.ModelParams, mode *model.Mode, m *model.Model) model.Params {
	p := mp.Default
	var ml *model.ModelLayer
	for _, x := range mp.Models {
		if m != nil && x.Model == m {
			ml = x
			p = merge(p, x.Params)
		}
	}
	for _, x := range mp.Modes {
		if x.Mode == mode {
			p = merge(p, x.Params)
		}
	}
	if ml != nil {
		for _, x := range ml.Modes {
			if x.Mode == mode {
				p = merge(p, x.Params)
			}
		}
	}
	return p
}

// applies reports whether the experiment runs for the mode and agent.
func applies(e *model.Experiment, mode *model.Mode, agent string) bool {
	okMode := len(e.Modes) == 0
	for _, m := range e.Modes {
		okMode = okMode || m == mode
	}
	okAgent := len(e.Agents) == 0
	for _, a := range e.Agents {
		okAgent = okAgent || a == agent
	}
	return okMode && okAgent
}

// allocate returns the variant of the session: FNV-1a 32-bit of
// "<experiment>:<sessionID>" (its UTF-8 bytes), through MurmurHash3's
// finalizer, scaled to the total weight (h * total / 2^32) picks a point
// in the variants' cumulative weight ranges, in name order.
func allocate(e *model.Experiment, sessionID string) *model.Variant {
	if e.TotalWeight <= 0 {
		return nil
	}
	h := fnv1a32(e.Name + ":" + sessionID)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	point := int(uint64(h) * uint64(e.TotalWeight) >> 32)
	for _, v := range e.Variants {
		if point < v.Weight {
			return v
		}
		point -= v.Weight
	}
	return nil
}

// fnv1a32 is the 32-bit FNV-1a hash of s's bytes.
func fnv1a32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
