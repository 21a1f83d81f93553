package proxygen

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/tslayout"
)

// tsParams renders a parameter layer as a TypeScript ModelParams literal.
func tsParams(p model.Params) string {
	var fields []string
	if p.Temperature != nil {
		fields = append(fields, "temperature: "+float(*p.Temperature))
	}
	if p.TopP != nil {
		fields = append(fields, "topP: "+float(*p.TopP))
	}
	if len(p.Options) > 0 {
		var opts []string
		for _, k := range slices.Sorted(maps.Keys(p.Options)) {
			// JSON.parse keeps an option (or a key below one) called
			// __proto__; an object literal must say so.
			opts = append(opts, js.Key(k)+": "+js.Literal(p.Options[k]))
		}
		fields = append(fields, "options: { "+strings.Join(opts, ", ")+" }")
	}
	if len(fields) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(fields, ", ") + " }"
}

// tsFunc lays out prompt template text as a prompt function after head
// ("coding: ", at indent) and before tail: `(p) => …` on one line when it
// fits, else the parts of its concatenation one per line. One without
// placeholders takes no parameter (tsc --noUnusedParameters).
func tsFunc(s *model.Spec, indent, head, text, tail string, first ...string) string {
	parts := template(s, text, tslayout.String, func(p *model.PromptParam) string { return "p." + p.TSName }, first...)
	arrow := "() => "
	if slices.ContainsFunc(parts, func(part string) bool { return !strings.HasPrefix(part, `"`) }) {
		arrow = "(p) => " // a part that is no literal reads p
	}
	return tslayout.Concat(indent, head+arrow, parts, tail)
}

func jsList(vs []string) string { return "[" + strings.Join(tslayout.Strings(vs), ", ") + "]" }

// Plugin returns the OpenCode plugin module of s.
func Plugin(s *model.Spec) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("// %s\n// %s\n", emit.Header, emit.SourceLine(s))
	b.WriteString(pluginDoc)
	w("\nimport type { Plugin, PluginModule } from %s\n\n", tslayout.String(s.OpenCode.PluginPackage))

	px := s.Proxy
	w("/** The service's route (POST). */\nexport const PROXY_PATH = %s\n", tslayout.String(px.Path))
	w("/** How long chat.message waits for the service before it uses the local defaults. */\nexport const TIMEOUT_MS = %d\n", px.TimeoutMS)
	w("/** The environment variable holding the service's base URL; unset means local defaults only. */\nexport const ENV_URL = %s\n", tslayout.String(px.EnvURL))
	w("/** The environment variable holding the session's mode; unset means DEFAULT_MODE. */\nexport const ENV_MODE = %s\n", tslayout.String(px.EnvMode))
	w("/** The environment variable holding the prompt parameters as a JSON object. */\nexport const ENV_PARAMS = %s\n", tslayout.String(px.EnvParams))
	w("/** The contract revision the local defaults come from. */\nexport const CONTRACT = %s\n", tslayout.String(s.Contract.Name+"@"+s.Contract.Revision))
	w("/** The mode when ENV_MODE is unset (selection.default). */\nexport const DEFAULT_MODE: ModeName = %s\n\n", tslayout.String(s.Selection.Default.Name))

	var modes []string
	for _, m := range s.Modes {
		modes = append(modes, tslayout.String(m.Name))
	}
	w("/** A session mode. */\n%s\n\n", tslayout.Union("", "export type ModeName = ", modes))
	w("/** The values of the prompts' {{placeholders}}. */\nexport interface PromptParams {\n")
	for _, p := range s.PromptParams {
		w("  /** %s */\n  %s: string\n", tslayout.JSDoc(p.Doc), p.TSName)
	}
	w("}\n\n")
	b.WriteString(pluginTypes)

	// Prompts.
	for _, table := range []struct {
		name string
		text func(*model.Mode) string
	}{{"MODE_PROMPTS", func(m *model.Mode) string { return m.Prompt }}, {"CRITICAL", func(m *model.Mode) string { return m.Critical }}} {
		w("\nconst %s: Record<ModeName, (p: PromptParams) => string> = {\n", table.name)
		for _, m := range s.Modes {
			text, first := table.text(m), []string(nil)
			if table.name == "MODE_PROMPTS" && m.Extends != nil {
				// The parent's prompt, called: its text is written once.
				text, first = "\n\n"+m.OwnPrompt, []string{"MODE_PROMPTS[" + tslayout.String(m.Extends.Name) + "](p)"}
			}
			w("  %s\n", tsFunc(s, "  ", m.Name+": ", text, ",", first...))
		}
		w("}\n")
	}
	w("\nconst AGENT_PROMPTS: Record<ModeName, Record<string, (p: PromptParams) => string>> = {\n")
	for _, m := range s.Modes {
		var prompts []string
		for _, a := range m.AgentPrompts {
			call, text := inherited(m, a, "AGENT_PROMPTS", func(m *model.Mode) string { return tslayout.String(m.Name) })
			prompts = append(prompts, tsFunc(s, "    ", tslayout.String(a.Agent)+": ", text, "", call...))
		}
		w("  %s\n", tslayout.Call("  ", m.Name+": { ", prompts, " },"))
	}
	w("}\n\n")

	// Parameters and experiments.
	w("/** model_params' layers in precedence order: defaults, models, modes, models and modes (model: OpenCode ID). */\n")
	w("const PARAM_LAYERS: readonly { model?: string; mode?: ModeName; params: ModelParams }[] = [\n")
	for _, l := range layers(s) {
		var keys []string
		if l.model != nil {
			keys = append(keys, "model: "+tslayout.String(l.model.OpenCode))
		}
		if l.mode != nil {
			keys = append(keys, "mode: "+tslayout.String(l.mode.Name))
		}
		keys = append(keys, "params: "+tsParams(l.params))
		w("  %s\n", tslayout.Call("  ", "{ ", keys, " },"))
	}
	w("]\n\n/** The experiments, by name; variants in name order. */\nexport const EXPERIMENTS: readonly Experiment[] = [\n")
	for _, e := range s.Experiments {
		var ms []string
		for _, m := range e.Modes {
			ms = append(ms, m.Name)
		}
		w("  {\n    name: %s,\n    modes: %s,\n    agents: %s,\n    total: %d,\n    variants: [\n", tslayout.String(e.Name), jsList(ms), jsList(e.Agents), e.TotalWeight)
		for _, v := range e.Variants {
			prompt := "prompt: undefined"
			if v.Prompt != "" {
				prompt = tsFunc(s, "        ", "prompt: ", v.Prompt, "")
			}
			fields := []string{"name: " + tslayout.String(v.Name), fmt.Sprintf("weight: %d", v.Weight), prompt, "params: " + tsParams(v.Params)}
			w("      %s\n", tslayout.Call("      ", "{ ", fields, " },"))
		}
		w("    ],\n  },\n")
	}
	var values []string
	for _, p := range s.PromptParams {
		values = append(values, fmt.Sprintf("%s: own(values, %s) ?? \"\"", p.TSName, tslayout.String(p.Name)))
	}
	param := "values"
	if len(values) == 0 {
		param = "_values" // no prompt parameters (tsc --noUnusedParameters)
	}
	w("]\n\nfunction promptParams(%s: Record<string, string>): PromptParams {\n  return %s\n}\n",
		param, tslayout.Call("  ", "{ ", values, " }"))
	b.WriteString(strings.NewReplacer("PLUGIN_ID", tslayout.String(pluginID), "BLANK", js.Blank()).Replace(pluginCode))
	return b.Bytes()
}

const pluginDoc = `
// The prompt proxy (seed 002). chat.message asks the prompt service for the
// session's system prompt and model parameters (POST PROXY_PATH, within
// TIMEOUT_MS), caches the answer per session and sets the message's system
// text, which OpenCode appends to its own agent prompt; chat.params applies
// the cached temperature, topP and options. Without ENV_URL, or when the
// service times out, fails or answers something malformed, the plugin logs
// why and uses its local defaults: the same resolution as the service,
// generated from the same spec. It never blocks or fails the chat.
//
// Install it as <repo>/.opencode/plugin/agentc-prompt-proxy.ts. It reads
// ENV_MODE (the mode the gateway selected) and ENV_PARAMS (the prompt
// parameters) and sends both in metadata, with the message's model.
`

// pluginTypes are the plugin's declarations that do not depend on the
// spec, written after its spec's constants and types.
//
//go:embed plugin_types.ts
var pluginTypes string

// pluginCode is the plugin's code that does not depend on the spec: it
// reads the tables Plugin writes before it, and the Go service resolves the
// same way. PLUGIN_ID and BLANK stand for the plugin's id and js.Blank().
//
//go:embed plugin_code.ts
var pluginCode string
