// Package opencode is a Go client for OpenCode's server (`opencode serve`)
// in the shape of an agent runtime: a Runtime creates sessions and runs
// prompts, a StreamingExecutor follows one session over the server's event
// stream (GET /event, server-sent events) and normalises OpenCode's events
// into StreamEvents — system, message, tool_call, tool_result, completion,
// error. It uses the standard library only.
//
// The protocol, as OpenCode 1.18.33 speaks it:
//
//   - POST /session {"title"} creates a session.
//   - POST /session/:id/prompt_async {"model":{"providerID","modelID"},
//     "tools":{"*":false,"echo":true},"parts":[{"type":"text","text"}]}
//     starts a turn and answers 204 at once.
//   - GET /event streams every event of the server's project instance as
//     "data: {"id","type","properties"}" lines, starting with
//     server.connected. The executor keeps its session's events: text
//     parts stream as message.part.delta and end in a message.part.updated
//     with time.end; a tool part goes pending → running (with its input)
//     → completed (output) or error (error) in message.part.updated; the
//     turn ends with session.status idle and session.idle.
//   - POST /session/:id/abort aborts the turn: session.error
//     MessageAbortedError, session.idle, and only then the running tool's
//     part becomes error "Tool execution aborted", the assistant message
//     completes, and a second session.idle follows.
//
// So the executor ends a turn (its completion event) at a session.idle
// only when the events show the turn over — the newest assistant message
// answers the newest prompt and is complete, no tool call is pending or
// running — or, after an idle that came too early, at the first event that
// shows it over. When the events do not show it at an idle, it reads the
// message list (GET /session/:id/message), which fills in events the
// stream lost but can lag behind it. A prompt OpenCode refuses before its
// loop starts (an unknown agent) yields session.error and no idle: that
// turn ends at the error unless GET /session/status shows the session
// busy. EVENTS.md records the event shapes.
package opencode

import (
	"context"
	"errors"
	"fmt"
)

// Runtime runs agent turns on OpenCode.
type Runtime interface {
	// ExecuteStreaming starts a streaming session.
	ExecuteStreaming(ctx context.Context, request *ExecuteRequest) (StreamingExecutor, error)
	// Execute runs one turn and returns its outcome.
	Execute(ctx context.Context, request *ExecuteRequest) (*ExecuteResponse, error)
	// Ping checks that the server answers.
	Ping(ctx context.Context) error
	// Close releases the runtime's resources.
	Close() error
}

// StreamingExecutor follows one session: messages go in, normalised events
// come out.
type StreamingExecutor interface {
	// SendMessage sends a text prompt.
	SendMessage(message string) error
	// Cancel aborts the running turn.
	Cancel() error
	// Events delivers the normalised events.
	Events() <-chan *StreamEvent
	// Errors delivers errors.
	Errors() <-chan error
	// Done is closed when the executor has ended.
	Done() <-chan struct{}
	// Wait blocks until the executor ends and returns an exit code and the
	// reason for a failure.
	Wait() (int, error)
	// Close ends the executor.
	Close() error
	// RuntimeSessionID is the OpenCode session id.
	RuntimeSessionID() string
	// IsClosed reports whether the executor has ended.
	IsClosed() bool
}

// Client implements Runtime (ExecuteStreaming's return holds *Executor to StreamingExecutor).
var _ Runtime = (*Client)(nil)

// ExecuteRequest describes a session and its prompts. The fields after
// Message are sent with every prompt, in the body of POST
// /session/:id/prompt_async.
type ExecuteRequest struct {
	// SessionID continues an existing session; "" creates one.
	SessionID string `json:"-"`
	// Title is a new session's title; "" lets OpenCode ask the small model
	// for one.
	Title string `json:"-"`
	// Message is the first prompt's text; ExecuteStreaming sends nothing
	// when it is "", Execute requires it.
	Message string `json:"-"`
	// Model selects the model of every prompt; nil means the config's.
	Model *Model `json:"model,omitempty"`
	// Agent selects the agent (build, plan, …); "" means the default (build).
	Agent string `json:"agent,omitempty"`
	// System is added to the system prompt of every prompt.
	System string `json:"system,omitempty"`
	// Variant selects the model variant (a reasoning level) of every
	// prompt.
	Variant string `json:"variant,omitempty"`
	// Tools enables (true) or disables (false) tools by id for every
	// prompt; the key "*" matches every tool, and a specific id wins over it.
	Tools map[string]bool `json:"tools,omitempty"`
}

// ExecuteResponse is the outcome of one turn.
type ExecuteResponse struct {
	// SessionID is the OpenCode session.
	SessionID string
	// FinalText is the completion's final text.
	FinalText string
	// Error is OpenCode's error for the turn ("" on success), like
	// "MessageAbortedError: Aborted" or "APIError: …".
	Error string
	// Events are every event of the turn in order, the completion last.
	Events []*StreamEvent
}

// Execute runs one turn: it sends request.Message and waits for the
// completion. When ctx ends first it aborts the turn (bounded by
// Config.AbortTimeout) and returns ctx's error.
func (c *Client) Execute(ctx context.Context, request *ExecuteRequest) (*ExecuteResponse, error) {
	if request == nil || request.Message == "" {
		return nil, errors.New("opencode: Execute needs a message")
	}
	e, err := c.ExecuteStreaming(ctx, request)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	resp := &ExecuteResponse{SessionID: e.RuntimeSessionID()}
	for ev := range e.Events() {
		resp.Events = append(resp.Events, ev)
		if ev.Type == EventCompletion {
			resp.FinalText = ev.FinalText
			resp.Error = ev.Error
			return resp, nil
		}
	}
	// It ended before a completion and unclosed, so it recorded why.
	_, err = e.Wait()
	if ctx.Err() != nil {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.AbortTimeout)
		defer cancel()
		if aerr := c.Abort(actx, resp.SessionID); aerr != nil {
			err = errors.Join(err, fmt.Errorf("opencode: aborting session %s after the context ended: %w", resp.SessionID, aerr))
		}
	}
	return resp, err
}
