package proxygen

import (
	"bytes"
	"fmt"
	"go/format"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// goParams renders a parameter layer as a SamplingParams literal.
func goParams(p model.Params) string {
	var fields []string
	if p.Temperature != nil {
		fields = append(fields, "Temperature: proxyFloat("+float(*p.Temperature)+")")
	}
	if p.TopP != nil {
		fields = append(fields, "TopP: proxyFloat("+float(*p.TopP)+")")
	}
	if len(p.Options) > 0 {
		var opts []string
		for _, k := range optionKeys(p) {
			opts = append(opts, strconv.Quote(k)+": json.RawMessage("+strconv.Quote(string(p.Options[k]))+")")
		}
		fields = append(fields, "Options: map[string]json.RawMessage{"+strings.Join(opts, ", ")+"}")
	}
	return "SamplingParams{" + strings.Join(fields, ", ") + "}"
}

func modeConst(m *model.Mode) string { return "Mode" + m.GoName }

// Service returns proxy.go: the prompt service's handler for the Go package.
// Its identifiers are prefixed (Prompt…, Sampling…, proxy…) so that none
// collides with the names emitter "go" declares.
func Service(s *model.Spec) ([]byte, error) {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("// %s\n// %s\n\n", emit.Header, emit.SourceLine(s))
	w("package %s\n\n", s.Codegen.GoPackage)
	w("%s", serviceImports)
	w("// PromptProxyPath is the prompt service's route (proxy.path); serve it for POST.\nconst PromptProxyPath = %s\n\n", strconv.Quote(s.Proxy.Path))
	w("// PromptProxyTimeout is how long the plugin waits for the service (proxy.timeout_ms).\nconst PromptProxyTimeout = %d * time.Millisecond\n\n", s.Proxy.TimeoutMS)

	// Prompt parameters from metadata.params.
	w("// proxyPromptParams reads the prompt parameters from metadata.params; a missing one is \"\".\nfunc proxyPromptParams(v map[string]string) PromptParams {\n\treturn PromptParams{")
	for i, p := range s.PromptParams {
		if i > 0 {
			w(", ")
		}
		w("%s: v[%s]", names.GoExported(p.Name), strconv.Quote(p.Name))
	}
	w("}\n}\n\n")

	// Agent texts.
	w("// proxyAgentPrompt returns the mode's text for the OpenCode agent, or \"\".\nfunc proxyAgentPrompt(m Mode, agent string, p PromptParams) string {\n\tswitch m {\n")
	for _, m := range s.Modes {
		if len(m.AgentPrompts) == 0 {
			continue
		}
		w("\tcase %s:\n\t\tswitch agent {\n", modeConst(m))
		for _, a := range m.AgentPrompts {
			e, err := goTemplate(s, a.Prompt)
			if err != nil {
				return nil, err
			}
			w("\t\tcase %s:\n\t\t\treturn %s\n", strconv.Quote(a.Agent), e)
		}
		w("\t\t}\n")
	}
	w("\t}\n\t_ = p\n\treturn \"\"\n}\n\n")

	// Layers.
	w("// proxyParamLayers are model_params' layers in precedence order: defaults, models, modes, models and modes.\nvar proxyParamLayers = []proxyLayer{\n")
	for _, l := range layers(s) {
		mdl, mode := `""`, `""`
		if l.model != nil {
			mdl = "Model" + l.model.GoName
		}
		if l.mode != nil {
			mode = modeConst(l.mode)
		}
		w("\t{%s, %s, %s},\n", mdl, mode, goParams(l.params))
	}
	w("}\n\n")

	// Experiments.
	w("// proxyExperiments are the experiments by name; variants in name order.\nvar proxyExperiments = []proxyExperiment{\n")
	for _, e := range s.Experiments {
		var ms []string
		for _, m := range e.Modes {
			ms = append(ms, modeConst(m))
		}
		var as []string
		for _, a := range e.Agents {
			as = append(as, strconv.Quote(a))
		}
		w("\t{name: %s, modes: []Mode{%s}, agents: []string{%s}, total: %d, variants: []proxyVariant{\n", strconv.Quote(e.Name), strings.Join(ms, ", "), strings.Join(as, ", "), e.TotalWeight)
		for _, v := range e.Variants {
			prompt := "nil"
			if v.Prompt != "" {
				x, err := goTemplate(s, v.Prompt)
				if err != nil {
					return nil, err
				}
				prompt = "func(p PromptParams) string { return " + x + " }"
			}
			w("\t\t{name: %s, weight: %d, prompt: %s, params: %s},\n", strconv.Quote(v.Name), v.Weight, prompt, goParams(v.Params))
		}
		w("\t}},\n")
	}
	w("}\n\n")
	b.WriteString(strings.ReplaceAll(serviceCode, "ModeDEFAULT_MODE_GO", modeConst(s.Selection.Default)))

	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("proxy: formatting %s: %v\n%s", GoFile, err, b.Bytes())
	}
	return src, nil
}

const serviceImports = `import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
)

`

const serviceCode = `// PromptRequest is the body of POST PromptProxyPath (seed 002), with the
// mode, model and prompt parameters in Metadata.
type PromptRequest struct {
	// SessionID is OpenCode's session ID; experiments are allocated by it.
	SessionID string ` + "`json:\"sessionID\"`" + `
	// Agent is the OpenCode agent (build, plan, …); "" for none.
	Agent string ` + "`json:\"agent\"`" + `
	// User is the user message: its own system text (a custom prompt) and parts.
	User PromptUser ` + "`json:\"user\"`" + `
	// Metadata describes the session.
	Metadata PromptMetadata ` + "`json:\"metadata\"`" + `
}

// PromptUser is the user message of a PromptRequest.
type PromptUser struct {
	// System is the message's own system text; when not blank it is the
	// session's custom prompt, followed by the mode's critical instructions.
	System string ` + "`json:\"system\"`" + `
	// Parts are the message's parts, as OpenCode has them.
	Parts []json.RawMessage ` + "`json:\"parts\"`" + `
}

// PromptMetadata describes the session of a PromptRequest.
type PromptMetadata struct {
	// Project is OpenCode's project ID.
	Project string ` + "`json:\"project\"`" + `
	// Directory is the session's working directory.
	Directory string ` + "`json:\"directory\"`" + `
	// Mode is the session's mode; "" means the default mode.
	Mode string ` + "`json:\"mode\"`" + `
	// Model is the message's model as OpenCode names it (provider/model);
	// a model outside the registry gets no per-model parameters.
	Model string ` + "`json:\"model\"`" + `
	// Params holds the prompt parameters' values by name.
	Params map[string]string ` + "`json:\"params\"`" + `
}

// SamplingParams are model parameters for OpenCode's chat.params; a nil
// field is left to OpenCode.
type SamplingParams struct {
	Temperature *float64                   ` + "`json:\"temperature,omitempty\"`" + `
	TopP        *float64                   ` + "`json:\"topP,omitempty\"`" + `
	Options     map[string]json.RawMessage ` + "`json:\"options\"`" + `
}

// PromptResponse is the service's answer (seed 002), with the variant of
// every experiment that applied.
type PromptResponse struct {
	// System is the authoritative system prompt.
	System string ` + "`json:\"system\"`" + `
	// Parts are synthetic parts to inject (none, from the spec).
	Parts []json.RawMessage ` + "`json:\"parts\"`" + `
	// Params are the model parameters.
	Params SamplingParams ` + "`json:\"params\"`" + `
	// Experiments maps each applicable experiment to the session's variant.
	Experiments map[string]string ` + "`json:\"experiments\"`" + `
}

// ExperimentID names the session's variants, "experiment=variant" joined
// by commas in experiment order; "" when no experiment applied.
func (r PromptResponse) ExperimentID() string {
	var ids []string
	for _, e := range proxyExperiments {
		if v, ok := r.Experiments[e.name]; ok {
			ids = append(ids, e.name+"="+v)
		}
	}
	return strings.Join(ids, ",")
}

type proxyLayer struct {
	model  ModelID
	mode   Mode
	params SamplingParams
}

type proxyVariant struct {
	name   string
	weight uint32
	prompt func(PromptParams) string
	params SamplingParams
}

type proxyExperiment struct {
	name     string
	modes    []Mode
	agents   []string
	total    uint32
	variants []proxyVariant
}

func proxyFloat(f float64) *float64 { return &f }

// merge lays over's fields over p's; options merge key by key.
func (p SamplingParams) merge(over SamplingParams) SamplingParams {
	out := p
	if over.Temperature != nil {
		out.Temperature = over.Temperature
	}
	if over.TopP != nil {
		out.TopP = over.TopP
	}
	if len(over.Options) > 0 {
		opts := make(map[string]json.RawMessage, len(p.Options)+len(over.Options))
		for k, v := range p.Options {
			opts[k] = v
		}
		for k, v := range over.Options {
			opts[k] = v
		}
		out.Options = opts
	}
	return out
}

// AllocationHash is the 32-bit FNV-1a hash of s's bytes: the experiment
// allocation hash, the same in the generated OpenCode plugin.
func AllocationHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// AllocateVariant returns the session's variant of the named experiment:
// the variant whose cumulative weight range, in name order, holds
// AllocationHash(experiment + ":" + sessionID) modulo the total weight. It
// reports false for an unknown experiment.
func AllocateVariant(experiment, sessionID string) (string, bool) {
	for i := range proxyExperiments {
		if e := &proxyExperiments[i]; e.name == experiment {
			if v := e.allocate(sessionID); v != nil {
				return v.name, true
			}
		}
	}
	return "", false
}

func (e *proxyExperiment) allocate(sessionID string) *proxyVariant {
	if e.total == 0 {
		return nil
	}
	point := AllocationHash(e.name+":"+sessionID) % e.total
	for i := range e.variants {
		v := &e.variants[i]
		if point < v.weight {
			return v
		}
		point -= v.weight
	}
	return nil
}

// PromptRequestError is a request the service cannot answer.
type PromptRequestError struct {
	// Field is the offending field's JSON path, like metadata.mode; "" for
	// the body as a whole.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error names the field, when there is one, and what is wrong with it.
func (e *PromptRequestError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// DecodePromptRequest parses and checks a request body: a JSON object with
// a non-empty sessionID and fields of the right types (absent ones are
// empty). The error is a *PromptRequestError.
func DecodePromptRequest(body []byte) (PromptRequest, error) {
	var req PromptRequest
	if err := json.Unmarshal(body, &req); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field == "":
			return req, &PromptRequestError{Msg: "the body must be a JSON object, not " + typeErr.Value}
		case errors.As(err, &typeErr):
			msg := "must be " + proxyJSONKind(typeErr.Type.String()) + ", not " + typeErr.Value
			return req, &PromptRequestError{Field: typeErr.Field, Msg: msg}
		case errors.As(err, &syntaxErr):
			msg := fmt.Sprintf("the body is not valid JSON (offset %d): %v", syntaxErr.Offset, err)
			return req, &PromptRequestError{Msg: msg}
		}
		return req, &PromptRequestError{Msg: "the body is not valid JSON: " + err.Error()}
	}
	if strings.TrimSpace(req.SessionID) == "" {
		return req, &PromptRequestError{Field: "sessionID", Msg: "is required"}
	}
	if req.Metadata.Mode != "" {
		if _, err := ParseMode(req.Metadata.Mode); err != nil {
			var known []string
			for _, m := range Modes() {
				known = append(known, string(m))
			}
			msg := fmt.Sprintf("unknown mode %q (want one of %s)", req.Metadata.Mode, strings.Join(known, ", "))
			return req, &PromptRequestError{Field: "metadata.mode", Msg: msg}
		}
	}
	return req, nil
}

func proxyJSONKind(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "map["), strings.Contains(goType, "Prompt"):
		return "an object"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return goType
}

// ResolvePrompt answers a request from the spec: the system prompt (the
// mode's, or the user's custom system text followed by the mode's critical
// instructions; then the mode's text for the agent; then each applicable
// variant's prompt, blank-line separated) and the parameters (the layers,
// then the variants').
func ResolvePrompt(req PromptRequest) (PromptResponse, error) {
	mode := ` + "Mode" + `DEFAULT_MODE_GO
	if req.Metadata.Mode != "" {
		m, err := ParseMode(req.Metadata.Mode)
		if err != nil {
			return PromptResponse{}, &PromptRequestError{Field: "metadata.mode", Msg: err.Error()}
		}
		mode = m
	}
	var model ModelID
	if m, err := ModelFromOpenCode(req.Metadata.Model); err == nil {
		model = m.ID
	}
	p := proxyPromptParams(req.Metadata.Params)
	system, err := BuildSystemPrompt(mode, p, req.User.System)
	if err != nil {
		return PromptResponse{}, err
	}
	if add := proxyAgentPrompt(mode, req.Agent, p); add != "" {
		system += "\n\n" + add
	}
	var params SamplingParams
	for _, l := range proxyParamLayers {
		if (l.model == "" || l.model == model) && (l.mode == "" || l.mode == mode) {
			params = params.merge(l.params)
		}
	}
	resp := PromptResponse{Parts: []json.RawMessage{}, Experiments: map[string]string{}}
	for i := range proxyExperiments {
		e := &proxyExperiments[i]
		if len(e.modes) > 0 && !slices.Contains(e.modes, mode) || len(e.agents) > 0 && !slices.Contains(e.agents, req.Agent) {
			continue
		}
		v := e.allocate(req.SessionID)
		if v == nil {
			continue
		}
		resp.Experiments[e.name] = v.name
		if v.prompt != nil {
			system += "\n\n" + v.prompt(p)
		}
		params = params.merge(v.params)
	}
	if params.Options == nil {
		params.Options = map[string]json.RawMessage{}
	}
	resp.System, resp.Params = system, params
	return resp, nil
}

// proxyMaxBody bounds a request body.
const proxyMaxBody = 4 << 20

// PromptHandler serves POST PromptProxyPath: it answers a PromptRequest
// with ResolvePrompt's PromptResponse, a malformed request with 400 and
// {"error":{"code":"bad_request","message":…}}, and logs every request with
// its sessionID and experimentID.
type PromptHandler struct {
	// Logger receives one record per request; nil means slog.Default().
	Logger *slog.Logger
}

// ServeHTTP implements http.Handler.
func (h *PromptHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	logger := h.Logger
	if logger == nil {
		logger = slog.Default()
	}
	fail := func(status int, code, sessionID string, err error) {
		logger.LogAttrs(r.Context(), slog.LevelWarn, "prompt request rejected",
			slog.String("sessionID", sessionID), slog.String("experimentID", ""),
			slog.Int("status", status), slog.String("error", err.Error()), slog.Duration("duration", time.Since(began)))
		proxyWriteJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": err.Error()}})
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(http.StatusMethodNotAllowed, "method_not_allowed", "", fmt.Errorf("%s %s: use POST", r.Method, r.URL.Path))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, proxyMaxBody))
	if err != nil {
		fail(http.StatusBadRequest, "bad_request", "", fmt.Errorf("reading the body: %w", err))
		return
	}
	req, err := DecodePromptRequest(body)
	if err != nil {
		fail(http.StatusBadRequest, "bad_request", req.SessionID, err)
		return
	}
	resp, err := ResolvePrompt(req)
	if err != nil {
		fail(http.StatusBadRequest, "bad_request", req.SessionID, err)
		return
	}
	logger.LogAttrs(r.Context(), slog.LevelInfo, "prompt served",
		slog.String("sessionID", req.SessionID), slog.String("experimentID", resp.ExperimentID()),
		slog.String("agent", req.Agent), slog.String("mode", req.Metadata.Mode), slog.String("model", req.Metadata.Model),
		slog.Int("status", http.StatusOK), slog.Duration("duration", time.Since(began)))
	proxyWriteJSON(w, http.StatusOK, resp)
}

func proxyWriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(` + "`" + `{"error":{"code":"internal","message":"encoding the answer failed"}}` + "`" + `)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
`
