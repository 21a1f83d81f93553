package opencode

import (
	"encoding/json"
	"fmt"
	"strings"
)

// StreamEventType is the kind of a normalised event.
type StreamEventType string

// The normalised event kinds.
const (
	// EventSystem is about the session rather than the conversation: the
	// executor is ready, the model call is being retried.
	EventSystem StreamEventType = "system"
	// EventMessage is text of the user or the assistant; Partial marks a
	// streamed piece of an assistant text that a complete one follows.
	EventMessage StreamEventType = "message"
	// EventToolCall is a tool call with its arguments, once it runs.
	EventToolCall StreamEventType = "tool_call"
	// EventToolResult is a tool call's end: its output, or its error.
	EventToolResult StreamEventType = "tool_result"
	// EventCompletion ends a turn: the session went idle with every tool
	// call settled, or OpenCode refused the prompt (Error says why).
	// FinalText is the last assistant message's text.
	EventCompletion StreamEventType = "completion"
	// EventError is an error OpenCode reported for the session.
	EventError StreamEventType = "error"
)

// StreamEvent is an OpenCode event normalised. Fields that do not apply to
// its Type are zero.
type StreamEvent struct {
	// Type is the event's kind.
	Type StreamEventType
	// Role is "user" or "assistant" for a message event, "assistant" for
	// tool and completion events.
	Role string
	// Text is a message's text (the piece, when Partial), or a system
	// event's description.
	Text string
	// Partial marks a streamed piece of an assistant text.
	Partial bool
	// ToolName is the called tool's id.
	ToolName string
	// ToolID is the call id: the model's tool_use id, which OpenCode passes
	// to the tool as ctx.callID.
	ToolID string
	// ToolInput is the call's arguments as JSON.
	ToolInput json.RawMessage
	// ToolOutput is a tool_result's output, or its error text when IsError.
	ToolOutput string
	// ToolStatus is a tool event's state: running for tool_call, completed
	// or error for tool_result.
	ToolStatus string
	// IsError marks a failed tool_result, and a completion whose turn
	// ended in an error.
	IsError bool
	// FinalText is a completion's final text.
	FinalText string
	// Error is an error event's, or a failed completion's, error as
	// "Name: message", like "MessageAbortedError: Aborted".
	Error string
	// MessageID and PartID locate the event in the session.
	MessageID, PartID string
	// RawType is the OpenCode event type it came from ("" for events made
	// from the message list, and for a completion, which no one event makes).
	RawType string
}

// String is a one-line description for logs and failure messages.
func (e *StreamEvent) String() string {
	var b strings.Builder
	b.WriteString(string(e.Type))
	add := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%q", k, v)
		}
	}
	add("role", e.Role)
	add("text", e.Text)
	if e.Partial {
		b.WriteString(" partial")
	}
	add("tool", e.ToolName)
	add("id", e.ToolID)
	add("input", string(e.ToolInput))
	add("status", e.ToolStatus)
	add("output", e.ToolOutput)
	add("final", e.FinalText)
	add("error", e.Error)
	return b.String()
}

// signal tells the executor what an event means for the turn.
type signal int

const (
	sigNone signal = iota
	// sigActive: the session is working on a prompt (busy).
	sigActive
	// sigIdle: the session went idle; the turn may be over.
	sigIdle
	// sigError: the session reported an error (session.error); a prompt
	// refused before OpenCode's loop starts yields nothing after it.
	sigError
)

// normalizer turns one session's OpenCode events into StreamEvents. It
// remembers what it has emitted so each tool call yields exactly one
// tool_call and one tool_result however many updates OpenCode sends.
type normalizer struct {
	sessionID string

	roles     map[string]string          // message id → role
	partTypes map[string]string          // part id → type
	textDone  map[string]bool            // text parts emitted complete
	tools     map[string]StreamEventType // tool part → its last tool_call or tool_result emitted

	// The state of the current turn as the events tell it: the newest user
	// message, the newest assistant message, the tool parts not yet done,
	// the completed text of each message, the last session.error.
	lastUser      string
	lastAssistant *MessageInfo
	unresolved    map[string]bool
	texts         map[string][]string
	turnError     string
}

// handle normalises one raw event. Events of other sessions and of no
// session yield nothing.
func (n *normalizer) handle(data []byte) ([]*StreamEvent, signal, error) {
	var ev struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, sigNone, fmt.Errorf("opencode: decoding an event %q: %w", truncate(data, 200), err)
	}
	var props struct {
		SessionID string       `json:"sessionID"`
		Info      *MessageInfo `json:"info"`
		Part      *Part        `json:"part"`
		MessageID string       `json:"messageID"`
		PartID    string       `json:"partID"`
		Field     string       `json:"field"`
		Delta     string       `json:"delta"`
		Status    struct {
			Type    string `json:"type"`
			Attempt int    `json:"attempt"`
			Message string `json:"message"`
		} `json:"status"`
		Error *MessageError `json:"error"`
	}
	// The event types the executor reads, with their properties as
	// EVENTS.md records them.
	switch ev.Type {
	case "session.status", "session.idle", "session.error",
		"message.updated", "message.part.updated", "message.part.delta":
	default:
		return nil, sigNone, nil
	}
	if err := json.Unmarshal(ev.Properties, &props); err != nil {
		return nil, sigNone, fmt.Errorf("opencode: decoding a %s event %q: %w", ev.Type, truncate(data, 200), err)
	}
	if props.SessionID != n.sessionID {
		return nil, sigNone, nil
	}
	switch ev.Type {
	case "session.status":
		switch props.Status.Type {
		case "busy":
			return nil, sigActive, nil
		case "retry":
			e := &StreamEvent{Type: EventSystem, RawType: ev.Type}
			e.Text = fmt.Sprintf("retrying the model call (attempt %d): %s", props.Status.Attempt, props.Status.Message)
			return []*StreamEvent{e}, sigNone, nil
		}
		return nil, sigNone, nil

	case "session.idle":
		return nil, sigIdle, nil

	case "session.error":
		e := &StreamEvent{Type: EventError, RawType: ev.Type}
		e.Error = props.Error.String()
		if e.Error == "" {
			e.Error = "UnknownError"
		}
		n.turnError = e.Error
		return []*StreamEvent{e}, sigError, nil

	case "message.updated":
		if info := props.Info; info != nil && info.ID != "" {
			n.roles[info.ID] = info.Role
			// Message ids sort in creation order; a late update of an
			// older message does not make it the newest.
			switch info.Role {
			case "user":
				if info.ID > n.lastUser {
					n.lastUser = info.ID
				}
			case "assistant":
				if n.lastAssistant == nil || info.ID >= n.lastAssistant.ID {
					n.lastAssistant = info
				}
			}
		}
		return nil, sigNone, nil

	case "message.part.delta":
		if props.Field != "text" || n.partTypes[props.PartID] != "text" || n.textDone[props.PartID] || props.Delta == "" {
			return nil, sigNone, nil
		}
		e := &StreamEvent{Type: EventMessage, RawType: ev.Type}
		e.Role = n.role(props.MessageID)
		e.Text = props.Delta
		e.Partial = true
		e.MessageID, e.PartID = props.MessageID, props.PartID
		return []*StreamEvent{e}, sigNone, nil

	default: // message.part.updated, the last kind the filter above keeps
		if props.Part == nil {
			return nil, sigNone, nil
		}
		return n.part(props.Part, ev.Type), sigNone, nil
	}
}

// role returns a message's role; a message not seen yet is the
// assistant's, since OpenCode announces user messages before their parts.
func (n *normalizer) role(messageID string) string {
	if r := n.roles[messageID]; r != "" {
		return r
	}
	return "assistant"
}

// part normalises a part's new state.
func (n *normalizer) part(p *Part, rawType string) []*StreamEvent {
	n.partTypes[p.ID] = p.Type
	switch p.Type {
	case "text":
		if p.Synthetic || p.Ignored || n.textDone[p.ID] {
			return nil
		}
		role := n.role(p.MessageID)
		// A user's text is complete at once; an assistant's when its end
		// time is set.
		if role == "assistant" && (p.Time == nil || p.Time.End == 0) {
			return nil
		}
		n.textDone[p.ID] = true
		if p.Text == "" {
			return nil
		}
		n.texts[p.MessageID] = append(n.texts[p.MessageID], p.Text)
		e := &StreamEvent{Type: EventMessage, RawType: rawType}
		e.Role = role
		e.Text = p.Text
		e.MessageID, e.PartID = p.MessageID, p.ID
		return []*StreamEvent{e}
	case "tool":
		return n.tool(p, rawType)
	}
	return nil
}

// tool emits a tool part's tool_call once it runs (or ends, if it never
// ran) and its tool_result once it ends.
func (n *normalizer) tool(p *Part, rawType string) []*StreamEvent {
	if p.State.Done() {
		delete(n.unresolved, p.ID)
	} else if n.tools[p.ID] != EventToolResult {
		n.unresolved[p.ID] = true
	}
	if p.State == nil || p.State.Status == ToolPending {
		return nil
	}
	var out []*StreamEvent
	if n.tools[p.ID] == "" {
		n.tools[p.ID] = EventToolCall
		e := &StreamEvent{Type: EventToolCall, RawType: rawType}
		fillTool(e, p)
		e.ToolStatus = ToolRunning
		out = append(out, e)
	}
	if p.State.Done() && n.tools[p.ID] != EventToolResult {
		n.tools[p.ID] = EventToolResult
		e := &StreamEvent{Type: EventToolResult, RawType: rawType}
		fillTool(e, p)
		if p.State.Status == ToolError {
			e.IsError = true
			e.ToolOutput = p.State.Error
		} else {
			e.ToolOutput = p.State.Output
		}
		out = append(out, e)
	}
	return out
}

func fillTool(e *StreamEvent, p *Part) {
	e.Role = "assistant"
	e.ToolName = p.Tool
	e.ToolID = p.CallID
	e.ToolInput = p.State.Input
	e.ToolStatus = p.State.Status
	e.MessageID, e.PartID = p.MessageID, p.ID
}

// completeFromEvents returns, when the events show the turn over, its
// completion, and starts the next turn; otherwise nil. The turn is over
// when the newest assistant message answers the newest user message and is
// complete, and no tool call is pending or running. A turn that failed
// before any assistant message counts as over once OpenCode reported the
// error.
func (n *normalizer) completeFromEvents() *StreamEvent {
	if n.lastUser == "" || len(n.unresolved) > 0 {
		return nil
	}
	a := n.lastAssistant
	if a == nil || a.ParentID != n.lastUser {
		if n.turnError == "" {
			return nil
		}
		return n.complete(nil, "")
	}
	if a.Time.Completed == 0 {
		return nil
	}
	return n.complete(a, strings.Join(n.texts[a.ID], "\n"))
}

// complete returns the completion of a turn whose last assistant message
// is a (nil when it failed before one) with the final text, and starts the
// next turn.
func (n *normalizer) complete(a *MessageInfo, text string) *StreamEvent {
	done := &StreamEvent{Type: EventCompletion}
	done.Role = "assistant"
	done.Error = n.turnError
	if a != nil {
		done.MessageID = a.ID
		done.FinalText = text
		if a.Error != nil {
			done.Error = a.Error.String()
		}
	}
	done.IsError = done.Error != ""
	n.turnError = ""
	return done
}

// settle decides from the session's messages (GET /session/:id/message)
// whether the turn is over, for when the events do not show it: the last
// user message has an answer whose last assistant message is complete, with
// no tool call still pending or running, or OpenCode reported an error.
// When settled it returns the tool events the stream did not deliver, then
// the completion; otherwise nil. The list can lag the events: right after
// the second session.idle of an abort it has been seen to show the aborted
// tool still running.
func (n *normalizer) settle(msgs []Message) []*StreamEvent {
	lastUser := -1
	for i, m := range msgs {
		if m.Info.Role == "user" {
			lastUser = i
		}
	}
	if lastUser < 0 {
		return nil
	}
	answer := msgs[lastUser+1:]
	var last *Message
	for i := range answer {
		if answer[i].Info.Role == "assistant" {
			last = &answer[i]
		}
		for _, p := range answer[i].Parts {
			if p.Type == "tool" && !p.State.Done() {
				return nil
			}
		}
	}
	if last == nil && n.turnError == "" {
		return nil
	}
	if last != nil && last.Info.Time.Completed == 0 {
		return nil
	}

	var out []*StreamEvent
	for _, m := range answer {
		for i := range m.Parts {
			if p := &m.Parts[i]; p.Type == "tool" {
				out = append(out, n.tool(p, "")...)
			}
		}
	}
	// The list shows every call settled, so whatever the events left
	// unresolved is settled too.
	clear(n.unresolved)
	if last == nil {
		return append(out, n.complete(nil, ""))
	}
	// The final text joins the message's text parts, leaving out synthetic
	// and ignored ones.
	var texts []string
	for _, p := range last.Parts {
		if p.Type == "text" && !p.Synthetic && !p.Ignored && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return append(out, n.complete(&last.Info, strings.Join(texts, "\n")))
}
