package gogen

import (
	"fmt"
	"strings"
)

// callback writes callback.go: the spec's callback settings, the
// descriptor of the contract the runtime is written against, and the
// runtime's callback route instantiated for this contract.
func (g *generator) callback(src *goSource) {
	cb := g.s.Callback
	src.doc("CallbackPath is the gateway callback route (callback.path): a sandbox stub POSTs\n" +
		"{tool_call_id, args} to it with {sessionId} and {toolName} filled in.")
	src.text("const CallbackPath = %q\n\n", cb.Path)
	src.doc("DefaultRetention is how long a store of NewMemoryStore keeps a completed call's\n" +
		"result (callback.retention_ms).")
	src.text("const DefaultRetention = %d * %s.Millisecond\n\n", cb.RetentionMS, src.use("time"))
	src.doc("CallbackTimeout is the sandbox's timeout of one callback attempt (callback.timeout_ms).")
	src.text("const CallbackTimeout = %d * %s.Millisecond\n", cb.TimeoutMS, src.use("time"))
	src.add()

	rt := src.use(g.runtime)
	src.doc("Descriptor describes this contract to its runtime (package agentrt): the callback\n" +
		"route and the MCP server are written against it.")
	src.text(`var Descriptor = %[1]s.Contract[Handler, Mode]{
	Name:     ContractName,
	Revision: ContractRevision,
	Tools:    toolTable[:],
	Modes:    Modes(),
	Injects: func(m Mode, t int) bool {
		return m.Has(Tool(t))
	},
	CallbackPath: CallbackPath,
	Retention:    DefaultRetention,
	Dispatch:     Dispatch,
}
`, rt)
	src.add()
	g.aliases(src,
		alias{"RouteConfig configures NewRoute (see agentrt.RouteConfig).", "RouteConfig", "RouteConfig[Handler, Mode]"},
		alias{"Route is the gateway callback route, an http.Handler (see agentrt.Route).", "Route", "Route[Handler, Mode]"})
	src.doc("NewRoute returns the callback route of this contract.")
	src.text(`func NewRoute(cfg RouteConfig) (*Route, error) {
	return %s.NewRoute(&Descriptor, cfg)
}
`, src.use(g.runtime))
	src.add()
	g.aliases(src,
		alias{"Sessions gives the route each session's mode (see agentrt.Sessions).", "Sessions", "Sessions[Mode]"},
		alias{"SessionsFunc is a Sessions made of a function.", "SessionsFunc", "SessionsFunc[Mode]"})
	src.doc("NewMemoryStore returns an idempotency store in memory that keeps results for\n" +
		"DefaultRetention.")
	src.text(`func NewMemoryStore() *%[1]s.MemoryStore {
	return &%[1]s.MemoryStore{Retention: DefaultRetention}
}
`, src.use(g.runtime))
	src.add()
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
