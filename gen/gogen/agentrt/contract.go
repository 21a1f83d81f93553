// Package agentrt is the runtime of the Go packages agentc generates: all
// that does not depend on the spec. It holds the one-pass JSON decoder the
// generated per-tool decoders drive (Decoder, zod 4's Issue, Opt), the
// gateway callback route (Route) with its request checks and the canonical
// digest of a call's arguments, and the idempotency stores (MemoryStore,
// and SQLStore with its migrations). It uses the standard library only.
//
// The route is written against a descriptor of the contract (Contract),
// as gRPC's server is against a ServiceDesc: the generated package fills
// one in with its tools, its mode gate, its callback settings and its
// Dispatch, and instantiates the route's generic types with its Handler
// and Mode.
//
// agentc writes a copy of this package's files beside every generated
// package (<codegen.go.dir>/agentrt) unless codegen.go.runtime names one
// to import instead. The generated code checks at compile time that its
// runtime is one it was generated for (EnforceVersion).
package agentrt

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"time"
)

// EnforceVersion is what generated code converts the difference of two
// versions to, as protobuf's protoimpl.EnforceVersion: a negative
// difference does not convert, so a generated package and a runtime that
// do not fit each other fail to compile. The generated code holds
//
//	const _ = agentrt.EnforceVersion(N - agentrt.MinVersion)
//	const _ = agentrt.EnforceVersion(agentrt.MaxVersion - N)
//
// where N is the version of the runtime API it was generated against.
type EnforceVersion uint

// The versions of the runtime API this runtime serves, oldest and newest.
// A change to the API generated code uses is a new MaxVersion; MinVersion
// rises when generated code of an older version no longer works with it.
const (
	MinVersion = 4
	MaxVersion = 4
)

// FingerprintHeader is the HTTP header in which a generated OpenCode stub
// sends its tool's schema fingerprint with every callback; the route
// answers with the gateway's in the same header. A header rather than a
// body field keeps the body exactly {tool_call_id, args}.
const FingerprintHeader = "X-Agentc-Tool-Fingerprint"

// Contract describes a generated contract to the runtime: what the route,
// the stores and the MCP server need to know of the spec. H is the
// generated Handler interface, M the generated Mode type.
type Contract[H any, M ~string] struct {
	// Name and Revision identify the spec (contract.name and revision).
	Name, Revision string
	// Tools are the contract's tools, indexed by the generated Tool.
	Tools []ToolDesc
	// Modes are the contract's modes: a mode Sessions gives outside them
	// is the gateway's misconfiguration (see LookupMode).
	Modes []M
	// Injects reports whether mode m injects tool (an index into Tools);
	// the gateway refuses to execute a tool the session's mode lacks.
	Injects func(m M, tool int) bool
	// CallbackPath is the callback route's path (callback.path), with
	// {sessionId} and {toolName} each a whole segment.
	CallbackPath string
	// Retention is how long the route's default MemoryStore keeps a
	// result (callback.retention_ms).
	Retention time.Duration
	// Dispatch runs one call: the generated Dispatch.
	Dispatch func(ctx context.Context, h H, call Call[M], args []byte) Result
}

// ToolDesc is what the runtime knows of one tool.
type ToolDesc struct {
	// Name is the name the model calls; Aliases are other names the
	// gateway accepts.
	Name    string
	Aliases []string
	// FileName is the base name of the tool's OpenCode files.
	FileName string
	// Gateway reports whether the gateway executes the tool (the
	// generated Handler has a method for it).
	Gateway bool
	// Fingerprint is a stable hash of the tool's wire contract.
	Fingerprint string
}

// Call identifies one tool call the gateway received; M is the generated
// Mode type.
type Call[M ~string] struct {
	// Tool is the name the caller used: a tool's name or one of its aliases.
	Tool string
	// Mode is the session's mode; tools the mode does not inject are rejected.
	Mode M
	// SessionID identifies the session.
	SessionID string
	// ToolCallID is the sandbox's idempotency key for the call.
	ToolCallID string
	// Fingerprint is the schema fingerprint the sandbox's stub sent with the
	// call (FingerprintHeader), or "" when unknown. When it differs from the
	// tool's, the call is still executed if its arguments validate under the
	// gateway's schema; otherwise the failure says the stub is out of date.
	Fingerprint string
}

// Result is the tool-call response body: {success, result, data?}.
type Result struct {
	// Success reports whether the tool ran and succeeded.
	Success bool `json:"success"`
	// Result is the message for the model.
	Result string `json:"result"`
	// Data is the tool's result data, when it has any.
	Data json.RawMessage `json:"data,omitempty"`

	// invalid marks InvalidArguments' answer, for Execute's outcome.
	invalid bool
	// panicked is Recover's: the panic and its stack, which Execute logs
	// (the model reads the value alone).
	panicked string
}

// Output is what a handler returns on success: the text the model reads
// and the typed data the gateway returns with it.
type Output[D any] struct {
	// Result is the message for the model.
	Result string
	// Data is the tool's result data.
	Data D
}

// NoData is the data of a tool whose spec declares no result.
type NoData struct{}

// The answers of a generated Dispatch, which it builds with the functions
// below so that every contract words them alike.

// Failed is a failed call's result: msg for the model.
func Failed(msg string) Result { return Result{Result: msg} }

// NotInMode is the result of a call of tool in a session whose mode does
// not inject it.
func NotInMode[M ~string](tool string, m M) Result {
	return Failed("Tool " + tool + " is not available in " + cmp.Or(string(m), "unknown-mode") + " sessions")
}

// InvalidArguments is the answer to arguments that fail validation:
// "Invalid arguments: " and err's text, which for Issues states each issue
// as "<path>: <message>" (see Issues.Error), the very text the generated
// OpenCode stubs throw for the same arguments. When
// the call's stub sent another schema fingerprint than the tool's
// (fingerprint), it adds that the sandbox's tool file is out of date
// (version drift: the arguments the old stub let through do not fit the
// gateway's schema).
func InvalidArguments(tool, fingerprint, stub string, err error) Result {
	msg := "Invalid arguments: " + err.Error()
	if stub != "" && stub != fingerprint {
		msg += " (the sandbox's " + tool + " tool is out of date: its schema fingerprint " + stub +
			" differs from the gateway's " + fingerprint + "; regenerate the tool files with agentc gen and restart the sandbox)"
	}
	return Result{Result: msg, invalid: true}
}

// Reply turns a handler's answer into a Result: its error as a failure
// naming the tool, its data (unless NoData) as JSON.
func Reply[D any](tool string, out Output[D], err error) Result {
	if err != nil {
		return Failed(tool + " failed: " + err.Error())
	}
	res := Result{Success: true, Result: out.Result}
	if _, none := any(out.Data).(NoData); !none {
		b, err := json.Marshal(out.Data)
		if err != nil {
			return Failed(tool + " failed: encoding its result: " + err.Error())
		}
		res.Data = b
	}
	return res
}

// Recover, deferred by a generated Dispatch, turns a handler's panic into
// a failed result naming the tool, which keeps the panic's stack for
// Execute to log.
func Recover(tool string, res *Result) {
	if p := recover(); p != nil {
		*res = Failed(fmt.Sprintf("%s failed: panic: %v", tool, p))
		res.panicked = fmt.Sprintf("panic: %v\n\n%s", p, debug.Stack())
	}
}
