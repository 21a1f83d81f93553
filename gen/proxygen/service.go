package proxygen

import (
	"bytes"
	"fmt"
	"go/format"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
)

// goParams renders a parameter layer as a SamplingParams literal.
func goParams(p model.Params) string {
	var fields []string
	if p.Temperature != nil {
		fields = append(fields, "Temperature: agentrt.Float("+float(*p.Temperature)+")")
	}
	if p.TopP != nil {
		fields = append(fields, "TopP: agentrt.Float("+float(*p.TopP)+")")
	}
	if len(p.Options) > 0 {
		var opts []string
		for _, k := range slices.Sorted(maps.Keys(p.Options)) {
			opts = append(opts, strconv.Quote(k)+": json.RawMessage("+strconv.Quote(string(p.Options[k]))+"),\n")
		}
		fields = append(fields, "Options: map[string]json.RawMessage{\n"+strings.Join(opts, "")+"}")
	}
	return "SamplingParams{" + strings.Join(fields, ", ") + "}"
}

func modeConst(m *model.Mode) string { return "Mode" + m.GoName }

// goPrompt renders a prompt template, after first, as a func(PromptParams) string.
func goPrompt(s *model.Spec, text string, first ...string) string {
	parts := template(s, text, strconv.Quote, func(p *model.PromptParam) string { return "p." + p.GoName }, first...)
	return "func(p PromptParams) string { return " + strings.Join(parts, " + ") + " }"
}

// list writes a descriptor field, open, elems and close, unless there are
// no elems.
func list(w func(string, ...any), open string, elems []string, close string) {
	if len(elems) > 0 {
		w("\t%s{\n%s,\n%s\n", open, strings.Join(elems, ",\n"), close)
	}
}

// service returns proxy.go: what the spec decides of the prompt service —
// its path and timeout, and PromptDescriptor, the descriptor the runtime's
// agentrt.PromptService is — with the package API that wraps the runtime.
// Its identifiers are prefixed (Prompt…, Sampling…) so that none collides
// with the names emitter "go" declares.
func service(s *model.Spec) ([]byte, error) {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("// PromptProxyPath is the prompt service's route (proxy.path); serve it for POST.\nconst PromptProxyPath = %s\n\n", strconv.Quote(s.Proxy.Path))
	w("// PromptProxyTimeout is how long the plugin waits for the service (proxy.timeout_ms).\nconst PromptProxyTimeout = %d * time.Millisecond\n\n", s.Proxy.TimeoutMS)
	w("// PromptDescriptor describes this contract's prompt proxy to its runtime (package\n" +
		"// agentrt): the prompt parameters, the agents' texts, model_params' layers in\n" +
		"// precedence order (defaults, models, modes, models and modes) and the experiments.\n")
	w("var PromptDescriptor = agentrt.PromptService[Mode, PromptParams]{\n\tModes: Modes(),\n\tDefault: %s,\n", modeConst(s.Selection.Default))
	var values []string
	for _, p := range s.PromptParams {
		values = append(values, p.GoName+": v["+strconv.Quote(p.Name)+"]")
	}
	w("\tParams: func(v map[string]string) PromptParams {\n\t\treturn PromptParams{%s}\n\t},\n\tSystem: BuildSystemPrompt,\n", strings.Join(values, ", "))
	var agents []string
	for _, m := range s.Modes {
		var texts []string
		for _, a := range m.AgentPrompts {
			call, text := inherited(m, a, "a", modeConst)
			texts = append(texts, strconv.Quote(a.Agent)+": "+goPrompt(s, text, call...))
		}
		if len(texts) > 0 {
			agents = append(agents, modeConst(m)+": {\n"+strings.Join(texts, ",\n")+",\n}")
		}
	}
	list(w, "Agents: func() (a map[Mode]map[string]func(PromptParams) string) {\n"+
		"// A mode's text calls its parent's through a, this map (PromptDescriptor naming itself is an initialization cycle).\n"+
		"return map[Mode]map[string]func(PromptParams) string", agents, "}\n}(),")
	options := false
	var ls []string
	for _, l := range layers(s) {
		var fields []string
		if l.model != nil {
			fields = append(fields, "Model: "+strconv.Quote(l.model.OpenCode))
		}
		if l.mode != nil {
			fields = append(fields, "Mode: "+modeConst(l.mode))
		}
		ls = append(ls, "{"+strings.Join(append(fields, "Params: "+goParams(l.params)), ", ")+"}")
		options = options || len(l.params.Options) > 0
	}
	list(w, "Layers: []agentrt.ParamLayer[Mode]", ls, "},")
	var es []string
	for _, e := range s.Experiments {
		fields := []string{"Name: " + strconv.Quote(e.Name)}
		if len(e.Modes) > 0 {
			var ms []string
			for _, m := range e.Modes {
				ms = append(ms, modeConst(m))
			}
			fields = append(fields, "Modes: []Mode{"+strings.Join(ms, ", ")+"}")
		}
		if len(e.Agents) > 0 {
			fields = append(fields, fmt.Sprintf("Agents: %#v", e.Agents)) // a []string literal
		}
		var vs []string
		for _, v := range e.Variants {
			vf := []string{"Name: " + strconv.Quote(v.Name), "Weight: " + strconv.Itoa(v.Weight)}
			if v.Prompt != "" {
				vf = append(vf, "Prompt: "+goPrompt(s, v.Prompt))
			}
			if !v.Params.IsZero() {
				vf = append(vf, "Params: "+goParams(v.Params))
			}
			vs = append(vs, "{"+strings.Join(vf, ", ")+"}")
			options = options || len(v.Params.Options) > 0
		}
		fields = append(fields, "Variants: []agentrt.Variant[PromptParams]{\n"+strings.Join(vs, ",\n")+",\n}")
		es = append(es, "{"+strings.Join(fields, ", ")+"}")
	}
	list(w, "Experiments: []agentrt.Experiment[Mode, PromptParams]", es, "},")
	w("}\n\n")
	b.WriteString(serviceAPI)

	var src bytes.Buffer
	fmt.Fprintf(&src, "// %s\n// %s\n\npackage %s\n\nimport (\n", emit.Header, emit.SourceLine(s), s.Codegen.GoPackage)
	if options {
		src.WriteString("\t\"encoding/json\"\n")
	}
	fmt.Fprintf(&src, "\t\"log/slog\"\n\t\"net/http\"\n\t\"time\"\n\n\t%s\n)\n\n", strconv.Quote(s.Codegen.RuntimeImport()))
	src.Write(b.Bytes())
	out, err := format.Source(src.Bytes())
	if err != nil {
		return nil, fmt.Errorf("proxy: formatting %s: %v\n%s", goFile, err, src.Bytes())
	}
	return out, nil
}

// serviceAPI is the package API over the runtime's prompt service: the
// names users of the generated package call.
const serviceAPI = `// PromptRequest is the body of POST PromptProxyPath (see agentrt.PromptRequest).
type PromptRequest = agentrt.PromptRequest

// PromptUser is the user message of a PromptRequest.
type PromptUser = agentrt.PromptUser

// PromptMetadata describes the session of a PromptRequest.
type PromptMetadata = agentrt.PromptMetadata

// SamplingParams are model parameters for OpenCode's chat.params.
type SamplingParams = agentrt.SamplingParams

// PromptResponse is the service's answer (see agentrt.PromptResponse).
type PromptResponse = agentrt.PromptResponse

// PromptRequestError is a request the service cannot answer.
type PromptRequestError = agentrt.PromptRequestError

// AllocateVariant returns the session's variant of the named experiment, or false for
// an unknown experiment (see agentrt.PromptService.Allocate).
func AllocateVariant(experiment, sessionID string) (string, bool) {
	return PromptDescriptor.Allocate(experiment, sessionID)
}

// DecodePromptRequest parses and checks a request body; the error is a
// *PromptRequestError (see agentrt.PromptService.Decode).
func DecodePromptRequest(body []byte) (PromptRequest, error) {
	return PromptDescriptor.Decode(body)
}

// ResolvePrompt answers a request from the spec: the system prompt and the model
// parameters (see agentrt.PromptService.Resolve).
func ResolvePrompt(req PromptRequest) (PromptResponse, error) {
	return PromptDescriptor.Resolve(req)
}

// PromptHandler serves POST PromptProxyPath: it answers a PromptRequest with
// ResolvePrompt's PromptResponse, a malformed request with 400, and logs every request
// with its sessionID and experimentID (see agentrt.PromptService.Serve).
type PromptHandler struct {
	// Logger receives one record per request; nil means slog.Default().
	Logger *slog.Logger
}

// ServeHTTP implements http.Handler.
func (h *PromptHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	PromptDescriptor.Serve(w, r, h.Logger)
}
`
