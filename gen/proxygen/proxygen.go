// Package proxygen emits the prompt proxy of seed 002 from the spec, the
// one versioned source of system prompts and model parameters.
//
// Emitter "proxy" writes two files:
//
//   - an OpenCode plugin, plugin/agentc-prompt-proxy.ts under
//     codegen.opencode.dir (installed as <repo>/.opencode/plugin/, where
//     OpenCode loads every .ts file as a plugin). Its chat.message hook asks
//     the service (POST proxy.path) for the system prompt and model
//     parameters, within proxy.timeout_ms, caches the answer per session and
//     sets output.message.system; its chat.params hook applies the cached
//     temperature, topP and options. On a timeout, an error or a malformed
//     answer it logs and uses its local defaults: the same resolution,
//     generated from the same spec.
//   - proxy.go in the Go package (codegen.go.dir): PromptDescriptor, what
//     the spec decides of the service, which drives the runtime's
//     agentrt.PromptService (resolving the same way, with the package's
//     Modes and BuildSystemPrompt, emitter "go"'s), and the package API
//     over it (PromptHandler, ResolvePrompt, …).
//
// The resolution, identical on both sides: the mode's system prompt (or the
// message's own system text as a custom prompt, followed by the mode's
// critical instructions), then the mode's text for the OpenCode agent, then
// the prompt of each applicable experiment's variant; parameters are
// model_params' layers (defaults < model < mode < model and mode) and then
// the variants' parameters. A session's variant is picked by FNV-1a 32-bit
// of "<experiment>:<sessionID>", mixed, scaled to the total weight,
// walking the variants in name order.
package proxygen

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// Emitter writes the plugin (opencodelayout.PluginFile under
// codegen.opencode.dir) and the Go service file.
var Emitter = &emit.Emitter{
	Name: "proxy",
	Doc:  "prompt proxy: the OpenCode plugin (chat.message, chat.params) and the Go service handler (POST /prompt)",
	Run:  run,
}

// goFile is the service's file name in the Go package.
const goFile = "proxy.go"

// pluginID is the id the plugin module exports (OpenCode requires one for
// a plugin loaded from a file).
const pluginID = "agentc-prompt-proxy"

func run(p *emit.Pass) ([]emit.File, error) {
	s := p.Spec
	src, err := service(s)
	if err != nil {
		return nil, err
	}
	return []emit.File{
		{Path: path.Join(s.Codegen.OpenCodeDir, opencodelayout.PluginFile), Data: Plugin(s)},
		{Path: path.Join(s.Codegen.GoDir, goFile), Data: src},
	}, nil
}

// template renders a prompt template as the parts of a concatenation in
// either language, after first (a call of the text it extends, if any):
// lit quotes a literal piece, param names a prompt parameter's value.
func template(s *model.Spec, text string, lit func(string) string, param func(*model.PromptParam) string, first ...string) []string {
	parts := first
	for _, p := range s.Template(text) {
		if p.Param != nil {
			parts = append(parts, param(p.Param))
		} else if p.Text != "" || len(parts) == 0 { // an empty text after first adds no `+ ""`
			parts = append(parts, lit(p.Text))
		}
	}
	return parts
}

func float(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// layer is one entry of the flattened parameter layers, in precedence
// order: defaults, models, modes, models and modes.
type layer struct {
	model  *model.Model
	mode   *model.Mode
	params model.Params
}

// layers returns the spec's parameter layers that set anything.
func layers(s *model.Spec) []layer {
	mp := s.ModelParams
	out := []layer{{params: mp.Default}}
	for _, m := range mp.Models {
		out = append(out, layer{model: m.Model, params: m.Params})
	}
	for _, m := range mp.Modes {
		out = append(out, layer{mode: m.Mode, params: m.Params})
	}
	for _, m := range mp.Models {
		for _, x := range m.Modes {
			out = append(out, layer{model: m.Model, mode: x.Mode, params: x.Params})
		}
	}
	return slices.DeleteFunc(out, func(l layer) bool { return l.params.IsZero() })
}

// inherited returns the call of the parent mode's text for a's agent,
// table[key(parent)]["agent"](p), when m extends a mode that has one, and
// the rest of a's text: its own text after a blank line, or nothing. Each
// text is then written once in each file, as the modes' prompts are (a
// mode's agent text is its parent's, then its own: model.AgentPrompt). An
// agent's name is quoted alike in Go and TypeScript (#AgentName: [a-z0-9_-]).
func inherited(m *model.Mode, a *model.AgentPrompt, table string, key func(*model.Mode) string) ([]string, string) {
	if m.Extends != nil {
		if i := slices.IndexFunc(m.Extends.AgentPrompts, func(p *model.AgentPrompt) bool { return p.Agent == a.Agent }); i >= 0 {
			call := table + "[" + key(m.Extends) + "][" + strconv.Quote(a.Agent) + "](p)"
			return []string{call}, strings.TrimPrefix(a.Prompt, m.Extends.AgentPrompts[i].Prompt)
		}
	}
	return nil, a.Prompt
}
