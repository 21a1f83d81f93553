package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// corpusSpecs loads every spec the repository keeps: the default, the
// first contract version, the coverage spec (every argument construct),
// the loader's accepted cases (each laid over its base spec) and a
// 100-tool synthetic spec.
func corpusSpecs(t *testing.T) map[string]*model.Spec {
	t.Helper()
	specs := map[string]*model.Spec{}
	for _, dir := range testspecs.Dirs {
		specs[testspecs.Name(dir)] = testspecs.Load(t, dir)
	}
	s, err := load.Load(load.Bytes("spec", synth.Files(100)))
	if err != nil {
		t.Fatal(err)
	}
	specs["synthetic"] = s
	loadDir := filepath.Join("..", "load", "testdata")
	base := map[string][]byte{}
	err = filepath.WalkDir(filepath.Join(loadDir, "base"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		base[filepath.Base(p)] = data
		return err
	})
	if err != nil || len(base) == 0 {
		t.Fatalf("reading the loader's base spec: %v (%d files)", err, len(base))
	}
	cases, err := filepath.Glob(filepath.Join(loadDir, "accepted", "*.txtar"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no accepted cases: %v", err)
	}
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for k, v := range base {
			files[k] = v
		}
		for _, f := range ar.Files {
			files[f.Name] = f.Data
		}
		s, err := load.Load(load.Bytes("spec", files))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		specs["accepted/"+filepath.Base(c)] = s
	}
	return specs
}

// TestSchemaAsEncodingJSON: for every tool of every corpus spec, the
// direct writer writes exactly the bytes encoding/json writes for the
// schema built as maps (referenceSchema).
func TestSchemaAsEncodingJSON(t *testing.T) {
	t.Parallel()
	tools := 0
	for name, s := range corpusSpecs(t) {
		for _, tool := range s.Tools {
			checkSchema(t, name+": "+tool.Name, tool)
			tools++
		}
	}
	if tools < 100 {
		t.Errorf("only %d tools compared", tools)
	}
}

// checkSchema fails unless Schema and referenceSchema agree on tool.
func checkSchema(t *testing.T, what string, tool *model.Tool) {
	t.Helper()
	got, gotErr := Schema(tool)
	want, wantErr := referenceSchema(tool)
	switch {
	case (gotErr != nil) != (wantErr != nil):
		t.Errorf("%s: error %v, reference's %v", what, gotErr, wantErr)
	case !bytes.Equal(got, want):
		t.Errorf("%s: schema\n%s\nencoding/json:\n%s", what, got, want)
	}
}

// FuzzSchema: for argument schemas built from arbitrary bytes — every
// kind, nested, with odd names, docs, patterns, bounds and defaults — the
// direct writer writes what encoding/json writes.
func FuzzSchema(f *testing.F) {
	for _, seed := range []string{"", "\x00", "\x01\x02\x03", "\x05\x05\x05\x00\x01", "abcdefghijklmnopqrstuvwxyz0123456789", "\xff\xfe\xfd\x80\x81\x82\x83\x84\x85\x86"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &typeGen{data: data}
		tool := &model.Tool{Name: "fuzzed", Args: g.object(0)}
		checkSchema(t, fmt.Sprintf("%q", data), tool)
	})
}

// typeGen builds model types from bytes, reading one byte per choice (0
// once the bytes run out).
type typeGen struct {
	data []byte
	n    int
}

func (g *typeGen) next() int {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return int(b)
}

func pick[T any](g *typeGen, vs []T) T { return vs[g.next()%len(vs)] }

var (
	genNames    = []string{"a", "b", "B", "é", "a b", "<x>", "q\"uote", "line\nbreak", "\u2028", "", "zz", "_"}
	genDocs     = []string{"", "A doc.", "<b> & \"q\"", "tab\there", "é😀", "\x01"}
	genPatterns = []string{"^a/b$", "[/]x", `\d+`, "^$", "a|b", `\.`}
	genNumbers  = []json.Number{"0", "1", "1.0", "-0.5", "1e21", "9007199254740993", "-9007199254740993", "1e400", "2.5e-7", "100"}
	genDefaults = []string{`1`, `1.0`, `"x<y"`, `{"b":1,"a":[1e0,"\u2028"]}`, `null`, `true`, `[]`, `{}`, `1e400`, `"é"`, `"\u00e9\"\n"`, `-0`, `"`, `"a"b"`, `01`}
	genInts     = []int{0, 1, 7, 100, 1 << 20}
)

func (g *typeGen) object(depth int) *model.Type {
	t := &model.Type{Kind: model.Object}
	seen := map[string]bool{}
	for range g.next() % 5 {
		name := pick(g, genNames)
		if seen[name] {
			continue
		}
		seen[name] = true
		f := &model.Field{Name: name, Presence: pick(g, []model.Presence{model.Required, model.Optional, model.Defaulted}), Type: g.typ(depth + 1)}
		if f.Presence == model.Defaulted {
			f.Default = json.RawMessage(pick(g, genDefaults))
		}
		t.Fields = append(t.Fields, f)
	}
	return t
}

func (g *typeGen) intp() *int {
	if g.next()%2 == 0 {
		return nil
	}
	v := pick(g, genInts)
	return &v
}

func (g *typeGen) bound() *model.Bound {
	if g.next()%3 == 0 {
		return nil
	}
	return &model.Bound{Value: pick(g, genNumbers), Exclusive: g.next()%2 == 0}
}

func (g *typeGen) typ(depth int) *model.Type {
	kinds := []model.Kind{model.String, model.Number, model.Integer, model.Boolean, model.Enum, model.Literal, model.Array, model.Object}
	if depth > 3 {
		kinds = kinds[:6]
	}
	t := &model.Type{Kind: pick(g, kinds), Doc: pick(g, genDocs)}
	switch t.Kind {
	case model.String:
		t.MinLength, t.MaxLength = g.intp(), g.intp()
		for range g.next() % 4 {
			t.Patterns = append(t.Patterns, model.Pattern{Regexp: pick(g, genPatterns)})
		}
		if g.next()%4 == 0 {
			t.Checks = []*model.Check{{Name: "Rule", Doc: pick(g, genDocs)}}
		}
	case model.Number, model.Integer:
		t.Minimum, t.Maximum = g.bound(), g.bound()
	case model.Enum:
		t.Enum = []string{pick(g, genNames), pick(g, genNames)}
	case model.Literal:
		t.Literal = pick(g, genNames)
	case model.Array:
		t.Items = g.typ(depth + 1)
		t.MinItems, t.MaxItems = g.intp(), g.intp()
	case model.Object:
		return g.object(depth)
	}
	return t
}
