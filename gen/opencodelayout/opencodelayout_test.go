package opencodelayout_test

import (
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// TestConfigModel: opencode.json's model is the default model of the
// agent called "opencode", else of the only agent; with several agents
// and none so called there is no model, which Config says.
func TestConfigModel(t *testing.T) {
	agent := func(name, id string) *model.Agent {
		return &model.Agent{Name: name, Default: &model.Model{OpenCode: id}}
	}
	for _, c := range []struct {
		name   string
		agents []*model.Agent
		want   string // the model, or the start of the error
	}{
		{"opencode among others", []*model.Agent{agent("a", "p/a"), agent("opencode", "p/oc"), agent("z", "p/z")}, "p/oc"},
		{"the only agent", []*model.Agent{agent("solo", "p/solo")}, "p/solo"},
		{"none called opencode", []*model.Agent{agent("a", "p/a"), agent("b", "p/b")}, "opencode.json needs a model"},
	} {
		s := &model.Spec{Agents: c.agents}
		s.OpenCode.Config = []byte(`{"theme":"x"}`)
		cfg, err := opencodelayout.Config(s)
		switch {
		case err != nil:
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			}
		case cfg["model"] != c.want || cfg["theme"] != "x":
			t.Errorf("%s: config %v, want model %q beside the spec's theme", c.name, cfg, c.want)
		}
	}
}
