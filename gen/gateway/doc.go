// Package gateway holds the integration tests of the generated gateway
// callback route (generated/go/contract's NewRoute over its runtime,
// gen/gogen/agentrt: Route, MemoryStore, SQLStore): its answers, its
// idempotency in memory and in PostgreSQL across restarts and under
// faults, version drift between sandbox stubs and the gateway, behaviour
// under load, a benchmark against a bare net/http handler, and a tool call
// end to end through the real `opencode serve`.
//
// It also tests the generated MCP server (generated/go/contractmcp over
// gen/mcpgen/agentmcp) beside the route: tools/list and tools/call per
// mode, authentication, results equal to the route's for the conformance
// corpus through the official Go and TypeScript SDK clients, one execution
// per tool_call_id across both transports, OpenCode reaching the gateway
// tools over MCP, and a benchmark against the route.
package gateway
