// Package mcpserve is the source of the generated MCP package's server:
// server.go is copied verbatim (package clause and the core package's
// import path replaced, agentc's header added) into the package emitter
// "mcp" writes. It is compiled here against package serve, which stands in
// for the generated core package, and against this file, which stands in
// for the generated tools table; this file is not copied. The generated
// copy is tested in gen/gateway.
package mcpserve

// serverName stands in for the generated constant (the contract's name).
const serverName = "contract"

// serverVersion stands in for the generated constant (its revision).
const serverVersion = "0"

// tools stands in for the generated table of gateway-executed tools.
var tools []toolSpec
