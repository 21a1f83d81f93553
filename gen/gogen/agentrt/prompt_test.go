package agentrt_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
)

// A hand-written prompt service, as a generated package describes its
// prompt proxy: modes "full" (the default) and "bare", one prompt
// parameter, an agent text, four parameter layers and two experiments.

type promptParams struct{ Repo string }

var promptService = agentrt.PromptService[mode, promptParams]{
	Modes:   []mode{modeBare, modeFull},
	Default: modeFull,
	Params:  func(v map[string]string) promptParams { return promptParams{Repo: v["repo"]} },
	System: func(m mode, p promptParams, custom string) (string, error) {
		if custom != "" {
			return custom + "\n\ncritical " + string(m), nil
		}
		return "prompt " + string(m) + " of " + p.Repo, nil
	},
	Agents: map[mode]map[string]func(promptParams) string{
		modeFull: {"plan": func(p promptParams) string { return "plan " + p.Repo }},
		modeBare: {"empty": func(promptParams) string { return "" }},
	},
	Layers: []agentrt.ParamLayer[mode]{
		{Params: agentrt.SamplingParams{Temperature: agentrt.Float(0.7), Options: map[string]json.RawMessage{"a": json.RawMessage(`1`)}}},
		{Model: "p/big", Params: agentrt.SamplingParams{TopP: agentrt.Float(0.9)}},
		{Mode: modeFull, Params: agentrt.SamplingParams{Temperature: agentrt.Float(0.5), Options: map[string]json.RawMessage{"b": json.RawMessage(`2`)}}},
		{Model: "p/big", Mode: modeFull, Params: agentrt.SamplingParams{Options: map[string]json.RawMessage{"a": json.RawMessage(`3`)}}},
	},
	Experiments: []agentrt.Experiment[mode, promptParams]{
		{Name: "a-b", Agents: []string{"build"}, Variants: []agentrt.Variant[promptParams]{
			{Name: "only", Weight: 1, Params: agentrt.SamplingParams{TopP: agentrt.Float(0.1)}},
		}},
		{Name: "a", Modes: []mode{modeFull}, Variants: []agentrt.Variant[promptParams]{
			{Name: "x", Weight: 1, Prompt: func(p promptParams) string { return "x for " + p.Repo }},
			{Name: "never", Weight: 0, Prompt: func(promptParams) string { return "never" }},
			{Name: "y", Weight: 3, Params: agentrt.SamplingParams{Temperature: agentrt.Float(0.2)}},
		}},
		{Name: "unweighted", Variants: []agentrt.Variant[promptParams]{{Name: "z", Weight: 0}}},
	},
}

func TestAllocationHash(t *testing.T) {
	// The FNV-1a 32 reference values.
	for s, want := range map[string]uint32{"": 0x811c9dc5, "a": 0xe40c292c, "foobar": 0xbf9cf968} {
		if got := agentrt.AllocationHash(s); got != want {
			t.Errorf("AllocationHash(%q) = %#x, want %#x", s, got, want)
		}
	}
}

// TestAllocate: a session's variant is stable, a variant of weight 0 is
// never picked, the others in proportion to their weights; an unknown
// experiment and one without weight have none.
func TestAllocate(t *testing.T) {
	counts := map[string]int{}
	const n = 4000
	for i := range n {
		id := fmt.Sprintf("ses_%d", i)
		v, ok := promptService.Allocate("a", id)
		again, _ := promptService.Allocate("a", id)
		if !ok || v != again {
			t.Fatalf("session %s: %q (%v), then %q", id, v, ok, again)
		}
		counts[v]++
	}
	if counts["never"] != 0 || counts["x"]+counts["y"] != n {
		t.Errorf("allocation %v: want only x and y", counts)
	}
	// x holds 1/4 of the weight: 1000 expected, 3.5 standard deviations
	// (about 96) either side.
	if x := counts["x"]; x < 900 || x > 1100 {
		t.Errorf("allocation %v: x should have about a quarter", counts)
	}
	for _, e := range []string{"nope", "unweighted"} {
		if v, ok := promptService.Allocate(e, "ses_1"); ok || v != "" {
			t.Errorf("Allocate(%q) = %q, %v; want none", e, v, ok)
		}
	}
}

// session returns an ID whose variant of experiment "a" is want.
func session(t *testing.T, want string) string {
	t.Helper()
	for i := range 100 {
		id := fmt.Sprintf("ses_%s_%d", want, i)
		if v, _ := promptService.Allocate("a", id); v == want {
			return id
		}
	}
	t.Fatalf("no session gets variant %s", want)
	return ""
}

// TestDecodeErrors: a request is read as JSON.parse reads the plugin's
// body: keys are case-sensitive (a "SessionID" is no sessionID) and the
// last of a repeated key counts; a value of the wrong type is named by
// its path, down to the prompt parameter's key.
func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct{ body, field, msg string }{
		{`not json`, "", "the body is not valid JSON (offset 0)"},
		{`{"sessionID":"s"`, "", "the body is not valid JSON (offset 16)"},
		{`[1]`, "", "the body must be a JSON object, not array"},
		{`{"agent":"build"}`, "sessionID", "is required"},
		{`{"sessionID":" \t"}`, "sessionID", "is required"},
		{`{"SessionID":"s","SESSIONID":"s"}`, "sessionID", "is required"},
		{`{"sessionID":"s","sessionID":""}`, "sessionID", "is required"},
		{`{"sessionID":5}`, "sessionID", "must be a string, not number"},
		{`{"sessionID":"s","user":[]}`, "user", "must be an object, not array"},
		{`{"sessionID":"s","user":{"parts":{}}}`, "user.parts", "must be an array, not object"},
		{`{"sessionID":"s","metadata":5}`, "metadata", "must be an object, not number"},
		{`{"sessionID":"s","metadata":{"params":{"repo":"r","n":1}}}`, "metadata.params.n", "must be a string, not number"},
		{`{"sessionID":"s","metadata":{"params":[]}}`, "metadata.params", "must be an object, not array"},
		{`{"sessionID":"s","metadata":{"mode":"Full"}}`, "metadata.mode", `unknown mode "Full" (want one of bare, full)`},
		{`{"sessionID":"s","metadata":{"Mode":"bare","mode":"Full"}}`, "metadata.mode", `unknown mode "Full"`},
	} {
		_, err := promptService.Decode([]byte(c.body))
		var re *agentrt.PromptRequestError
		if !errors.As(err, &re) || re.Field != c.field || !strings.HasPrefix(re.Msg, c.msg) {
			t.Errorf("Decode(%s) = %#v; want field %q, message %q", c.body, err, c.field, c.msg)
			continue
		}
		if want := c.field + ": " + re.Msg; c.field != "" && err.Error() != want || c.field == "" && err.Error() != re.Msg {
			t.Errorf("Decode(%s): Error() = %q", c.body, err)
		}
	}
	req, err := promptService.Decode([]byte(`{"sessionID":"s","agent":"plan","user":{"system":"c","parts":[{"type":"text"}, 1]},` +
		`"metadata":{"mode":"bare","params":{"repo":1,"repo":"r"},"Model":"p/big"},"extra":{}}`))
	if err != nil || req.SessionID != "s" || req.Agent != "plan" || req.User.System != "c" || len(req.User.Parts) != 2 ||
		string(req.User.Parts[0]) != `{"type":"text"}` || req.Metadata.Mode != "bare" || req.Metadata.Params["repo"] != "r" ||
		len(req.Metadata.Params) != 1 || req.Metadata.Model != "" {
		t.Errorf("Decode of a good request = %+v, %v", req, err)
	}
}

// resolved is a PromptResponse with its parameters as JSON, to compare.
func resolved(t *testing.T, req agentrt.PromptRequest) (agentrt.PromptResponse, string) {
	t.Helper()
	resp, err := promptService.Resolve(req)
	if err != nil {
		t.Fatalf("Resolve(%+v): %v", req, err)
	}
	b, err := json.Marshal(resp.Params)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestResolve: the system prompt is the mode's (or the custom text and the
// critical instructions), then the agent's text, then the variants'; the
// layers apply by model and mode, field by field and option by option,
// then the variants' parameters.
func TestResolve(t *testing.T) {
	meta := func(m, model string) agentrt.PromptMetadata {
		return agentrt.PromptMetadata{Mode: m, Model: model, Params: map[string]string{"repo": "r"}}
	}
	cases := []struct {
		name        string
		req         agentrt.PromptRequest
		system      string
		params      string
		experiments string
	}{
		{"default mode, variant y, another model",
			agentrt.PromptRequest{SessionID: session(t, "y"), Metadata: meta("", "p/small")},
			"prompt full of r", `{"temperature":0.2,"options":{"a":1,"b":2}}`, "a=y"},
		{"variant x, the big model, agent plan",
			agentrt.PromptRequest{SessionID: session(t, "x"), Agent: "plan", Metadata: meta("full", "p/big")},
			"prompt full of r\n\nplan r\n\nx for r", `{"temperature":0.5,"topP":0.9,"options":{"a":3,"b":2}}`, "a=x"},
		{"agent build in mode bare: only experiment a-b",
			agentrt.PromptRequest{SessionID: "s", Agent: "build", User: agentrt.PromptUser{System: "custom"}, Metadata: meta("bare", "p/big")},
			"custom\n\ncritical bare", `{"temperature":0.7,"topP":0.1,"options":{"a":1}}`, "a-b=only"},
		{"an empty agent text adds nothing; no parameters set",
			agentrt.PromptRequest{SessionID: "s", Agent: "empty", Metadata: agentrt.PromptMetadata{Mode: "bare"}},
			"prompt bare of ", `{"temperature":0.7,"options":{"a":1}}`, ""},
	}
	for _, c := range cases {
		resp, params := resolved(t, c.req)
		if resp.System != c.system || params != c.params || resp.ExperimentID() != c.experiments {
			t.Errorf("%s: system %q, params %s, experiments %q; want %q, %s, %q",
				c.name, resp.System, params, resp.ExperimentID(), c.system, c.params, c.experiments)
		}
		if resp.Parts == nil || len(resp.Parts) != 0 {
			t.Errorf("%s: parts %v, want []", c.name, resp.Parts)
		}
	}
	// Merging leaves the layers as they were.
	for _, c := range cases {
		if _, again := resolved(t, c.req); again != c.params {
			t.Errorf("%s, again: params %s, want %s", c.name, again, c.params)
		}
	}
	bare := agentrt.PromptService[mode, promptParams]{Modes: []mode{modeFull}, Default: modeFull,
		Params: promptService.Params, System: promptService.System}
	if r, err := bare.Resolve(agentrt.PromptRequest{SessionID: "s"}); err != nil || r.Params.Options == nil || r.Experiments == nil {
		t.Errorf("without layers: %+v, %v; want options {} and experiments {}", r, err)
	}
	_, err := promptService.Resolve(agentrt.PromptRequest{SessionID: "s", Metadata: agentrt.PromptMetadata{Mode: "other"}})
	var re *agentrt.PromptRequestError
	if !errors.As(err, &re) || err.Error() != `metadata.mode: unknown mode "other" (want one of bare, full)` {
		t.Errorf("Resolve of an unknown mode: %v", err)
	}
}

func TestExperimentID(t *testing.T) {
	r := agentrt.PromptResponse{Experiments: map[string]string{"a": "x", "a-b": "y", "b": "z"}}
	// In name order: "a" < "a-b" although "a-b=y" < "a=x".
	if got := r.ExperimentID(); got != "a=x,a-b=y,b=z" {
		t.Errorf("ExperimentID = %q", got)
	}
	if got := (agentrt.PromptResponse{}).ExperimentID(); got != "" {
		t.Errorf("ExperimentID of none = %q", got)
	}
}

// TestServe checks the handler's answers and log records.
func TestServe(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	do := func(method, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		promptService.Serve(rec, httptest.NewRequest(method, "/prompt", strings.NewReader(body)), logger)
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %.40q: Content-Type %q", method, body, ct)
		}
		return rec
	}
	id := session(t, "x")
	rec := do(http.MethodPost, `{"sessionID":"`+id+`","agent":"plan","metadata":{"mode":"full","params":{"repo":"r"}}}`)
	var resp agentrt.PromptResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); rec.Code != http.StatusOK || err != nil {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	want, _ := promptService.Resolve(agentrt.PromptRequest{SessionID: id, Agent: "plan",
		Metadata: agentrt.PromptMetadata{Mode: "full", Params: map[string]string{"repo": "r"}}})
	wb, _ := json.Marshal(want)
	if got := strings.TrimSuffix(rec.Body.String(), "\n"); got != string(wb) {
		t.Errorf("POST answered %s, want Resolve's %s", got, wb)
	}

	for _, c := range []struct {
		method, body string
		status       int
		code, msg    string
	}{
		{http.MethodGet, "", http.StatusMethodNotAllowed, "method_not_allowed", "GET /prompt: use POST"},
		{http.MethodPost, `{"agent":"build"}`, http.StatusBadRequest, "bad_request", "sessionID: is required"},
		{http.MethodPost, `{"sessionID":"s2","metadata":{"mode":"x"}}`, http.StatusBadRequest, "bad_request",
			`metadata.mode: unknown mode "x" (want one of bare, full)`},
		{http.MethodPost, `{"sessionID":"` + strings.Repeat("s", 4<<20) + `"}`, http.StatusBadRequest, "bad_request",
			"reading the body: http: request body too large"},
	} {
		rec := do(c.method, c.body)
		var out struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != c.status ||
			out.Error.Code != c.code || out.Error.Message != c.msg {
			t.Errorf("%s %.40q: %d %s; want %d %s %q", c.method, c.body, rec.Code, rec.Body, c.status, c.code, c.msg)
		}
		if allow := rec.Header().Get("Allow"); (c.method == http.MethodGet) != (allow == http.MethodPost) {
			t.Errorf("%s: Allow %q", c.method, allow)
		}
	}

	type record struct {
		Level, Msg, SessionID, ExperimentID, Error string
		Status                                     int
	}
	var records []record
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil || !strings.Contains(line, `"experimentID"`) {
			t.Fatalf("log line %s: %v (want sessionID and experimentID)", line, err)
		}
		records = append(records, r)
	}
	wantRecords := []record{
		{"INFO", "prompt served", id, "a=x", "", 200},
		{"WARN", "prompt request rejected", "", "", "GET /prompt: use POST", 405},
		{"WARN", "prompt request rejected", "", "", "sessionID: is required", 400},
		{"WARN", "prompt request rejected", "s2", "", `metadata.mode: unknown mode "x" (want one of bare, full)`, 400},
		{"WARN", "prompt request rejected", "", "", "reading the body: http: request body too large", 400},
	}
	if !slices.Equal(records, wantRecords) {
		t.Errorf("log records\n%+v\nwant\n%+v", records, wantRecords)
	}
}

// TestServeFailures: a system prompt the service cannot build is answered
// 400 with its error, and parameters that do not encode as JSON (a NaN
// top_p) 500 with a JSON error, never a broken body.
func TestServeFailures(t *testing.T) {
	s := promptService
	s.System = func(m mode, p promptParams, custom string) (string, error) {
		if m == modeBare {
			return "", errors.New("no prompt for bare sessions")
		}
		return promptService.System(m, p, custom)
	}
	s.Layers = append(slices.Clip(promptService.Layers),
		agentrt.ParamLayer[mode]{Model: "p/nan", Params: agentrt.SamplingParams{TopP: agentrt.Float(math.NaN())}})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		body   string
		status int
		code   string
		msg    string
	}{
		{`{"sessionID":"s","metadata":{"mode":"bare"}}`, http.StatusBadRequest, "bad_request", "no prompt for bare sessions"},
		{`{"sessionID":"s","metadata":{"model":"p/nan"}}`, http.StatusInternalServerError, "internal", "encoding the answer failed"},
	} {
		rec := httptest.NewRecorder()
		s.Serve(rec, httptest.NewRequest(http.MethodPost, "/prompt", strings.NewReader(c.body)), logger)
		var out struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != c.status || out.Error.Code != c.code || out.Error.Message != c.msg {
			t.Errorf("%s: %d %s; want %d %s %q", c.body, rec.Code, rec.Body, c.status, c.code, c.msg)
		}
	}
}
