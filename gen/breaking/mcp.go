package breaking

import "github.com/agentc-dev/agentc/gen/model"

// mcp compares the MCP transport (codegen.mcp, emitter "mcp"). Its tools
// are the gateway tools under their names, which the tool rules already
// cover; what remains is whether the package exists, where it is, and the
// server name MCP clients see.
func (c *cmpr) mcp() {
	o, n := c.old.Codegen.MCP, c.new.Codegen.MCP
	switch {
	case o == nil && n == nil:
		return
	case n == nil:
		c.add("MCP_SERVER_REMOVED", About{}, model.Pos{}, o.Pos, "the MCP server package %s is no longer generated", o.Dir)
		return
	case o == nil:
		c.add("MCP_SERVER_ADDED", About{}, n.Pos, model.Pos{}, "the gateway tools are now also served over MCP by package %s (%s)", n.Package, n.Dir)
		return
	}
	if o.Dir != n.Dir || o.Package != n.Package {
		c.add("MCP_PACKAGE_MOVED", About{}, n.Pos, o.Pos, "the MCP server package moved from %s (%s) to %s (%s)", o.Package, o.Dir, n.Package, n.Dir)
	}
	if o.CoreImport != n.CoreImport {
		c.add("MCP_PACKAGE_MOVED", About{}, n.Pos, o.Pos, "the MCP server package now imports %q, not %q", n.CoreImport, o.CoreImport)
	}
	if c.old.Contract.Name != c.new.Contract.Name {
		c.add("MCP_SERVER_RENAMED", About{}, n.Pos, o.Pos, "the MCP server is now %q, not %q: its tools reach the model as %s_<tool>", c.new.Contract.Name, c.old.Contract.Name, c.new.Contract.Name)
	}
}
