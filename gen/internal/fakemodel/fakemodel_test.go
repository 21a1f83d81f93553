package fakemodel_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/fakemodel"
)

// post sends a Messages API request and returns the answer.
func post(t *testing.T, s *fakemodel.Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", "k")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sseEvent struct {
	name string
	data map[string]any
}

// readStream parses the answer's server-sent events, checking that each
// event's name matches its data's type as the API guarantees.
func readStream(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var out []sseEvent
	var name string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("data %q: %v", line, err)
			}
			if data["type"] != name {
				t.Errorf("event %q carries type %v", name, data["type"])
			}
			out = append(out, sseEvent{name, data})
		case line == "":
		default:
			t.Errorf("unexpected line %q", line)
		}
	}
	return out
}

const withTools = `{"model":"fake-claude","max_tokens":100,"stream":true,
	"system":[{"type":"text","text":"You are a test."}],
	"tools":[{"name":"echo","description":"Echo.","input_schema":{"type":"object","properties":{"text":{"type":"string"}}}}],
	"messages":[{"role":"user","content":[{"type":"text","text":"echo hi"}]}]}`

func TestStreamToolUse(t *testing.T) {
	s := fakemodel.New(t, fakemodel.Turn{Name: "call", Reply: fakemodel.Reply{
		{Text: "Calling — ok."},
		{ToolID: "toolu_x", ToolName: "echo", Input: map[string]any{"text": "hi ünïcode"}},
	}})
	evs := readStream(t, post(t, s, withTools))
	var names []string
	for _, e := range evs {
		names = append(names, e.name)
	}
	want := []string{
		"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("events %v\nwant %v", names, want)
	}
	var text, input string
	for _, e := range evs {
		if e.name != "content_block_delta" {
			continue
		}
		d := e.data["delta"].(map[string]any)
		switch d["type"] {
		case "text_delta":
			text += d["text"].(string)
		case "input_json_delta":
			input += d["partial_json"].(string)
		}
	}
	if text != "Calling — ok." || input != `{"text":"hi ünïcode"}` {
		t.Errorf("text %q, input %q", text, input)
	}
	start := evs[6].data["content_block"].(map[string]any)
	if start["type"] != "tool_use" || start["id"] != "toolu_x" || start["name"] != "echo" {
		t.Errorf("tool_use block start = %v", start)
	}
	if got := evs[10].data["delta"].(map[string]any)["stop_reason"]; got != "tool_use" {
		t.Errorf("stop_reason = %v", got)
	}
	msg := evs[0].data["message"].(map[string]any)
	if msg["role"] != "assistant" || msg["model"] != "fake-claude" {
		t.Errorf("message_start = %v", msg)
	}

	r := s.ByTurn("call")
	if r == nil || r.Seq != 1 || r.SystemText() != "You are a test." || !fakemodel.LastUserTextContains("echo hi")(r) ||
		r.Tool("echo") == nil || string(r.Tool("echo").InputSchema) != `{"type":"object","properties":{"text":{"type":"string"}}}` ||
		r.Messages.Model != "fake-claude" {
		t.Errorf("recorded request = %+v", r)
	}
}

func TestStreamTextEndsTurn(t *testing.T) {
	s := fakemodel.New(t, fakemodel.Turn{Reply: fakemodel.Say("done")})
	evs := readStream(t, post(t, s, withTools))
	if got := evs[len(evs)-2].data["delta"].(map[string]any)["stop_reason"]; got != "end_turn" {
		t.Errorf("stop_reason = %v", got)
	}
}

// TestGeneratedCallID: a call without an id gets toolu_fake_<request>_<block>.
func TestGeneratedCallID(t *testing.T) {
	s := fakemodel.New(t, fakemodel.Turn{Reply: fakemodel.Call("", "echo", map[string]any{"text": "x"})})
	evs := readStream(t, post(t, s, withTools))
	start := evs[2].data["content_block"].(map[string]any)
	if start["type"] != "tool_use" || start["id"] != "toolu_fake_1_0" {
		t.Errorf("content_block_start = %v", start)
	}
}

// conversation is a request after the model called echo twice and
// lookup once, with the results in the last message; system prompt and
// contents use the API's string shorthand.
const conversation = `{"model":"m","max_tokens":10,"stream":true,"temperature":0.25,
	"system":"Be brief.",
	"tools":[{"name":"echo","input_schema":{}},{"name":"lookup","input_schema":{}}],
	"messages":[
		{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"echo","input":{"text":"a"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"echo: a"}]},
		{"role":"assistant","content":[{"type":"text","text":"again"},{"type":"tool_use","id":"t2","name":"lookup","input":{}},{"type":"tool_use","id":"t3","name":"echo","input":{"text":"b"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"not found"}],"is_error":true},{"type":"tool_result","tool_use_id":"t3","content":"echo: b"}]}
	]}`

func TestMatchingAndDecoding(t *testing.T) {
	s := fakemodel.New(t,
		fakemodel.Turn{Name: "never", Match: fakemodel.AfterToolResult("missing"), Reply: fakemodel.Say("no")},
		fakemodel.Turn{Name: "after lookup", Match: fakemodel.AfterToolResult("lookup"), Reply: fakemodel.Say("first")},
		fakemodel.Turn{Name: "second time", Match: fakemodel.AfterToolResult("lookup"), Reply: fakemodel.Say("second")},
	)
	for i, want := range []string{"first", "second"} {
		if got := streamedText(t, post(t, s, conversation)); got != want {
			t.Errorf("answer %d = %q, want %q", i+1, got, want)
		}
	}
	r := s.ByTurn("after lookup")
	if r == nil {
		t.Fatal("no request for the turn")
	}
	var last []string
	for _, tr := range r.LastToolResults() {
		last = append(last, fmt.Sprintf("%s=%q err=%v", tr.ToolName, tr.Text, tr.IsError))
	}
	if got, want := strings.Join(last, "; "), `lookup="not found" err=true; echo="echo: b" err=false`; got != want {
		t.Errorf("last tool results = %s, want %s", got, want)
	}
	if r.SystemText() != "Be brief." || r.Messages.Temperature == nil || *r.Messages.Temperature != 0.25 {
		t.Errorf("system %q, temperature %v", r.SystemText(), r.Messages.Temperature)
	}
	if all := r.ToolResults(); len(all) != 3 || all[0].ToolName != "echo" || all[0].Text != "echo: a" {
		t.Errorf("all tool results = %+v", all)
	}
	if got := r.Messages.Messages[0].Content.Text(); got != "go" {
		t.Errorf("string content decoded as %q", got)
	}
	if s.ByTurn("never") != nil {
		t.Errorf("turn never answered: %s", s)
	}
	if n := len(s.Answered()); n != 2 {
		t.Errorf("%d answered", n)
	}
}

func streamedText(t *testing.T, resp *http.Response) string {
	t.Helper()
	var text string
	for _, e := range readStream(t, resp) {
		if e.name == "content_block_delta" {
			if d := e.data["delta"].(map[string]any); d["type"] == "text_delta" {
				text += d["text"].(string)
			}
		}
	}
	return text
}

func TestTitleRequest(t *testing.T) {
	s := fakemodel.New(t, fakemodel.Turn{Name: "step", Reply: fakemodel.Say("step answer")})
	noTools := `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"Generate a title"}]}`
	// A bare turn (Match nil) does not take a request without tools: the
	// built-in answer does, with some text.
	if got := streamedText(t, post(t, s, noTools)); got == "" || got == "step answer" {
		t.Errorf("title answer = %q", got)
	}
	if got := streamedText(t, post(t, s, withTools)); got != "step answer" {
		t.Errorf("step answer = %q", got)
	}
	if title, step := s.ByTurn(fakemodel.TitleTurn), s.ByTurn("step"); title == nil || step == nil || title.Seq != 1 || step.Seq != 2 ||
		len(s.Answered()) != 1 {
		t.Errorf("requests: %s", s)
	}
}

// recorder stands in for a testing.TB to observe what New reports when the
// test ends.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (r *recorder) Helper() {}

func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestUnmatchedFailsTheTest(t *testing.T) {
	rec := &recorder{TB: t}
	s := fakemodel.New(rec, fakemodel.Turn{Match: fakemodel.LastUserTextContains("something else"), Reply: fakemodel.Say("x")})
	resp := post(t, s, withTools)
	body, _ := io.ReadAll(resp.Body)
	// 400 is not retried by OpenCode, so the step fails fast.
	if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte("no scripted turn matches request 1")) {
		t.Errorf("answer %d %s", resp.StatusCode, body)
	}
	bad, _ := http.Post(s.URL+"/v1/other", "application/json", strings.NewReader("{}"))
	bad.Body.Close()
	if resp := post(t, s, "not json"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an undecodable request: answer %d", resp.StatusCode)
	}
	if got := s.String(); !strings.Contains(got, "3 requests") || !strings.Contains(got, "request 2 POST /v1/other") {
		t.Errorf("String() = %s", got)
	}
	rec.end()
	if len(rec.errors) != 3 || !strings.Contains(rec.errors[0], "tools [echo]") || !strings.Contains(rec.errors[1], "/v1/other") ||
		!strings.Contains(rec.errors[2], "undecodable") {
		t.Errorf("errors at the end = %q", rec.errors)
	}
}

// TestShortBlocks: a one-byte text arrives in one delta, and a call
// without input sends {}.
func TestShortBlocks(t *testing.T) {
	s := fakemodel.New(t, fakemodel.Turn{Reply: fakemodel.Reply{{Text: "k"}, {ToolName: "echo"}}})
	var text []string
	var input string
	for _, e := range readStream(t, post(t, s, withTools)) {
		if d, ok := e.data["delta"].(map[string]any); ok && e.name == "content_block_delta" {
			if d["type"] == "text_delta" {
				text = append(text, d["text"].(string))
			} else {
				input += d["partial_json"].(string)
			}
		}
	}
	if !slices.Equal(text, []string{"k"}) || input != "{}" {
		t.Errorf("text deltas %q, input %q", text, input)
	}
}

func TestConfig(t *testing.T) {
	s := fakemodel.New(t)
	opts := fakemodel.ConfigOptions{
		ProviderID: "anthropic",
		ModelID:    "claude-opus-4-6",
		Extra:      map[string]any{"permission": map[string]string{"*": "allow", "question": "deny"}},
	}
	var cfg struct {
		Model            string            `json:"model"`
		SmallModel       string            `json:"small_model"`
		EnabledProviders []string          `json:"enabled_providers"`
		Autoupdate       *bool             `json:"autoupdate"`
		Share            string            `json:"share"`
		Snapshot         *bool             `json:"snapshot"`
		Permission       map[string]string `json:"permission"`
		Provider         map[string]struct {
			NPM     string            `json:"npm"`
			Options map[string]string `json:"options"`
			Models  map[string]struct {
				ToolCall    bool `json:"tool_call"`
				Temperature bool `json:"temperature"`
			} `json:"models"`
		} `json:"provider"`
	}
	if err := json.Unmarshal(s.Config(opts), &cfg); err != nil {
		t.Fatal(err)
	}
	p := cfg.Provider["anthropic"]
	m, ok := p.Models["claude-opus-4-6"]
	if cfg.Model != "anthropic/claude-opus-4-6" || cfg.SmallModel != cfg.Model ||
		!slices.Equal(cfg.EnabledProviders, []string{"anthropic"}) || cfg.Autoupdate == nil || *cfg.Autoupdate ||
		cfg.Share != "disabled" || cfg.Snapshot == nil || *cfg.Snapshot || cfg.Permission["question"] != "deny" ||
		p.NPM != "@ai-sdk/anthropic" || p.Options["baseURL"] != s.URL+"/v1" || p.Options["apiKey"] == "" ||
		!ok || !m.ToolCall || !m.Temperature {
		t.Errorf("config:\n%s", s.Config(opts))
	}
	if pid, mid := (fakemodel.ConfigOptions{}).Model(); pid != "fakemodel" || mid != "fake-claude" {
		t.Errorf("default model = %s/%s", pid, mid)
	}
}
