package mcpgen_test

import (
	"bytes"
	"encoding/json"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/mcpgen"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/tsgen"
)

// TestEmit: the MCP package imports only the standard library, the core
// package and the SDK; a spec without codegen.mcp gets no MCP files; the
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
	files, err := mcpgen.Emit(s)
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{s.Codegen.MCP.CoreImport, "github.com/modelcontextprotocol/go-sdk/mcp"}
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
	if goFiles != 2 {
		t.Errorf("%d Go files, want server.go and tools.go", goFiles)
	}

	for _, m := range s.Modes {
		inj, cb := mcpgen.Inject(s, m), tsgen.Inject(s, m)
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
			if path.Base(w.Source) == tsgen.ConfigFile && w.Source != mcpgen.ConfigFile {
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
		} `json:"mcp"`
	}
	if err := json.Unmarshal(cfg, &parsed); err != nil {
		t.Fatal(err)
	}
	e := parsed.MCP[mcpgen.ServerName(s)]
	if e.Type != "remote" || e.URL != "{env:"+s.Callback.EnvGatewayURL+"}"+mcpgen.Path ||
		e.Headers[mcpgen.SessionHeader] != "{env:"+s.Callback.EnvSessionID+"}" || e.Headers["Authorization"] != "Bearer {env:"+s.Callback.EnvAuthToken+"}" {
		t.Errorf("MCP entry %+v", e)
	}

	// A spec whose opencode.config already has a server of that name.
	clash, _ := load.Load(load.Default())
	clash.OpenCode.Config = []byte(`{"mcp":{"` + mcpgen.ServerName(clash) + `":{"type":"local","command":["x"]}}}`)
	if _, err := mcpgen.Emit(clash); err == nil || !strings.Contains(err.Error(), "already has an mcp server") {
		t.Errorf("an mcp entry clashing with the gateway's: %v", err)
	}

	s.Codegen.MCP = nil
	if files, err := mcpgen.Emit(s); err != nil || len(files) != 0 {
		t.Errorf("without codegen.mcp: %d files, %v", len(files), err)
	}
}

// TestToolsFileIsFormatted: tools.go, written as gofmt would write it, is
// what format.Source makes of it: for the default spec, a large synthetic
// one, one without gateway tools, odd descriptions (a backquote in a
// schema makes it a quoted string), and a description too long for gofmt
// to align.
func TestToolsFileIsFormatted(t *testing.T) {
	base := load.Default().Files
	edited := func(edit func(tools string) string) map[string][]byte {
		files := maps.Clone(base)
		files["tools.cue"] = []byte(edit(string(base["tools.cue"])))
		return files
	}
	for name, files := range map[string]map[string][]byte{
		"default":          base,
		"synthetic":        synth.Files(60),
		"no gateway tools": base, // made so below
		"odd text": edited(func(s string) string {
			return strings.Replace(s, "description: \"\"\"\n", "description: \"\"\"\n\t\tTabs\tand `backquotes`, \"quotes\", π, \\u0001.\n", 1)
		}),
		"huge description": edited(func(s string) string {
			return strings.Replace(s, "description: \"\"\"\n", "description: \"\"\"\n\t\t"+strings.Repeat("word ", 200_000)+"\n", 1)
		}),
	} {
		t.Run(name, func(t *testing.T) {
			s, err := load.Load(load.Bytes("spec", files))
			if err != nil {
				t.Fatal(err)
			}
			if name == "no gateway tools" {
				for _, tool := range s.Tools {
					tool.Execution = model.Sandbox
				}
			}
			out, err := mcpgen.Emit(s)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(out, func(f emit.File) bool { return path.Base(f.Path) == "tools.go" })
			if i < 0 {
				t.Fatal("no tools.go")
			}
			want, err := format.Source(out[i].Data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out[i].Data, want) {
				t.Errorf("tools.go is not as gofmt writes it:\n%s", diff.Diff("got", out[i].Data, "gofmt", want))
			}
		})
	}
}
