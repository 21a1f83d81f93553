package agentrt

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// PromptService describes a contract's prompt proxy (seed 002) to the
// runtime: what its Resolve, Decode and Serve need of the spec. The
// generated package fills one in (PromptDescriptor); M is the generated
// Mode type, P the generated PromptParams.
type PromptService[M ~string, P any] struct {
	// Modes are the contract's modes; Default is the mode of a request
	// that names none (selection.default).
	Modes   []M
	Default M
	// Params reads the prompt parameters from metadata.params; a missing
	// one is "".
	Params func(values map[string]string) P
	// System is the generated BuildSystemPrompt: the mode's prompt, or the
	// custom text followed by the mode's critical instructions.
	System func(m M, p P, custom string) (string, error)
	// Agents are the modes' texts by OpenCode agent.
	Agents map[M]map[string]func(P) string
	// Layers are model_params' layers in precedence order: defaults,
	// models, modes, models and modes.
	Layers []ParamLayer[M]
	// Experiments are the experiments in name order.
	Experiments []Experiment[M, P]
}

// ParamLayer is one layer of model parameters.
type ParamLayer[M ~string] struct {
	// Model is the OpenCode ID (provider/model) of the model the layer
	// applies to; "" for every model.
	Model string
	// Mode is the mode the layer applies to; "" for every mode.
	Mode   M
	Params SamplingParams
}

// Experiment is an experiment of the prompt proxy: it applies to a
// session of one of Modes (any when empty) whose agent is one of Agents
// (any when empty).
type Experiment[M ~string, P any] struct {
	Name   string
	Modes  []M
	Agents []string
	// Variants are in name order.
	Variants []Variant[P]
}

// Variant is one variant of an experiment: its prompt (nil for none),
// appended to the system prompt, and its parameters, laid over the
// layers'.
type Variant[P any] struct {
	Name   string
	Weight uint32
	Prompt func(P) string
	Params SamplingParams
}

// PromptRequest is the body of a request to the prompt service (seed
// 002), with the mode, model and prompt parameters in Metadata.
type PromptRequest struct {
	// SessionID is OpenCode's session ID; experiments are allocated by it.
	SessionID string `json:"sessionID"`
	// Agent is the OpenCode agent (build, plan, …); "" for none.
	Agent string `json:"agent"`
	// User is the user message: its own system text (a custom prompt) and parts.
	User PromptUser `json:"user"`
	// Metadata describes the session.
	Metadata PromptMetadata `json:"metadata"`
}

// PromptUser is the user message of a PromptRequest.
type PromptUser struct {
	// System is the message's own system text; when not blank it is the
	// session's custom prompt, followed by the mode's critical instructions.
	System string `json:"system"`
	// Parts are the message's parts, as OpenCode has them.
	Parts []json.RawMessage `json:"parts"`
}

// PromptMetadata describes the session of a PromptRequest.
type PromptMetadata struct {
	// Project is OpenCode's project ID.
	Project string `json:"project"`
	// Directory is the session's working directory.
	Directory string `json:"directory"`
	// Mode is the session's mode; "" means the default mode.
	Mode string `json:"mode"`
	// Model is the message's model as OpenCode names it (provider/model);
	// a model outside the registry gets no per-model parameters.
	Model string `json:"model"`
	// Params holds the prompt parameters' values by name.
	Params map[string]string `json:"params"`
}

// SamplingParams are model parameters for OpenCode's chat.params; a nil
// field is left to OpenCode.
type SamplingParams struct {
	Temperature *float64                   `json:"temperature,omitempty"`
	TopP        *float64                   `json:"topP,omitempty"`
	Options     map[string]json.RawMessage `json:"options"`
}

// Float returns a pointer to f, for a SamplingParams literal.
func Float(f float64) *float64 { return &f }

// merge lays over's fields over p's; options merge key by key.
func (p SamplingParams) merge(over SamplingParams) SamplingParams {
	p.Temperature, p.TopP = cmp.Or(over.Temperature, p.Temperature), cmp.Or(over.TopP, p.TopP)
	if len(over.Options) > 0 {
		opts := make(map[string]json.RawMessage, len(p.Options)+len(over.Options))
		maps.Copy(opts, p.Options)
		maps.Copy(opts, over.Options)
		p.Options = opts
	}
	return p
}

// PromptResponse is the prompt service's answer (seed 002), with the
// variant of every experiment that applied.
type PromptResponse struct {
	// System is the authoritative system prompt.
	System string `json:"system"`
	// Parts are synthetic parts to inject (none, from the spec).
	Parts []json.RawMessage `json:"parts"`
	// Params are the model parameters.
	Params SamplingParams `json:"params"`
	// Experiments maps each applicable experiment to the session's variant.
	Experiments map[string]string `json:"experiments"`
}

// ExperimentID names the session's variants, "experiment=variant" joined
// by commas in experiment (name) order; "" when no experiment applied.
func (r PromptResponse) ExperimentID() string {
	var ids []string
	for _, e := range slices.Sorted(maps.Keys(r.Experiments)) {
		ids = append(ids, e+"="+r.Experiments[e])
	}
	return strings.Join(ids, ",")
}

// AllocationHash is the 32-bit FNV-1a hash of s's bytes: the experiment
// allocation hash, the same in the generated OpenCode plugin.
func AllocationHash(s string) uint32 {
	h := fnv.New32a()
	io.WriteString(h, s)
	return h.Sum32()
}

// mix is MurmurHash3's 32-bit finalizer, which allocation applies to
// AllocationHash so that experiments allocate independently: FNV-1a's low
// bits depend only on the bytes' low bits (h % 2 is the parity of the odd
// bytes), and its high bits under two experiment names move together for
// sequential session IDs.
func mix(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// Allocate returns the session's variant of the named experiment: the
// variant whose cumulative weight range, in name order, holds
// mix(AllocationHash(experiment + ":" + sessionID)) scaled to the total
// weight (h * total >> 32). It reports false for an unknown experiment or
// one without weight.
func (s *PromptService[M, P]) Allocate(experiment, sessionID string) (string, bool) {
	for i := range s.Experiments {
		if e := &s.Experiments[i]; e.Name == experiment {
			if v := e.allocate(sessionID); v != nil {
				return v.Name, true
			}
		}
	}
	return "", false
}

func (e *Experiment[M, P]) allocate(sessionID string) *Variant[P] {
	var total uint32
	for _, v := range e.Variants {
		total += v.Weight
	}
	if total == 0 {
		return nil
	}
	// point < total, which is at most the weights' sum (less when the sum
	// wraps around), so some variant's cumulative range holds it.
	point := uint32(uint64(mix(AllocationHash(e.Name+":"+sessionID))) * uint64(total) >> 32)
	i := 0
	for point >= e.Variants[i].Weight {
		point -= e.Variants[i].Weight
		i++
	}
	return &e.Variants[i]
}

// PromptRequestError is a request the prompt service cannot answer.
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

// Decode parses and checks a request body as JSON.parse reads the one
// the plugin sends: keys are case-sensitive, the last of a repeated key
// counts and other keys are ignored. It must be a JSON object with a
// non-empty sessionID, fields of the right types (absent ones are empty)
// and, when it names one, one of the contract's modes. The error is a
// *PromptRequestError naming the first offending field by its path, down
// to a prompt parameter's key (metadata.params.repoName).
func (s *PromptService[M, P]) Decode(body []byte) (PromptRequest, error) {
	var req PromptRequest
	d := Decoder{data: body}
	d.Object([]string{"sessionID", "agent", "user", "metadata"}, nil, func(i int) {
		switch i {
		case 0:
			d.Str(&req.SessionID)
		case 1:
			d.Str(&req.Agent)
		case 2:
			req.User = PromptUser{}
			d.Object([]string{"system", "parts"}, nil, func(i int) {
				if i == 0 {
					d.Str(&req.User.System)
					return
				}
				req.User.Parts = nil
				Array(&d, &req.User.Parts, func(part *json.RawMessage) {
					d.peek()
					start := d.pos
					d.skip()
					*part = slices.Clone(body[start:d.pos])
				})
			})
		case 3:
			m := &req.Metadata
			*m = PromptMetadata{}
			d.Object([]string{"project", "directory", "mode", "model", "params"}, nil, func(i int) {
				if i < 4 {
					d.Str([]*string{&m.Project, &m.Directory, &m.Mode, &m.Model}[i])
					return
				}
				m.Params = nil
				d.stringMap(&m.Params)
			})
		}
	})
	switch err := d.End().(type) {
	case *SyntaxError:
		return req, &PromptRequestError{Msg: fmt.Sprintf("the body is not valid JSON (offset %d): %s", err.Offset, err.Msg)}
	case Issues: // each an invalid_type: "…: expected <Expected>, received <kind>"
		_, got, _ := strings.Cut(err[0].Message, ", received ")
		article := "a "
		if err[0].Expected != "string" {
			article = "an " // object, array
		}
		if len(err[0].Path) == 0 {
			return req, &PromptRequestError{Msg: "the body must be a JSON object, not " + got}
		}
		return req, &PromptRequestError{Field: err[0].pathText(), Msg: "must be " + article + err[0].Expected + ", not " + got}
	}
	if strings.TrimSpace(req.SessionID) == "" {
		return req, &PromptRequestError{Field: "sessionID", Msg: "is required"}
	}
	_, err := s.mode(req)
	return req, err
}

// stringMap decodes an object of strings into *m, the path at each key; the
// last of a repeated key counts, with its issues.
func (d *Decoder) stringMap(m *map[string]string) {
	more, ok := d.open('{', kindObject)
	if ok {
		*m = map[string]string{}
	}
	start := len(d.issues)
	for more {
		key := string(d.key(0))
		if _, repeated := (*m)[key]; repeated {
			d.dropIssues(start, d.depth, key)
		}
		d.push(pathElem{key: key, index: -1})
		var v string
		d.Str(&v)
		(*m)[key] = v
		d.pop()
		more = d.next('}') // false after a syntax error
	}
}

// mode returns the mode req names, or the default when it names none; the
// error is a *PromptRequestError for a mode the contract lacks.
func (s *PromptService[M, P]) mode(req PromptRequest) (M, error) {
	m := M(req.Metadata.Mode)
	if m == "" {
		return s.Default, nil
	}
	if !slices.Contains(s.Modes, m) {
		var known []string
		for _, m := range s.Modes {
			known = append(known, string(m))
		}
		msg := fmt.Sprintf("unknown mode %q (want one of %s)", m, strings.Join(known, ", "))
		return m, &PromptRequestError{Field: "metadata.mode", Msg: msg}
	}
	return m, nil
}

// Resolve answers a request from the spec: the system prompt (the mode's,
// or the user's custom system text followed by the mode's critical
// instructions; then the mode's text for the agent; then each applicable
// variant's prompt, blank-line separated) and the parameters (the layers,
// then the variants').
func (s *PromptService[M, P]) Resolve(req PromptRequest) (PromptResponse, error) {
	mode, err := s.mode(req)
	if err != nil {
		return PromptResponse{}, err
	}
	p := s.Params(req.Metadata.Params)
	system, err := s.System(mode, p, req.User.System)
	if err != nil {
		return PromptResponse{}, err
	}
	if text := s.Agents[mode][req.Agent]; text != nil {
		if add := text(p); add != "" {
			system += "\n\n" + add
		}
	}
	var params SamplingParams
	for _, l := range s.Layers {
		if (l.Model == "" || l.Model == req.Metadata.Model) && (l.Mode == "" || l.Mode == mode) {
			params = params.merge(l.Params)
		}
	}
	resp := PromptResponse{Parts: []json.RawMessage{}, Experiments: map[string]string{}}
	for i := range s.Experiments {
		e := &s.Experiments[i]
		if len(e.Modes) > 0 && !slices.Contains(e.Modes, mode) || len(e.Agents) > 0 && !slices.Contains(e.Agents, req.Agent) {
			continue
		}
		v := e.allocate(req.SessionID)
		if v == nil {
			continue
		}
		resp.Experiments[e.Name] = v.Name
		if v.Prompt != nil {
			system += "\n\n" + v.Prompt(p)
		}
		params = params.merge(v.Params)
	}
	if params.Options == nil {
		params.Options = map[string]json.RawMessage{}
	}
	resp.System, resp.Params = system, params
	return resp, nil
}

// maxPromptBody bounds a prompt request's body, in bytes.
const maxPromptBody = 4 << 20

// Serve answers one request to the prompt service: a POST's PromptRequest
// with Resolve's PromptResponse; a malformed request (or a body over 4
// MiB) with 400, another method with 405, each with
// {"error":{"code":…,"message":…}}. It logs every request to logger (nil
// means slog.Default()) with its sessionID and experimentID.
func (s *PromptService[M, P]) Serve(w http.ResponseWriter, r *http.Request, logger *slog.Logger) {
	began := time.Now()
	logger = cmp.Or(logger, slog.Default())
	fail := func(status int, code, sessionID string, err error) {
		logger.LogAttrs(r.Context(), slog.LevelWarn, "prompt request rejected",
			slog.String("sessionID", sessionID), slog.String("experimentID", ""),
			slog.Int("status", status), slog.String("error", err.Error()), slog.Duration("duration", time.Since(began)))
		writePromptJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": err.Error()}})
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(http.StatusMethodNotAllowed, "method_not_allowed", "", fmt.Errorf("%s %s: use POST", r.Method, r.URL.Path))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPromptBody))
	if err != nil {
		fail(http.StatusBadRequest, "bad_request", "", fmt.Errorf("reading the body: %w", err))
		return
	}
	req, err := s.Decode(body)
	if err != nil {
		fail(http.StatusBadRequest, "bad_request", req.SessionID, err)
		return
	}
	resp, err := s.Resolve(req)
	if err != nil {
		fail(http.StatusBadRequest, "bad_request", req.SessionID, err)
		return
	}
	logger.LogAttrs(r.Context(), slog.LevelInfo, "prompt served",
		slog.String("sessionID", req.SessionID), slog.String("experimentID", resp.ExperimentID()),
		slog.String("agent", req.Agent), slog.String("mode", req.Metadata.Mode), slog.String("model", req.Metadata.Model),
		slog.Int("status", http.StatusOK), slog.Duration("duration", time.Since(began)))
	writePromptJSON(w, http.StatusOK, resp)
}

func writePromptJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"encoding the answer failed"}}`)
	}
	writeJSON(w, status, b)
}
