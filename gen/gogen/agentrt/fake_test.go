package agentrt_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
)

// A hand-written contract of two tools, as a generated package describes
// itself to the runtime: "echo" (alias "say"), which the gateway executes,
// and "local", which runs in the sandbox. Mode "full" injects both, mode
// "bare" neither.

type mode string

const (
	modeFull mode = "full"
	modeBare mode = "bare"
)

// handler is the contract's Handler: one method, for echo.
type handler interface {
	Echo(ctx context.Context, call agentrt.Call[mode], text string) (agentrt.Output[echoData], error)
}

type echoData struct {
	Text string `json:"text"`
}

var fakeTools = []agentrt.ToolDesc{
	{Name: "echo", Aliases: []string{"say"}, FileName: "echo", Gateway: true, Fingerprint: "e1"},
	{Name: "local", FileName: "local", Fingerprint: "l1"},
}

func injects(m mode, tool int) bool { return m == modeFull }

var fakeContract = agentrt.Contract[handler, mode]{
	Name:         "fake",
	Revision:     "1",
	Tools:        fakeTools,
	Modes:        []mode{modeFull, modeBare},
	Injects:      injects,
	CallbackPath: "/cb/{sessionId}/tools/{toolName}",
	Retention:    time.Minute,
	Dispatch:     dispatch,
}

// dispatch is what a generated Dispatch does for this contract: resolve
// the name, gate by mode, decode the arguments ({"text": string}), call
// the handler.
func dispatch(ctx context.Context, h handler, call agentrt.Call[mode], args []byte) (res agentrt.Result) {
	tool := -1
	for i, t := range fakeTools {
		if t.Name == call.Tool || len(t.Aliases) > 0 && t.Aliases[0] == call.Tool {
			tool = i
		}
	}
	if tool < 0 {
		return agentrt.Failed("Unknown tool: " + call.Tool)
	}
	desc := fakeTools[tool]
	if !injects(call.Mode, tool) {
		return agentrt.NotInMode(desc.Name, call.Mode)
	}
	defer agentrt.Recover(desc.Name, &res)
	if !desc.Gateway {
		return agentrt.Failed("Tool " + desc.Name + " runs in the sandbox, not on the gateway")
	}
	var a struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Text == nil {
		if err == nil {
			err = errors.New("text is required")
		}
		return agentrt.InvalidArguments(desc.Name, desc.Fingerprint, call.Fingerprint, err)
	}
	out, err := h.Echo(ctx, call, *a.Text)
	return agentrt.Reply(desc.Name, out, err)
}

// echoer is the gateway's handler: it echoes, counts its executions by
// tool_call_id, fails for "fail" and panics for "panic".
type echoer struct {
	mu    sync.Mutex
	calls map[string]int
	// gate, when not nil, holds every execution until it is closed.
	gate chan struct{}
}

func newEchoer() *echoer { return &echoer{calls: map[string]int{}} }

func (e *echoer) Echo(ctx context.Context, call agentrt.Call[mode], text string) (agentrt.Output[echoData], error) {
	e.mu.Lock()
	e.calls[call.ToolCallID]++
	e.mu.Unlock()
	if e.gate != nil {
		<-e.gate
	}
	switch text {
	case "fail":
		return agentrt.Output[echoData]{}, errors.New("it failed")
	case "panic":
		panic("kaboom")
	}
	return agentrt.Output[echoData]{Result: "echoed " + text, Data: echoData{Text: text}}, nil
}

func (e *echoer) count(id string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[id]
}

// Sessions: "s-full" is in mode full, "s-bare" in mode bare; "s-down"
// cannot be looked up, and "s-odd" is given a mode the contract lacks.
var sessions = agentrt.SessionsFunc[mode](func(ctx context.Context, id string) (mode, error) {
	switch id {
	case "s-full":
		return modeFull, nil
	case "s-bare":
		return modeBare, nil
	case "s-down":
		return "", errors.New("database down")
	case "s-odd":
		return "odd", nil // a mode the contract lacks: a misconfigured Sessions
	}
	return "", agentrt.ErrUnknownSession
})

// auth: "sbx.<session>" is a sandbox token of that session, "sbx" one of
// any session, "api" one of source api; anything else is invalid.
var auth = agentrt.AuthenticatorFunc(func(ctx context.Context, token string) (agentrt.Claims, error) {
	switch {
	case strings.HasPrefix(token, "sbx."):
		return agentrt.Claims{Source: agentrt.SourceSandbox, SessionID: strings.TrimPrefix(token, "sbx."), OrganizationID: "org"}, nil
	case token == "sbx":
		return agentrt.Claims{Source: agentrt.SourceSandbox, OrganizationID: "org"}, nil
	case token == "api":
		return agentrt.Claims{Source: "api"}, nil
	}
	return agentrt.Claims{}, errors.New("bad token")
})
