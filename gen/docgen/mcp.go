package docgen

import (
	"bytes"
	"fmt"
	"path"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// mcpSection documents the MCP transport (codegen.mcp): how a gateway
// mounts it beside the callback route, and how OpenCode reaches it.
func mcpSection(b *bytes.Buffer, s *model.Spec) {
	m := s.Codegen.MCP
	if m == nil {
		return
	}
	c := s.Callback
	var gw []string
	for _, t := range s.Tools {
		if t.Execution.GatewayExecuted() {
			gw = append(gw, t.Name)
		}
	}
	b.WriteString("\n## Gateway tools over MCP\n\n")
	fmt.Fprintf(b, "The gateway-executed tools (%s) are also served over the Model Context Protocol, by the Go package `%s` (`%s`, on the official Go SDK), with the same `Handler`, decoders, mode gating and idempotency store as the callback route:\n\n",
		codeList(gw), m.Package, path.Join(s.Codegen.Out, m.Dir))
	fmt.Fprintf(b, "- Streamable HTTP at `{%s}%s` (stateless, JSON answers), with `Authorization: Bearer {%s}` and the session's id in `%s: {%s}`.\n",
		c.EnvGatewayURL, opencodelayout.MCPPath, c.EnvAuthToken, opencodelayout.MCPSessionHeader, c.EnvSessionID)
	b.WriteString("- `tools/list` shows exactly the gateway tools of the session's mode, each with its description and JSON Schema; `tools/call` of another tool is refused without executing.\n")
	b.WriteString("- A result's text is the callback's `result`, `isError` is `!success`, and `structuredContent` is the callback's answer `{success, result, data?}`; invalid arguments are an `isError` result `Invalid arguments: …`, the same text as the callback's.\n")
	fmt.Fprintf(b, "- A call that carries `_meta[%q]` is executed once per session and id, across both transports (the same store key and request hash as the callback's `tool_call_id`); a call without one has no identity a retry could repeat, and executes.\n", opencodelayout.MCPToolCallIDMeta)
	fmt.Fprintf(b, "- OpenCode in MCP mode: `%s` adds the remote server `%s` to `opencode.json` (its tools reach the model as `%s_<tool>`), and `%s/<mode>.json` installs only the sandbox tools' files.\n\n",
		path.Join(s.Codegen.OpenCodeDir, opencodelayout.MCPConfigFile), s.Contract.Name, s.Contract.Name, path.Join(s.Codegen.OpenCodeDir, opencodelayout.MCPInjectSubdir))
	fmt.Fprintf(b, "```go\nroute, err := %[1]s.NewRoute(%[1]s.RouteConfig{Handler: h, Auth: auth, Sessions: sessions, Store: store})\n", s.Codegen.GoPackage)
	fmt.Fprintf(b, "mcpServer, err := %[1]s.New(%[1]s.Config{Handler: h, Auth: auth, Sessions: sessions, Store: store})\n", m.Package)
	b.WriteString("mux.Handle(route.Pattern(), route)         // the callback route\nmux.Handle(mcpServer.Pattern(), mcpServer) // MCP, beside it\n```\n")
}
