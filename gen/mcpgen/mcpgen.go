// Package mcpgen emits the Model Context Protocol side of a contract
// (emitter "mcp"), when the spec sets codegen.mcp:
//
//   - a Go package (codegen.mcp.dir) that serves the gateway-executed
//     tools over MCP's Streamable HTTP transport with the core package's
//     Handler, decoders, mode gating and Store: tools.go, the spec's tools
//     table (descriptions, JSON Schemas) and the MCP server of package
//     agentmcp (on the official Go SDK) instantiated for the contract; and
//     a copy of agentmcp beside it (<dir>/agentmcp) unless
//     codegen.mcp.runtime names one to import;
//   - OpenCode's MCP-mode config (mcp/opencode.json under
//     codegen.opencode.dir: opencode.json plus a remote "mcp" entry for the
//     gateway) and one injection manifest per mode for that transport
//     (inject/mcp/<mode>.json: the sandbox-executed tools' files only; the
//     gateway tools' stubs are removed).
//
// The core package and its runtime stay standard-library only; only this
// package and its agentmcp import the SDK.
package mcpgen

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/gocopy"
	"github.com/agentc-dev/agentc/gen/jsonwrite"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// Emitter is emitter "mcp".
var Emitter = &emit.Emitter{
	Name:  "mcp",
	Doc:   "MCP server package for the gateway tools (Go SDK), OpenCode's MCP-mode config and injection manifests (when codegen.mcp is set)",
	Check: Check,
	Run:   Emit,
}

// Check reports, at codegen.mcp, a spec that asks for the MCP package but
// gives no import path of the core package it imports: codegen.go.runtime
// alone lets the core package import its runtime, and says nothing of
// where the core package is. Emit fails on the same finding.
func Check(s *model.Spec) diag.List {
	var l diag.List
	if m := s.Codegen.MCP; m != nil && m.CoreImport == "" {
		l.Add(m.Pos, "codegen", "set codegen.go.import (or codegen.mcp.core_import), the import path of the package in %s, "+
			"which the MCP package imports", s.Codegen.GoDir)
	}
	return l
}

// runtimeFS holds the MCP server's runtime package, which Emit copies
// beside the MCP package unless codegen.mcp.runtime names one to import.
//
//go:embed agentmcp/*.go
var runtimeFS embed.FS

// RuntimeImport is the import path of the MCP server's runtime package in
// agentc's own module (package agentmcp, in agentmcp/), and agentRT that of
// the core runtime it imports, which a copy imports from beside the core
// package.
const (
	RuntimeImport = "github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
	agentRT       = "github.com/agentc-dev/agentc/gen/gogen/agentrt"
)

// RuntimeVersion is the version of agentmcp's API the generated package is
// written against; it checks at compile time that its agentmcp serves it.
const RuntimeVersion = 1

// Emit returns the MCP files of the pass's spec, or none when codegen.mcp
// is not set.
func Emit(p *emit.Pass) ([]emit.File, error) {
	s := p.Spec
	m := s.Codegen.MCP
	if m == nil {
		return nil, nil
	}
	if err := Check(s).Err(); err != nil {
		return nil, err
	}
	tools, err := toolsFile(p, m)
	if err != nil {
		return nil, err
	}
	files := []emit.File{{Path: path.Join(m.Dir, "tools.go"), Data: tools}}
	if m.Runtime == "" {
		files = append(files, gocopy.Package(runtimeFS, "agentmcp", RuntimeImport, path.Join(m.Dir, "agentmcp"),
			map[string]string{agentRT: s.Codegen.RuntimeImport()})...)
	}
	cfg, err := Config(s)
	if err != nil {
		return nil, err
	}
	files = append(files, emit.File{Path: path.Join(s.Codegen.OpenCodeDir, opencodelayout.MCPConfigFile), Data: cfg})
	for _, mode := range s.Modes {
		data, _ := jsonwrite.Marshal(opencodelayout.Inject(s, mode, true)) // strings only: it always encodes
		files = append(files, emit.File{Path: path.Join(s.Codegen.OpenCodeDir, opencodelayout.MCPInjectSubdir, mode.Name+".json"), Data: data})
	}
	return files, nil
}

// toolsFile renders tools.go: the MCP server of package agentmcp
// instantiated for the contract, with the table of its gateway-executed
// tools, each one's description and JSON Schema. Descriptions are one Go
// literal per line of text and schemas indented JSON, one keyword a line,
// so that the file reads like the spec and a one-line change to the spec
// is a one-line change here. The file is written as gofmt writes it
// (TestToolsGofmt), so it is not formatted again: go/format was most of
// this emitter's time, run after every save under gen --watch.
func toolsFile(p *emit.Pass, m *model.MCPCodegen) ([]byte, error) {
	s := p.Spec
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n// %s\n\npackage %s\n", emit.Header, emit.SourceLine(s), m.Package)
	imports := []string{"contract " + strconv.Quote(m.CoreImport), strconv.Quote(s.Codegen.MCPRuntimeImport())}
	slices.SortFunc(imports, func(x, y string) int {
		return strings.Compare(x[strings.IndexByte(x, '"'):], y[strings.IndexByte(y, '"'):])
	})
	fmt.Fprintf(&b, "\nimport (\n\t%s\n\t%s\n)\n\n", imports[0], imports[1])
	fmt.Fprintf(&b, `// An "overflows" compiler error here means that the MCP server's runtime (package
// agentmcp) does not serve the API this package was generated against: generate the
// package and its runtime with the same agentc.
const (
	_ = agentmcp.EnforceVersion(%[1]d - agentmcp.MinVersion)
	_ = agentmcp.EnforceVersion(agentmcp.MaxVersion - %[1]d)
)

// Config configures New (see agentmcp.Config): the callback route's Handler, Auth,
// Sessions and Store serve both transports.
type Config = agentmcp.Config[contract.Handler, contract.Mode]

// Server is the MCP server of the contract's gateway-executed tools, an http.Handler
// (see agentmcp.Server).
type Server = agentmcp.Server[contract.Handler, contract.Mode]

// New returns the MCP server of the contract's gateway-executed tools.
func New(cfg Config) (*Server, error) {
	return agentmcp.New(&contract.Descriptor, tools, cfg)
}

`, RuntimeVersion)
	b.WriteString("// tools are the gateway-executed tools, sorted by name: what tools/list shows\n" +
		"// (for the modes that inject them) and the JSON Schema agentc emits for each.\n")
	b.WriteString("var tools = []agentmcp.Tool{")
	// One pass over the gateway tools writes the table into b and the
	// schemas' constants, which follow it, into consts.
	var consts bytes.Buffer
	for _, t := range s.Tools {
		if !t.Execution.GatewayExecuted() {
			continue
		}
		schema, err := p.ToolSchema(t)
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %s: %w", t.Name, err)
		}
		// gofmt aligns the values of consecutive one-line keyed
		// elements; a description on several lines, indented one more
		// tab after its first, ends the run.
		desc := textLines(opencodelayout.ToolDescription(t))
		pad, descPad, schemaPad := "        ", " ", "      "
		if strings.Contains(desc, "\n") {
			pad, descPad, schemaPad, desc = " ", " ", " ", strings.ReplaceAll(desc, "\n", "\n\t\t\t")
		}
		for _, piece := range []string{"\n\t{\n\t\tTool:", pad, "int(contract.Tool", t.GoName, "),\n\t\tDescription:", descPad, desc,
			",\n\t\tSchema:", schemaPad, "schema", t.GoName, ",\n\t},"} {
			b.WriteString(piece)
		}
		for _, piece := range []string{"\n// schema", t.GoName, " is the JSON Schema of the arguments of\n// ", t.Name, " (", path.Join(s.Codegen.JSONSchemaDir, t.FileName+".json"), ").\nconst schema", t.GoName, " = ",
			rawString(strings.TrimSuffix(string(schema), "\n")), "\n"} {
			consts.WriteString(piece)
		}
	}
	if consts.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	b.Write(consts.Bytes())
	return b.Bytes(), nil
}

// textLines quotes text, which does not end in a line break (a tool's
// description, which ToolDescription trims), as Go literals joined with
// +, one per line of the text, each line's "\n" ending its literal.
func textLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	quoted := make([]string, len(lines))
	for i, l := range lines {
		quoted[i] = strconv.Quote(l)
	}
	return strings.Join(quoted, " +\n")
}

// rawString quotes s as a raw string, which keeps its lines as they are;
// a backquote, which a raw string cannot hold, is spliced in as "`".
func rawString(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "` + \"`\" + `") + "`"
}

// Config returns the MCP-mode opencode.json: the callback mode's config
// plus a remote MCP server entry for the gateway, under the contract's
// name (OpenCode shows its tools to the model as <name>_<tool>), whose
// URL, token and session OpenCode reads from the same environment
// variables the callback stubs read, and whose timeout is a callback's.
func Config(s *model.Spec) ([]byte, error) {
	cfg, err := opencodelayout.Config(s)
	if err != nil {
		return nil, err
	}
	servers, _ := cfg["mcp"].(map[string]any)
	if servers == nil {
		if _, ok := cfg["mcp"]; ok {
			return nil, fmt.Errorf("mcp: opencode.config's \"mcp\" is not an object")
		}
		servers = map[string]any{}
	}
	name := s.Contract.Name
	if _, ok := servers[name]; ok {
		return nil, fmt.Errorf("mcp: opencode.config already has an mcp server %q; the gateway's entry takes the contract's name", name)
	}
	cb := s.Callback
	servers[name] = map[string]any{
		"type":    "remote",
		"url":     "{env:" + cb.EnvGatewayURL + "}" + opencodelayout.MCPPath,
		"enabled": true,
		// OpenCode's wait for a tool call, as the stubs' for a callback:
		// without it OpenCode 1.18.33 gives up after 60 s (the MCP SDK's).
		"timeout": cb.TimeoutMS,
		"headers": map[string]any{
			"Authorization":                 "Bearer {env:" + cb.EnvAuthToken + "}",
			opencodelayout.MCPSessionHeader: "{env:" + cb.EnvSessionID + "}",
		},
	}
	cfg["mcp"] = servers
	return jsonwrite.Marshal(cfg)
}
