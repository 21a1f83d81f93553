// Code in this file registers the MCP emitter with the CLI.

package cli

import _ "github.com/agentc-dev/agentc/gen/mcpgen" // the "mcp" emitter
