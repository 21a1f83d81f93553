package gogen

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/emit"
)

// FingerprintHeader is the HTTP header in which a generated OpenCode stub
// sends its tool's schema fingerprint with every callback (package tsgen
// sends it; the generated route reads it). A header rather than a body
// field keeps the body exactly the seed's {tool_call_id, args}, and a
// gateway that predates it ignores it.
const FingerprintHeader = "X-Agentc-Tool-Fingerprint"

// The callback route and the idempotency stores are written as ordinary Go
// in package serve (compiled there against stand-ins for the declarations
// generated from the spec) and copied verbatim into the generated package.
var (
	//go:embed serve/route.go
	routeSource []byte
	//go:embed serve/store.go
	storeSource []byte
	//go:embed serve/sqlstore.go
	sqlStoreSource []byte
	//go:embed serve/transport.go
	transportSource []byte
	//go:embed serve/envelope.go
	envelopeSource []byte
)

// serveFiles are the files copied from package serve, by generated name.
var serveFiles = []struct {
	name string
	src  *[]byte
}{
	{"route.go", &routeSource},
	{"store.go", &storeSource},
	{"sqlstore.go", &sqlStoreSource},
	{"transport.go", &transportSource},
	{"envelope.go", &envelopeSource},
}

// serveNames are the package-level identifiers the serve files and
// callback.go declare; the generator reports a spec name that clashes.
var serveNames = []string{
	"CallbackPath", "DefaultRetention", "FingerprintHeader", "CallbackTimeout",
	"DefaultMaxBodyBytes", "MaxToolCallIDLength", "SourceSandbox", "ReplayHeader", "Claims",
	"Authenticator", "AuthenticatorFunc", "ErrUnknownSession", "Sessions", "SessionsFunc",
	"RouteConfig", "Route", "NewRoute", "Invocation", "ErrConflict", "Store", "MemoryStore",
	"NewMemoryStore", "InvocationsTable", "StatusRunning", "StatusCompleted",
	"StatusFailed", "StatusInterrupted", "DefaultLease", "SQLStore", "NewSQLStore",
	"RequestHash", "CheckSessionID", "CheckToolCallID", "StoreCounter", "CountStore", "Refusal",
	"Authenticate", "WriteError", "SchemaVersionsTable", "InvocationsMigration", "InvocationsMigrations",
	"InvocationsMigrationSQL", "DefaultWriteTimeout", "DefaultMaxEntries", "CallEvent", "MaxSessionIDLength",
	"MaxFingerprintLength", "MaxArgsDepth",
}

// verbatim returns a serve file as a file of the generated package.
func (g *generator) verbatim(name string, src []byte) ([]byte, error) {
	s := "\n" + string(src)
	i := strings.Index(s, "\npackage serve\n")
	if i < 0 {
		return nil, fmt.Errorf("go: %s: the serve source has no package clause", name)
	}
	head := fmt.Sprintf("// %s\n// %s\n\npackage %s\n", emit.Header, emit.SourceLine(g.s), g.s.Codegen.GoPackage)
	// The serve sources are gofmt-formatted (make check); a new header and
	// package clause keep them so (TestGeneratedGoIsGofmt).
	return []byte(head + s[i+len("\npackage serve\n"):]), nil
}

// callback renders callback.go: the spec's callback settings as the
// constants the route and stores use.
func (g *generator) callback(f *jen.File) {
	cb := g.s.Callback
	g.comment(f, "CallbackPath is the gateway callback route (callback.path): a sandbox stub POSTs\n"+
		"{tool_call_id, args} to it with {sessionId} and {toolName} filled in.")
	f.Const().Id("CallbackPath").Op("=").Lit(cb.Path)
	g.comment(f, "DefaultRetention is how long MemoryStore keeps a completed call's result\n(callback.retention_ms).")
	f.Const().Id("DefaultRetention").Op("=").Lit(cb.RetentionMS).Op("*").Qual("time", "Millisecond")
	g.comment(f, "CallbackTimeout is the sandbox's timeout of one callback attempt (callback.timeout_ms).")
	f.Const().Id("CallbackTimeout").Op("=").Lit(cb.TimeoutMS).Op("*").Qual("time", "Millisecond")
	g.comment(f, "FingerprintHeader is the request header in which a generated stub sends its tool's\n"+
		"schema fingerprint (Tool.Fingerprint of the spec it was generated from). The route\n"+
		"answers with the gateway's fingerprint in the same header.")
	f.Const().Id("FingerprintHeader").Op("=").Lit(FingerprintHeader)
}

// checkCallbackPath reports a callback path the route cannot serve.
func checkCallbackPath(p string) error {
	if !strings.HasPrefix(p, "/") || strings.Count(p, "{sessionId}") != 1 || strings.Count(p, "{toolName}") != 1 {
		return fmt.Errorf("go: callback.path %q must start with / and hold {sessionId} and {toolName} once each", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.ContainsAny(seg, "{}") && seg != "{sessionId}" && seg != "{toolName}" {
			return fmt.Errorf("go: callback.path %q: a placeholder must be a whole path segment", p)
		}
	}
	return nil
}
