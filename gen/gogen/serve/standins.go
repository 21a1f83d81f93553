// Package serve is the source of the generated package's callback route and
// idempotency stores: route.go, store.go and sqlstore.go are copied verbatim
// (package clause replaced, agentc's header added) into every generated Go
// package, like package rt. They are compiled here against this file, which
// stands in for the declarations the generated package makes from the spec
// (Tool, Mode, Call, Result, Handler, Dispatch and the callback constants);
// this file is not copied. The generated copies are tested in gen/gateway.
package serve

import (
	"context"
	"encoding/json"
	"time"
)

// CallbackPath stands in for the generated constant (callback.path).
const CallbackPath = "/proliferate/{sessionId}/tools/{toolName}"

// DefaultRetention stands in for the generated constant (callback.retention_ms).
const DefaultRetention = 300000 * time.Millisecond

// FingerprintHeader stands in for the generated constant.
const FingerprintHeader = "X-Agentc-Tool-Fingerprint"

// Tool stands in for the generated tool enumeration.
type Tool int

// Name stands in for the generated method.
func (t Tool) Name() string { return "" }

// GatewayExecuted stands in for the generated method.
func (t Tool) GatewayExecuted() bool { return false }

// Fingerprint stands in for the generated method.
func (t Tool) Fingerprint() string { return "" }

// LookupTool stands in for the generated function.
func LookupTool(name string) (Tool, bool) { return -1, false }

// Mode stands in for the generated mode type.
type Mode string

// Has stands in for the generated method.
func (m Mode) Has(t Tool) bool { return false }

// Valid stands in for the generated method.
func (m Mode) Valid() bool { return false }

// Call stands in for the generated struct.
type Call struct {
	Tool        string
	Mode        Mode
	SessionID   string
	ToolCallID  string
	Fingerprint string
}

// Result stands in for the generated struct.
type Result struct {
	Success bool            `json:"success"`
	Result  string          `json:"result"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Handler stands in for the generated interface.
type Handler interface{}

// Dispatch stands in for the generated function.
func Dispatch(ctx context.Context, h Handler, call Call, args []byte) Result { return Result{} }
