// Package serve is the source of the generated package's callback route and
// idempotency stores: route.go, envelope.go, store.go and sqlstore.go are
// copied verbatim (package clause replaced, agentc's header added) into
// every generated Go package, like package rt. They are compiled here
// against this file, which stands in for the declarations the generated
// package makes from the spec (Tool, Mode, Call, Result, Handler, Dispatch
// and the callback constants) and for the runtime's callback body decoder
// and its canonical argument digest (decodeEnvelope and digestObject, in
// package rt); this file is not copied. The generated copies are tested in
// gen/gateway.
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

// Kinds stand in for the runtime's (package rt) value kinds.
const (
	kindObject    = "object"
	kindString    = "string"
	kindUndefined = "undefined"
)

// envelope stands in for the runtime's decoded callback body.
type envelope struct {
	kind, idKind, argsKind string
	id                     string
	args                   []byte
	argsSum                [32]byte
	tooDeep                bool
}

// decodeEnvelope stands in for the runtime's one-pass callback body decoder.
func decodeEnvelope(data []byte, maxDepth int) (envelope, error) { return envelope{}, nil }

// digestObject stands in for the runtime's canonical digest of a JSON object.
func digestObject(data []byte, maxDepth int) (sum [32]byte, ok bool) { return sum, false }
