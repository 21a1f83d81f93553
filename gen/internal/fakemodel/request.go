package fakemodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Request is one request the server received, kept so a test can assert
// what the model was sent.
type Request struct {
	// Seq numbers the requests from 1 in the order they arrived.
	Seq int
	// Turn is the name of the script turn that answered, TitleTurn for the
	// built-in answer to a request without tools, or "" when nothing
	// matched.
	Turn string
	// Method and Path are the request line's, like POST /v1/messages.
	Method, Path string
	// Body is the raw request body, byte for byte.
	Body []byte
	// Messages is Body decoded; when the body is not a Messages API request
	// it is zero and DecodeErr says why.
	Messages MessagesRequest
	// DecodeErr is the error decoding Body, if any.
	DecodeErr error
}

// MessagesRequest is the body of POST /v1/messages, with the fields a test
// asserts on decoded. The string shorthands of the API (a string system
// prompt, a string message content) are decoded into blocks.
type MessagesRequest struct {
	// Model is the model id the client asked for.
	Model string `json:"model"`
	// System is the system prompt, as text blocks.
	System Content `json:"system"`
	// Messages is the conversation, oldest first.
	Messages []Message `json:"messages"`
	// Tools lists the tools offered to the model.
	Tools []Tool `json:"tools"`
	// Temperature is nil when the client did not send one.
	Temperature *float64 `json:"temperature"`
}

// Message is one entry of the conversation.
type Message struct {
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Content is the message's blocks.
	Content Content `json:"content"`
}

// Tool is a tool definition as offered to the model.
type Tool struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// Description is the text the model is shown.
	Description string `json:"description"`
	// InputSchema is the JSON Schema of the arguments, byte for byte.
	InputSchema json.RawMessage `json:"input_schema"`
}

// ContentBlock is one block of a message or of a system prompt. Only the
// fields of its Type are set.
type ContentBlock struct {
	// Type is text, tool_use, tool_result, image, thinking, …
	Type string `json:"type"`
	// Text is a text block's text.
	Text string `json:"text,omitempty"`
	// ID is a tool_use block's id (the call id).
	ID string `json:"id,omitempty"`
	// Name is a tool_use block's tool name.
	Name string `json:"name,omitempty"`
	// ToolUseID is the call id a tool_result block answers.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Content is a tool_result block's content.
	Content Content `json:"content,omitempty"`
	// IsError marks a tool_result block that reports a failure.
	IsError bool `json:"is_error,omitempty"`
}

// Content is a list of blocks; it decodes the API's string shorthand into
// one text block.
type Content []ContentBlock

// UnmarshalJSON accepts a string or an array of blocks. data is one JSON
// value as the decoder found it: a string in it is well formed.
func (c *Content) UnmarshalJSON(data []byte) error {
	if data[0] == '"' {
		var s string
		json.Unmarshal(data, &s)
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(data, (*[]ContentBlock)(c))
}

// Text joins the text of the text blocks with newlines.
func (c Content) Text() string {
	var parts []string
	for _, b := range c {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolResult is a tool_result block with the name of the tool it answers,
// resolved from the tool_use block with the same id earlier in the
// conversation.
type ToolResult struct {
	// ToolUseID is the call id.
	ToolUseID string
	// ToolName is the called tool's name, "" when no earlier tool_use block
	// has the id.
	ToolName string
	// Text is the result's text content.
	Text string
	// IsError reports whether the result is an error.
	IsError bool
}

// HasTools reports whether the request offers the model any tool: every
// request of an agent's step, never the title request.
func (r *Request) HasTools() bool { return len(r.Messages.Tools) > 0 }

// Tool returns the offered tool with the given name, or nil.
func (r *Request) Tool(name string) *Tool {
	if i := slices.IndexFunc(r.Messages.Tools, func(t Tool) bool { return t.Name == name }); i >= 0 {
		return &r.Messages.Tools[i]
	}
	return nil
}

// ToolNames lists the offered tools' names in the order sent.
func (r *Request) ToolNames() []string {
	names := make([]string, len(r.Messages.Tools))
	for i, t := range r.Messages.Tools {
		names[i] = t.Name
	}
	return names
}

// SystemText is the system prompt's text.
func (r *Request) SystemText() string { return r.Messages.System.Text() }

// LastMessage returns the last message of the conversation, or nil.
func (r *Request) LastMessage() *Message {
	if n := len(r.Messages.Messages); n > 0 {
		return &r.Messages.Messages[n-1]
	}
	return nil
}

// ToolResults returns every tool_result block of the conversation, oldest
// first.
func (r *Request) ToolResults() []ToolResult { return r.toolResults(0) }

// LastToolResults returns the tool_result blocks of the last message, which
// are the results of the model's previous turn.
func (r *Request) LastToolResults() []ToolResult {
	return r.toolResults(len(r.Messages.Messages) - 1)
}

// toolResults returns the tool_result blocks of the messages from the
// index from on, each with the name of the tool its call, which may be
// earlier, called.
func (r *Request) toolResults(from int) []ToolResult {
	called := map[string]string{} // tool name by call id
	var out []ToolResult
	for i, m := range r.Messages.Messages {
		for _, b := range m.Content {
			switch {
			case b.Type == "tool_use":
				called[b.ID] = b.Name
			case b.Type == "tool_result" && i >= from:
				out = append(out, ToolResult{
					ToolUseID: b.ToolUseID,
					ToolName:  called[b.ToolUseID],
					Text:      b.Content.Text(),
					IsError:   b.IsError,
				})
			}
		}
	}
	return out
}

// String describes the request for a failure message.
func (r *Request) String() string {
	if r.DecodeErr != nil {
		return fmt.Sprintf("request %d %s %s (undecodable: %v)", r.Seq, r.Method, r.Path, r.DecodeErr)
	}
	last := ""
	if m := r.LastMessage(); m != nil {
		var kinds []string
		for _, b := range m.Content {
			kinds = append(kinds, b.Type)
		}
		last = fmt.Sprintf("; last message: %s [%s]", m.Role, strings.Join(kinds, " "))
	}
	return fmt.Sprintf("request %d %s %s: model %q, %d messages, tools %v%s",
		r.Seq, r.Method, r.Path, r.Messages.Model, len(r.Messages.Messages), r.ToolNames(), last)
}

// Matcher decides whether a script turn answers a request.
type Matcher func(*Request) bool

// OffersTool matches a request that offers the named tool.
func OffersTool(name string) Matcher { return func(r *Request) bool { return r.Tool(name) != nil } }

// AfterToolResult matches a request whose last message carries a
// tool_result for a call of the named tool: the step after that tool ran.
func AfterToolResult(name string) Matcher {
	return func(r *Request) bool {
		return slices.ContainsFunc(r.LastToolResults(), func(tr ToolResult) bool { return tr.ToolName == name })
	}
}

// LastUserTextContains matches a request whose last message is the user's
// and contains s in its text.
func LastUserTextContains(s string) Matcher {
	return func(r *Request) bool {
		m := r.LastMessage()
		return m != nil && m.Role == "user" && strings.Contains(m.Content.Text(), s)
	}
}

// All matches a request every matcher matches.
func All(ms ...Matcher) Matcher {
	return func(r *Request) bool {
		for _, m := range ms {
			if !m(r) {
				return false
			}
		}
		return true
	}
}
