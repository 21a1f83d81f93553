// Package fakemodel is a scripted Anthropic Messages API on loopback for
// tests that drive the real OpenCode: point an OpenCode provider using the
// built-in @ai-sdk/anthropic package at it (Config writes the entry) and it
// answers each request from a script, streaming server-sent events exactly
// as api.anthropic.com does (message_start, content_block_start/delta/stop
// for text and tool_use with input_json_delta, message_delta with the
// stop_reason, message_stop). It records every request so a test can
// assert what the model was sent: the system prompt, the temperature, the
// tools' input_schema, the tool_result contents.
//
// A script is a list of turns. Each request is answered by the first turn
// not yet used whose Matcher accepts it; a turn answers once. OpenCode asks
// its small model for a session title, without tools, alongside the first
// step: a request without tools that no turn matches gets a short text
// answer (TitleTurn) instead of an error. A request with tools that no turn
// matches gets a non-retryable 400 error and fails the test when it ends.
package fakemodel

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// TitleTurn is the Turn name recorded for the built-in answer to a request
// without tools that no script turn matched.
const TitleTurn = "(title)"

// Turn is one scripted answer.
type Turn struct {
	// Name identifies the turn in Request.Turn and in failure messages; ""
	// becomes "turn N" (1-based position in the script).
	Name string
	// Match selects the request the turn answers. nil means
	// Request.HasTools, so that a bare turn never answers the title
	// request.
	Match Matcher
	// Reply is the answer.
	Reply Reply
}

// Reply is what the model answers: content blocks, streamed in order. Its
// stop_reason is "tool_use" when a block calls a tool and "end_turn"
// otherwise.
type Reply []Block

// Block is one content block of a Reply: text, or a tool call when
// ToolName is set.
type Block struct {
	// Text is a text block's text.
	Text string
	// ToolID is a tool call's id (tool_use.id); "" becomes
	// toolu_fake_<request>_<block>.
	ToolID string
	// ToolName is the tool a tool_use block calls.
	ToolName string
	// Input is marshalled to JSON as a tool call's arguments.
	Input any
}

// Say is a reply of one text block that ends the turn.
func Say(text string) Reply { return Reply{{Text: text}} }

// Call is a reply of one tool call: of name, with input marshalled to JSON
// as its arguments; an empty id is generated.
func Call(id, name string, input any) Reply {
	return Reply{{ToolID: id, ToolName: name, Input: input}}
}

// Server is a running scripted model.
type Server struct {
	// URL is the server's base URL, like http://127.0.0.1:41234; the API is
	// under URL + "/v1".
	URL string

	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	turns    []turn
	requests []*Request
}

type turn struct {
	Turn
	used bool
}

// New starts a scripted model on 127.0.0.1 with the given turns and stops it
// when the test ends. At the end it fails the test for every request with
// tools that no turn answered; turns left unused are the test's business.
func New(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	s := &Server{t: t}
	for i, tn := range turns {
		tn.Name = cmp.Or(tn.Name, fmt.Sprintf("turn %d", i+1))
		if tn.Match == nil {
			tn.Match = (*Request).HasTools
		}
		s.turns = append(s.turns, turn{Turn: tn})
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(func() {
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, r := range s.requests {
			if r.Turn == "" {
				t.Errorf("fakemodel: no scripted turn answered %s", r)
			}
		}
	})
	return s
}

// Answered returns the requests a script turn answered (not the title
// request or unmatched ones), in arrival order.
func (s *Server) Answered() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(s.requests), func(r *Request) bool {
		return r.Turn == "" || r.Turn == TitleTurn
	})
}

// ByTurn returns the request the named turn answered, or nil.
func (s *Server) ByTurn(name string) *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.requests, func(r *Request) bool { return r.Turn == name }); i >= 0 {
		return s.requests[i]
	}
	return nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "fakemodel: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := &Request{Method: r.Method, Path: r.URL.Path, Body: body}
	req.DecodeErr = json.Unmarshal(body, &req.Messages)

	reply, ok := s.pick(req)
	if !ok {
		// An invalid_request_error: 400, which OpenCode does not retry, so
		// the step fails at once.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{
			"type":  "error",
			"error": map[string]string{"type": "invalid_request_error", "message": fmt.Sprintf("fakemodel: no scripted turn matches %s", req)},
		})
		return
	}
	writeStream(w, req, reply)
}

// pick records req and chooses its answer.
func (s *Server) pick(req *Request) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Seq = len(s.requests) + 1
	s.requests = append(s.requests, req)
	if req.DecodeErr != nil || req.Method != http.MethodPost || req.Path != "/v1/messages" {
		return nil, false
	}
	for i := range s.turns {
		tn := &s.turns[i]
		if tn.used || !tn.Match(req) {
			continue
		}
		tn.used = true
		req.Turn = tn.Name
		return tn.Reply, true
	}
	if !req.HasTools() {
		req.Turn = TitleTurn
		return Say("Scripted session"), true
	}
	return nil, false
}

// writeStream answers reply as the Messages API's event stream, which
// OpenCode always asks for.
func writeStream(w http.ResponseWriter, req *Request, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher) // as net/http's writers all are
	send := func(event string, data map[string]any) {
		data["type"] = event
		b, _ := json.Marshal(data) // strings, numbers and valid JSON
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		flusher.Flush()
	}

	send("message_start", map[string]any{
		"message": map[string]any{
			"id": fmt.Sprintf("msg_fake_%d", req.Seq), "type": "message", "role": "assistant", "model": req.Messages.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": len(req.Body) / 4, "output_tokens": 1},
		},
	})
	send("ping", map[string]any{})
	stop, outputTokens := "end_turn", 1
	for i, b := range reply {
		start := map[string]any{"type": "text", "text": ""}
		delta, field, content := "text_delta", "text", b.Text
		if b.ToolName != "" {
			stop = "tool_use"
			id := cmp.Or(b.ToolID, fmt.Sprintf("toolu_fake_%d_%d", req.Seq, i))
			start = map[string]any{"type": "tool_use", "id": id, "name": b.ToolName, "input": map[string]any{}}
			delta, field, content = "input_json_delta", "partial_json", toolInput(b.Input)
		}
		outputTokens += len(content) / 4
		send("content_block_start", map[string]any{"index": i, "content_block": start})
		for _, piece := range split(content) {
			send("content_block_delta", map[string]any{"index": i, "delta": map[string]string{"type": delta, field: piece}})
		}
		send("content_block_stop", map[string]any{"index": i})
	}
	send("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": outputTokens},
	})
	send("message_stop", map[string]any{})
}

// toolInput is a call's arguments as JSON. Input that does not marshal is
// a test bug, said in the arguments, where the test will see it.
func toolInput(in any) string {
	if in == nil {
		in = map[string]any{}
	}
	data, err := json.Marshal(in)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"fakemodel_error": err.Error()})
	}
	return string(data)
}

// split cuts s in two at a rune boundary near the middle, so each block
// arrives in more than one delta as from the real API; short strings stay
// whole.
func split(s string) []string {
	mid := len(s) / 2
	for mid < len(s) && !utf8.RuneStart(s[mid]) {
		mid++
	}
	if mid == 0 || mid == len(s) {
		return []string{s}
	}
	return []string{s[:mid], s[mid:]}
}

// ConfigOptions shapes the opencode.json Config writes.
type ConfigOptions struct {
	// ProviderID is the provider's id in opencode.json; "" means
	// "fakemodel".
	ProviderID string
	// ModelID is the model's id; "" means "fake-claude".
	ModelID string
	// Extra holds top-level keys merged over the defaults (for example
	// "agent", "instructions", "permission").
	Extra map[string]any
}

// Model returns the provider and model ids opts selects, for the model
// field of a prompt.
func (o ConfigOptions) Model() (providerID, modelID string) {
	return cmp.Or(o.ProviderID, "fakemodel"), cmp.Or(o.ModelID, "fake-claude")
}

// Config returns an opencode.json that makes this server OpenCode's only
// provider, as its model and small model (so the title request comes here
// too): the built-in @ai-sdk/anthropic package with baseURL URL + "/v1", a
// model with tool_call, autoupdate off, sharing disabled, no snapshots, and
// every permission allowed. Pass it as opencodetest.Options.Config.
func (s *Server) Config(opts ConfigOptions) []byte {
	providerID, modelID := opts.Model()
	model := map[string]any{
		"name":        "Scripted model",
		"tool_call":   true,
		"temperature": true,
		"reasoning":   false,
		"attachment":  false,
		"limit":       map[string]int{"context": 200000, "output": 8192},
	}
	full := providerID + "/" + modelID
	cfg := map[string]any{
		"$schema":           "https://opencode.ai/config.json",
		"autoupdate":        false,
		"share":             "disabled",
		"snapshot":          false,
		"permission":        map[string]string{"*": "allow"},
		"model":             full,
		"small_model":       full,
		"enabled_providers": []string{providerID},
		"provider": map[string]any{
			providerID: map[string]any{
				"name":    "agentc fakemodel",
				"npm":     "@ai-sdk/anthropic",
				"options": map[string]string{"baseURL": s.URL + "/v1", "apiKey": "fakemodel-key"},
				"models":  map[string]any{modelID: model},
			},
		},
	}
	maps.Copy(cfg, opts.Extra)
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		s.t.Fatalf("fakemodel: encoding opencode.json: %v", err)
	}
	return append(data, '\n')
}

// String describes the script's state for a failure message.
func (s *Server) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "fakemodel at %s: %d requests", s.URL, len(s.requests))
	for _, r := range s.requests {
		fmt.Fprintf(&b, "\n  %s -> %q", r, r.Turn)
	}
	return b.String()
}
