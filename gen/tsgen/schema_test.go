package tsgen_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// schemaDriver imports each tool module named on stdin and prints zod's
// toJSONSchema of its args object, input view: what OpenCode shows the
// model.
const schemaDriver = `import { register } from "node:module"
import { pathToFileURL } from "node:url"
register("./hooks.mjs", import.meta.url)
const { tool } = await import("@opencode-ai/plugin")
let input = ""
for await (const chunk of process.stdin) input += chunk
const out = []
for (const m of JSON.parse(input)) {
  const mod = await import(pathToFileURL(m).href)
  out.push(tool.schema.toJSONSchema(tool.schema.object(mod.default.args), { io: "input" }))
}
process.stdout.write(JSON.stringify(out))
`

// TestSchemaIsZods: for every tool of the loader's accepted cases — among
// them argument names that JavaScript orders first (array indices) — the
// generated JSON Schema is, canonically, zod's toJSONSchema of the
// generated tool's arguments under node, which is what OpenCode shows the
// model (TestOpenCodeLoadsEachMode checks that against the real OpenCode
// for the test specs).
func TestSchemaIsZods(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	root := t.TempDir()
	hooks, err := os.ReadFile(filepath.Join("testdata", "node", "hooks.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "hooks.mjs"), hooks)
	writeFile(t, filepath.Join(root, "driver.mjs"), []byte(schemaDriver))
	if err := os.Symlink(nodetool.Dir(t), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}

	loadDir := filepath.Join("..", "load", "testdata")
	base, err := load.Dir(filepath.Join(loadDir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob(filepath.Join(loadDir, "accepted", "*.txtar"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no accepted cases: %v", err)
	}
	type compared struct {
		what   string
		tool   *model.Tool
		module string
		want   []byte
	}
	var tools []compared
	for i, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			t.Fatal(err)
		}
		files := maps.Clone(base.Files)
		for _, f := range ar.Files {
			files[f.Name] = f.Data
		}
		s, err := load.Load(load.Bytes("spec", files))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		out, err := emit.Generate(s, emitters.All(), emit.Options{Only: []string{"opencode", "jsonschema"}})
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		dir := filepath.Join(root, "case"+string(rune('a'+i)))
		byPath := map[string][]byte{}
		for _, f := range out {
			byPath[f.Path] = f.Data
			writeFile(t, filepath.Join(dir, filepath.FromSlash(f.Path)), f.Data)
		}
		for _, tl := range s.Tools {
			tools = append(tools, compared{
				what:   filepath.Base(c) + ": tool " + tl.Name,
				tool:   tl,
				module: filepath.Join(dir, filepath.FromSlash(s.Codegen.OpenCodeDir), opencodelayout.ToolSubdir, tl.FileName+".ts"),
				want:   byPath[path.Join(s.Codegen.JSONSchemaDir, tl.FileName+".json")],
			})
		}
	}

	var modules []string
	for _, c := range tools {
		modules = append(modules, c.module)
	}
	in, _ := json.Marshal(modules)
	got := runDriver(t, node, root, "driver.mjs", in)
	var schemas []json.RawMessage
	if err := json.Unmarshal(got, &schemas); err != nil || len(schemas) != len(tools) {
		t.Fatalf("driver output %.200s: %v", got, err)
	}
	indexKeys := false
	for i, c := range tools {
		zod, err := jsonschema.Canonical(schemas[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(zod, c.want) {
			t.Errorf("%s: zod's JSON Schema\n%s\nthe generated\n%s", c.what, zod, c.want)
		}
		indexKeys = indexKeys || slices.ContainsFunc(c.tool.Args.Fields, func(f *model.Field) bool { return js.ArrayIndex(f.Name) })
	}
	if !indexKeys {
		t.Error("no accepted case has an argument named like an array index")
	}
}
