package mcpgen_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/scratch"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/mcpgen"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// TestEmit: the MCP package imports only the standard library, the core
// package and its runtime; a spec without codegen.mcp gets no MCP files; the
// MCP-mode manifests write no gateway tool's files and keep the callback
// manifests' other entries.
func TestEmit(t *testing.T) {
	s, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}
	if s.Codegen.MCP == nil {
		t.Fatal("the default spec sets no codegen.mcp")
	}
	files, err := mcpgen.Emit(&emit.Pass{Spec: s})
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{s.Codegen.MCP.CoreImport, s.Codegen.MCPRuntimeImport()}
	var goFiles int
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".go") {
			continue
		}
		goFiles++
		parsed, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Data, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if parsed.Name.Name != s.Codegen.MCP.Package || path.Dir(f.Path) != s.Codegen.MCP.Dir {
			t.Errorf("%s: package %s", f.Path, parsed.Name.Name)
		}
		for _, imp := range parsed.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if strings.Contains(strings.Split(p, "/")[0], ".") && !slices.Contains(allowed, p) {
				t.Errorf("%s imports %s", f.Path, p)
			}
		}
	}
	if goFiles != 1 {
		t.Errorf("%d Go files, want tools.go alone (the default spec imports agentmcp)", goFiles)
	}

	for _, m := range s.Modes {
		// The manifest Emit wrote for the mode.
		var inj opencodelayout.Injection
		manifest := path.Join(s.Codegen.OpenCodeDir, opencodelayout.MCPInjectSubdir, m.Name+".json")
		if i := slices.IndexFunc(files, func(f emit.File) bool { return f.Path == manifest }); i < 0 {
			t.Fatalf("no %s", manifest)
		} else if err := json.Unmarshal(files[i].Data, &inj); err != nil {
			t.Fatal(err)
		}
		cb := opencodelayout.Inject(s, m, false)
		var written []string
		for _, w := range inj.Write {
			written = append(written, w.Path)
		}
		for _, ts := range m.Standings {
			stub := path.Join(s.OpenCode.ToolDir, ts.Tool.FileName+".ts")
			want := ts.Standing.Injected() && !ts.Tool.Execution.GatewayExecuted()
			if slices.Contains(written, stub) != want {
				t.Errorf("%s: writes %s: %v, want %v", m.Name, stub, !want, want)
			}
			if ts.Tool.Execution.GatewayExecuted() && !slices.Contains(inj.Remove, stub) {
				t.Errorf("%s: does not remove the gateway stub %s", m.Name, stub)
			}
		}
		if !slices.Equal(inj.Tools, cb.Tools) || len(inj.Write)+len(inj.Remove) != len(cb.Write)+len(cb.Remove) {
			t.Errorf("%s: the MCP manifest %+v does not account for the callback manifest %+v", m.Name, inj, cb)
		}
		for _, w := range inj.Write {
			if path.Base(w.Source) == opencodelayout.ConfigFile && w.Source != opencodelayout.MCPConfigFile {
				t.Errorf("%s: installs %s as %s, want the MCP-mode config", m.Name, w.Source, w.Path)
			}
		}
	}

	cfg, err := mcpgen.Config(s)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		MCP map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
			Timeout int               `json:"timeout"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(cfg, &parsed); err != nil {
		t.Fatal(err)
	}
	e := parsed.MCP[s.Contract.Name]
	if e.Type != "remote" || e.URL != "{env:"+s.Callback.EnvGatewayURL+"}"+opencodelayout.MCPPath ||
		e.Headers[opencodelayout.MCPSessionHeader] != "{env:"+s.Callback.EnvSessionID+"}" || e.Headers["Authorization"] != "Bearer {env:"+s.Callback.EnvAuthToken+"}" ||
		e.Timeout != s.Callback.TimeoutMS {
		t.Errorf("MCP entry %+v", e)
	}

	// A spec whose opencode.config already has a server of that name.
	clash, _ := load.Load(load.Default())
	clash.OpenCode.Config = []byte(`{"mcp":{"` + clash.Contract.Name + `":{"type":"local","command":["x"]}}}`)
	if _, err := mcpgen.Emit(&emit.Pass{Spec: clash}); err == nil || !strings.Contains(err.Error(), "already has an mcp server") {
		t.Errorf("an mcp entry clashing with the gateway's: %v", err)
	}

	s.Codegen.MCP = nil
	if files, err := mcpgen.Emit(&emit.Pass{Spec: s}); err != nil || len(files) != 0 {
		t.Errorf("without codegen.mcp: %d files, %v", len(files), err)
	}
}

// TestToolsTable: tools.go holds, for every gateway-executed tool, the
// description agentc emits (opencodelayout.ToolDescription) one literal per line,
// and the JSON Schema of jsonschema/<tool>.json, indented — which the
// server compacts to exactly the bytes of that schema compacted; a
// backquote in a description (which a raw string cannot hold) survives.
// For the default spec, the first contract version and the coverage spec.
func TestToolsTable(t *testing.T) {
	for _, dir := range testspecs.Dirs {
		s := testspecs.WithMCP(t, dir)
		var gateway []*model.Tool
		for _, tool := range s.Tools {
			if tool.Execution.GatewayExecuted() {
				gateway = append(gateway, tool)
			}
		}
		if len(gateway) == 0 {
			t.Fatalf("spec %q has no gateway tool", testspecs.Name(dir))
		}
		// A backquote in a tool's and in an argument's description.
		gateway[0].Description += "\nRun `make`."
		for _, tool := range gateway {
			if len(tool.Args.Fields) > 0 {
				tool.Args.Fields[0].Type.Doc += " See `x`."
				break
			}
		}
		descs, schemas := toolsTable(t, s)
		if len(descs) != len(gateway) {
			t.Errorf("%s spec: tools.go lists %d tools, want %d", testspecs.Name(dir), len(descs), len(gateway))
		}
		for _, tool := range gateway {
			if got, want := descs[tool.GoName], opencodelayout.ToolDescription(tool); got != want {
				t.Errorf("%s spec: %s: description\n%q, want\n%q", testspecs.Name(dir), tool.Name, got, want)
			}
			want, err := jsonschema.Schema(tool)
			if err != nil {
				t.Fatal(err)
			}
			got := schemas[tool.GoName]
			if got != strings.TrimSuffix(string(want), "\n") {
				t.Errorf("%s spec: %s: schema\n%s\nwant jsonschema's\n%s", testspecs.Name(dir), tool.Name, got, want)
			}
			var gotC, wantC bytes.Buffer
			if json.Compact(&gotC, []byte(got)) != nil || json.Compact(&wantC, want) != nil || gotC.String() != wantC.String() {
				t.Errorf("%s spec: %s: compacted schema %s, want %s", testspecs.Name(dir), tool.Name, gotC.String(), wantC.String())
			}
		}
	}
}

// toolsTable parses the tools.go that s generates and returns each table
// entry's description and schema, evaluated as Go evaluates them, by the
// Go name of the entry's tool.
func toolsTable(t *testing.T, s *model.Spec) (descs, schemas map[string]string) {
	t.Helper()
	files, err := mcpgen.Emit(&emit.Pass{Spec: s})
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	for _, f := range files {
		if path.Base(f.Path) == "tools.go" {
			src = f.Data
		}
	}
	file, err := parser.ParseFile(token.NewFileSet(), "tools.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]ast.Expr{}
	var table *ast.CompositeLit
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for i, name := range vs.Names {
				switch {
				case gd.Tok == token.CONST:
					consts[name.Name] = vs.Values[i]
				case name.Name == "tools":
					table = vs.Values[i].(*ast.CompositeLit)
				}
			}
		}
	}
	if table == nil {
		t.Fatalf("tools.go has no tools table:\n%s", src)
	}
	// str evaluates a string constant expression: literals joined by +,
	// or the name of a constant.
	var str func(e ast.Expr) string
	str = func(e ast.Expr) string {
		switch e := e.(type) {
		case *ast.BasicLit:
			v, err := strconv.Unquote(e.Value)
			if err != nil {
				t.Fatalf("literal %s: %v", e.Value, err)
			}
			return v
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				return str(e.X) + str(e.Y)
			}
		case *ast.Ident:
			if c, ok := consts[e.Name]; ok {
				return str(c)
			}
		}
		t.Fatalf("tools.go: %T is not a string constant", e)
		return ""
	}
	descs, schemas = map[string]string{}, map[string]string{}
	for _, elt := range table.Elts {
		var tool, desc, schema string
		for _, kv := range elt.(*ast.CompositeLit).Elts {
			kv := kv.(*ast.KeyValueExpr)
			switch kv.Key.(*ast.Ident).Name {
			case "Tool":
				tool = strings.TrimPrefix(kv.Value.(*ast.CallExpr).Args[0].(*ast.SelectorExpr).Sel.Name, "Tool")
			case "Description":
				desc = str(kv.Value)
			case "Schema":
				schema = str(kv.Value)
			}
		}
		descs[tool], schemas[tool] = desc, schema
	}
	return descs, schemas
}

// TestToolsGofmt: tools.go, written without go/format, is as gofmt writes
// it — for the default spec, the first contract version and the coverage
// spec, and for each with one-line descriptions (whose keyed values gofmt
// aligns), a backquote in a description, and no gateway tool at all.
func TestToolsGofmt(t *testing.T) {
	variants := map[string]func(s *model.Spec){
		"as is": func(*model.Spec) {},
		"one-line descriptions": func(s *model.Spec) {
			for i, tool := range s.Tools {
				tool.Description = strings.Repeat("Does things. ", i)
				tool.Deprecated = ""
			}
		},
		"a backquote": func(s *model.Spec) { s.Tools[0].Description += "\nRun `make` (`x`)." },
		"no gateway tool": func(s *model.Spec) {
			for _, tool := range s.Tools {
				tool.Execution = model.Sandbox
			}
		},
	}
	for _, dir := range testspecs.Dirs {
		for name, vary := range variants {
			s := testspecs.WithMCP(t, dir)
			vary(s)
			files, err := mcpgen.Emit(&emit.Pass{Spec: s})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(files, func(f emit.File) bool { return path.Base(f.Path) == "tools.go" })
			if i < 0 {
				t.Fatalf("%s spec, %s: no tools.go", testspecs.Name(dir), name)
			}
			got := files[i].Data
			want, err := format.Source(got)
			if err != nil {
				t.Fatalf("%s spec, %s: tools.go does not parse: %v", testspecs.Name(dir), name, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s spec, %s: tools.go is not as gofmt writes it:\n%s", testspecs.Name(dir), name, lineDiff(string(got), string(want)))
			}
		}
	}
}

// lineDiff returns the first line where got and want differ, with both.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: %q\ngofmt: %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, gofmt %d", len(g), len(w))
}

// TestNoGatewayToolVets: the MCP package of a spec without a
// gateway-executed tool (tsgen's bare spec) serves an empty tools table,
// and it and the core package it imports build and pass go vet.
func TestNoGatewayToolVets(t *testing.T) {
	t.Parallel()
	s := testspecs.Load(t, "../tsgen/testdata/bare")
	for _, tool := range s.Tools {
		if tool.Execution.GatewayExecuted() {
			t.Fatalf("the bare spec has a gateway tool, %s", tool.Name)
		}
	}
	if s.Codegen.MCP == nil {
		t.Fatal("the bare spec sets no codegen.mcp")
	}
	mod := scratch.New(t)
	s.Codegen.GoImport, s.Codegen.GoRuntime = scratch.Path+"/bare/"+s.Codegen.GoDir, ""
	s.Codegen.MCP.CoreImport, s.Codegen.MCP.Runtime = s.Codegen.GoImport, ""
	files, err := emit.Generate(s, emitters.All(), emit.Options{Only: []string{"go", "mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	mod.Add(t, "bare", files)
	findings, err := mod.GoVet()
	if err != nil {
		t.Fatal(err)
	}
	for _, lines := range findings {
		t.Errorf("go vet:\n%s", strings.Join(lines, "\n"))
	}
}

// TestCheckCoreImport: a spec that sets codegen.mcp and codegen.go.runtime
// but neither codegen.go.import nor codegen.mcp.core_import loads, and
// the emitters' checks, which vet runs, find at codegen.mcp what Emit
// fails on: the MCP package has no import path for the core package.
func TestCheckCoreImport(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../spec/starter")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "contract.cue")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const goImport = "\tgo: import: \"example.com/agent/generated/go/contract\"\n"
	if !bytes.Contains(src, []byte(goImport)) {
		t.Fatalf("the starter spec no longer says %q", goImport)
	}
	src = bytes.Replace(src, []byte(goImport), []byte("\tgo: runtime: \"example.com/rt/agentrt\"\n"), 1)
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	s := testspecs.Load(t, dir)
	findings := emit.Check(s, emitters.All())
	if len(findings) != 1 || findings[0].Pos != s.Codegen.MCP.Pos || !strings.Contains(findings[0].Msg, "codegen.mcp.core_import") {
		t.Fatalf("checks = %v, want one finding at codegen.mcp (%s)", findings, s.Codegen.MCP.Pos)
	}
	if _, err := mcpgen.Emit(&emit.Pass{Spec: s}); err == nil || err.Error() != findings[0].Error() {
		t.Errorf("Emit error %v, want the finding %v", err, findings[0])
	}
	s.Codegen.MCP.CoreImport = "example.com/agent/generated/go/contract"
	if findings := mcpgen.Check(s); len(findings) > 0 {
		t.Errorf("with a core import: Check = %v, want nothing", findings)
	}
}
