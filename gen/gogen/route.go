package gogen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// callback renders callback.go: the spec's callback settings, the
// descriptor of the contract the runtime is written against, and the
// runtime's callback route instantiated for this contract.
func (g *generator) callback(f *jen.File) {
	cb := g.s.Callback
	g.comment(f, "CallbackPath is the gateway callback route (callback.path): a sandbox stub POSTs\n"+
		"{tool_call_id, args} to it with {sessionId} and {toolName} filled in.")
	f.Const().Id("CallbackPath").Op("=").Lit(cb.Path)
	g.comment(f, "DefaultRetention is how long a store of NewMemoryStore keeps a completed call's\n"+
		"result (callback.retention_ms).")
	f.Const().Id("DefaultRetention").Op("=").Lit(cb.RetentionMS).Op("*").Qual("time", "Millisecond")
	g.comment(f, "CallbackTimeout is the sandbox's timeout of one callback attempt (callback.timeout_ms).")
	f.Const().Id("CallbackTimeout").Op("=").Lit(cb.TimeoutMS).Op("*").Qual("time", "Millisecond")

	g.comment(f, "Descriptor describes this contract to its runtime (package agentrt): the callback\n"+
		"route and the MCP server are written against it.")
	f.Var().Id("Descriptor").Op("=").Qual(g.runtime, "Contract").Types(jen.Id("Handler"), jen.Id("Mode")).Add(keyed(
		"Name", jen.Id("ContractName"),
		"Revision", jen.Id("ContractRevision"),
		"Tools", jen.Id("toolTable").Index(jen.Empty(), jen.Empty()),
		"Injects", jen.Func().Params(jen.Id("m").Id("Mode"), jen.Id("t").Int()).Bool().Block(
			jen.Return(jen.Id("m").Dot("Has").Call(jen.Id("Tool").Call(jen.Id("t"))))),
		"CallbackPath", jen.Id("CallbackPath"),
		"Retention", jen.Id("DefaultRetention"),
		"Dispatch", jen.Id("Dispatch")))
	g.comment(f, "RouteConfig configures NewRoute (see agentrt.RouteConfig).")
	f.Type().Id("RouteConfig").Op("=").Qual(g.runtime, "RouteConfig").Types(jen.Id("Handler"), jen.Id("Mode"))
	g.comment(f, "Route is the gateway callback route, an http.Handler (see agentrt.Route).")
	f.Type().Id("Route").Op("=").Qual(g.runtime, "Route").Types(jen.Id("Handler"), jen.Id("Mode"))
	g.comment(f, "NewRoute returns the callback route of this contract.")
	f.Func().Id("NewRoute").Params(jen.Id("cfg").Id("RouteConfig")).Params(jen.Op("*").Id("Route"), jen.Error()).Block(
		jen.Return(jen.Qual(g.runtime, "NewRoute").Call(jen.Op("&").Id("Descriptor"), jen.Id("cfg"))))
	g.comment(f, "Sessions gives the route each session's mode (see agentrt.Sessions).")
	f.Type().Id("Sessions").Op("=").Qual(g.runtime, "Sessions").Types(jen.Id("Mode"))
	g.comment(f, "SessionsFunc is a Sessions made of a function.")
	f.Type().Id("SessionsFunc").Op("=").Qual(g.runtime, "SessionsFunc").Types(jen.Id("Mode"))
	g.comment(f, "NewMemoryStore returns an idempotency store in memory that keeps results for\n"+
		"DefaultRetention.")
	f.Func().Id("NewMemoryStore").Params().Op("*").Qual(g.runtime, "MemoryStore").Block(
		jen.Return(jen.Op("&").Qual(g.runtime, "MemoryStore").Values(jen.Dict{jen.Id("Retention"): jen.Id("DefaultRetention")})))
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
