package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxBody bounds the answers read into memory (message lists included).
const maxBody = 64 << 20

// Config configures a Client.
type Config struct {
	// BaseURL is the server's address, like http://127.0.0.1:4096.
	BaseURL string
	// Directory, when set, is sent as the directory query parameter of
	// every request, selecting the project instance of a server that
	// serves several; "" means the server's working directory.
	Directory string
	// Username and Password, when Password is set, are sent as HTTP basic
	// authentication (opencode serve with OPENCODE_SERVER_PASSWORD; its
	// username, OPENCODE_SERVER_USERNAME, is "opencode" when Username is "").
	Username, Password string
	// RequestTimeout bounds each request other than the event stream; zero
	// means 60 s.
	RequestTimeout time.Duration
	// AbortTimeout bounds how long Cancel waits for OpenCode to settle the
	// aborted turn, and how long Execute spends aborting after its context
	// ended; zero means 30 s.
	AbortTimeout time.Duration
}

// HTTPError is an answer of the server with an unexpected status.
type HTTPError struct {
	// Method and Path name the request.
	Method, Path string
	// StatusCode is the answer's status code.
	StatusCode int
	// Body is the start of the answer's body.
	Body string
}

// Error implements error.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("opencode: %s %s: %d %s: %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode), e.Body)
}

// Model selects a configured provider's model for a prompt.
type Model struct {
	// ProviderID is the provider's id in opencode.json.
	ProviderID string `json:"providerID"`
	// ModelID is the model's id within the provider.
	ModelID string `json:"modelID"`
}

// PromptPart is one part of a prompt; only text parts are supported here.
type PromptPart struct {
	// Type is "text".
	Type string `json:"type"`
	// Text is the text.
	Text string `json:"text"`
}

// Message is one message of a session with its parts
// (GET /session/:id/message).
type Message struct {
	// Info describes the message.
	Info MessageInfo `json:"info"`
	// Parts are the message's parts in order.
	Parts []Part `json:"parts"`
}

// MessageInfo describes a message.
type MessageInfo struct {
	// ID is the message id, like msg_…; ids sort in creation order.
	ID string `json:"id"`
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// ParentID is, for an assistant message, the user message it answers.
	ParentID string `json:"parentID,omitempty"`
	// Time holds a finished assistant message's completion time.
	Time MessageTime `json:"time"`
	// Error is set on an assistant message that failed or was aborted.
	Error *MessageError `json:"error,omitempty"`
}

// MessageTime holds a message's times in Unix milliseconds.
type MessageTime struct {
	// Completed is when an assistant message finished; 0 while it runs.
	Completed int64 `json:"completed,omitempty"`
}

// MessageError is an error OpenCode recorded, like
// {"name":"MessageAbortedError","data":{"message":"Aborted"}}.
type MessageError struct {
	// Name is the error's kind: MessageAbortedError, APIError,
	// ProviderAuthError, UnknownError, …
	Name string `json:"name"`
	// Data is the error's details; most kinds have a message.
	Data json.RawMessage `json:"data,omitempty"`
}

// String is "Name: message", or Name when Data has no message.
func (e *MessageError) String() string {
	if e == nil {
		return ""
	}
	var d struct {
		Message string `json:"message"`
	}
	json.Unmarshal(e.Data, &d)
	if d.Message != "" {
		return e.Name + ": " + d.Message
	}
	return e.Name
}

// Part is one part of a message: text, reasoning, tool, step-start,
// step-finish, file, … Only the fields of its Type are set.
type Part struct {
	// ID is the part id, like prt_….
	ID string `json:"id"`
	// MessageID is the message's id.
	MessageID string `json:"messageID"`
	// Type is the part's kind.
	Type string `json:"type"`
	// Text is a text or reasoning part's text.
	Text string `json:"text,omitempty"`
	// Synthetic marks a text part OpenCode added rather than the user or
	// the model.
	Synthetic bool `json:"synthetic,omitempty"`
	// Ignored marks a text part OpenCode leaves out of the conversation.
	Ignored bool `json:"ignored,omitempty"`
	// Time holds a text part's end in Unix milliseconds; End is 0 while
	// the model is still writing it.
	Time *PartTime `json:"time,omitempty"`
	// CallID is a tool part's call id: the model's tool_use id, verbatim.
	CallID string `json:"callID,omitempty"`
	// Tool is a tool part's tool id.
	Tool string `json:"tool,omitempty"`
	// State is a tool part's state.
	State *ToolState `json:"state,omitempty"`
}

// PartTime holds a part's times in Unix milliseconds.
type PartTime struct {
	// End is when it ended; 0 while it runs.
	End int64 `json:"end,omitempty"`
}

// Tool part statuses, in the order a call goes through them.
const (
	ToolPending   = "pending"
	ToolRunning   = "running"
	ToolCompleted = "completed"
	ToolError     = "error"
)

// ToolState is a tool part's state.
type ToolState struct {
	// Status is ToolPending, ToolRunning, ToolCompleted or ToolError.
	Status string `json:"status"`
	// Input is the call's arguments; {} while pending.
	Input json.RawMessage `json:"input,omitempty"`
	// Output is a completed call's result.
	Output string `json:"output,omitempty"`
	// Error is a failed call's error, like "Tool execution aborted".
	Error string `json:"error,omitempty"`
}

// Done reports whether the call has finished, successfully or not.
func (s *ToolState) Done() bool {
	return s != nil && (s.Status == ToolCompleted || s.Status == ToolError)
}

// Client talks to one opencode serve over HTTP and server-sent events. It
// implements Runtime. It is safe for concurrent use.
type Client struct {
	base *url.URL
	cfg  Config
	http *http.Client
}

// New returns a client for the server at cfg.BaseURL. It makes no request.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("opencode: base URL %q: %w", cfg.BaseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("opencode: base URL %q: want http(s)://host:port", cfg.BaseURL)
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 60 * time.Second
	}
	if cfg.AbortTimeout <= 0 {
		cfg.AbortTimeout = 30 * time.Second
	}
	// No client timeout: the event stream lasts as long as its context;
	// the other requests get RequestTimeout through their context. The
	// transport is the client's own, so Close may close its connections.
	return &Client{base: u, cfg: cfg, http: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}}, nil
}

// send sends a request of path with the configured directory,
// authentication and, for a non-nil body, a JSON content type. An answer
// whose status is not 2xx is an *HTTPError; the caller closes the body of
// any other.
func (c *Client) send(ctx context.Context, method, path, accept string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		// A prompt's body or a map of strings, which always encode.
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	u := *c.base
	u.Path += path
	if c.cfg.Directory != "" {
		u.RawQuery = url.Values{"directory": {c.cfg.Directory}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("opencode: %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.Password != "" {
		user := c.cfg.Username
		if user == "" {
			user = "opencode"
		}
		req.SetBasicAuth(user, c.cfg.Password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("opencode: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		// One byte more than is kept, so that truncate marks a longer body.
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 2001))
		resp.Body.Close()
		return nil, &HTTPError{Method: method, Path: path, StatusCode: resp.StatusCode, Body: truncate(data, 2000)}
	}
	return resp, nil
}

// do sends a request bounded by RequestTimeout and decodes a JSON answer
// into out (when out is not nil). Any 2xx status is success.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	resp, err := c.send(ctx, method, path, "application/json", body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("opencode: %s %s: reading the answer: %w", method, path, err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("opencode: %s %s: decoding %q: %w", method, path, truncate(data, 200), err)
	}
	return nil
}

// Ping reports whether the server answers GET /global/health and says it
// is healthy.
func (c *Client) Ping(ctx context.Context) error {
	var h struct {
		Healthy bool `json:"healthy"`
	}
	if err := c.do(ctx, http.MethodGet, "/global/health", nil, &h); err != nil {
		return err
	}
	if !h.Healthy {
		return fmt.Errorf("opencode: %s says it is not healthy", c.base)
	}
	return nil
}

// CreateSession creates a session (POST /session) and returns its id. With
// an empty title OpenCode asks the small model for one after the first
// prompt.
func (c *Client) CreateSession(ctx context.Context, title string) (string, error) {
	body := map[string]string{}
	if title != "" {
		body["title"] = title
	}
	var s struct {
		ID string `json:"id"`
	}
	if err := c.do(ctx, http.MethodPost, "/session", body, &s); err != nil {
		return "", err
	}
	if s.ID == "" {
		return "", errors.New("opencode: POST /session: the answer has no session id")
	}
	return s.ID, nil
}

// Abort aborts the session's running turn (POST /session/:id/abort): a
// running tool ends with the error "Tool execution aborted" and the
// assistant message with MessageAbortedError.
func (c *Client) Abort(ctx context.Context, sessionID string) error {
	return c.do(ctx, http.MethodPost, "/session/"+url.PathEscape(sessionID)+"/abort", nil, nil)
}

// busy reports whether the session is working on a prompt: GET
// /session/status lists the sessions that are not idle.
func (c *Client) busy(ctx context.Context, sessionID string) (bool, error) {
	var status map[string]json.RawMessage
	if err := c.do(ctx, http.MethodGet, "/session/status", nil, &status); err != nil {
		return false, err
	}
	_, ok := status[sessionID]
	return ok, nil
}

// Messages lists the session's messages with their parts, oldest first
// (GET /session/:id/message).
func (c *Client) Messages(ctx context.Context, sessionID string) ([]Message, error) {
	var msgs []Message
	if err := c.do(ctx, http.MethodGet, "/session/"+url.PathEscape(sessionID)+"/message", nil, &msgs); err != nil {
		return nil, err
	}
	return msgs, nil
}

// Close closes the idle connections of the client's transport. The
// executors it started keep working until they are closed.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// truncate shortens b for an error message.
func truncate(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
