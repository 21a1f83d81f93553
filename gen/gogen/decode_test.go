package gogen

import (
	"bytes"
	"flag"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/model"
)

var updateDecode = flag.Bool("update-decode", false, "rewrite testdata/decodetext/decode.go.golden")

// decodeTextSpec loads testdata/decodetext: the layouts the decoders are
// written in (defaults of every kind, lists of strings, enums and objects
// among them, object defaults gofmt lays out over
// several lines, a call too long for a line, nested lists, field
// names a // comment cannot hold as they are).
func decodeTextSpec(t *testing.T) *model.Spec {
	t.Helper()
	return testspecs.Load(t, filepath.Join("testdata", "decodetext"))
}

// TestDecodeTextGolden: decode.go of testdata/decodetext is the golden
// file (-update-decode rewrites it; review its diff by eye).
func TestDecodeTextGolden(t *testing.T) {
	s := decodeTextSpec(t)
	files, err := Emit(&emit.Pass{Spec: s})
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "decodetext", "decode.go.golden")
	for _, f := range files {
		if path.Base(f.Path) != "decode.go" {
			continue
		}
		if *updateDecode {
			if err := os.WriteFile(golden, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("decode.go differs from %s (go test ./gen/gogen -run TestDecodeTextGolden -update-decode rewrites it)", golden)
		}
		return
	}
	t.Fatal("Emit wrote no decode.go")
}

// TestDecodeTextIsGofmt: the files of testdata/decodetext, whose decoders
// hold every layout the writer writes and one go/format lays out, are what
// go/format makes of them.
func TestDecodeTextIsGofmt(t *testing.T) {
	checkGofmt(t, "decodetext", emitGo(t, decodeTextSpec(t)))
}

// TestDecodersSkipFormatting: every object decoder and its tables are
// written formatted; only a declaration that holds what gofmt must lay
// out (an object default of several fields) is left to go/format.
func TestDecodersSkipFormatting(t *testing.T) {
	type spec struct {
		s           *model.Spec
		unformatted []string // declarations go/format formats
	}
	specs := []spec{{decodeTextSpec(t), []string{"func decodeLayoutsArgs("}}}
	for _, dir := range testspecs.Dirs {
		specs = append(specs, spec{s: testspecs.Load(t, dir)})
	}
	for _, c := range specs {
		g, errs := newGenerator(c.s)
		if errs != nil {
			t.Fatal(errs)
		}
		var src goSource
		g.decoders(&src)
		if src.err != nil {
			t.Fatal(src.err)
		}
		var formatted, other []byte
		for _, d := range src.decls {
			if d.gofmt {
				other = append(other, d.text...)
			} else {
				formatted = append(formatted, d.text...)
			}
		}
		for _, ty := range g.decoded {
			for _, decl := range []string{"func decode" + ty.GoName + "(", "var keys" + ty.GoName + " ", "var missing" + ty.GoName + " "} {
				if len(ty.Fields) == 0 && !strings.HasPrefix(decl, "func") {
					continue
				}
				in, want := formatted, "written formatted"
				for _, u := range c.unformatted {
					if u == decl {
						in, want = other, "left to go/format"
					}
				}
				if !bytes.Contains(in, []byte("\n"+decl)) {
					t.Errorf("%s: %s… is not %s", c.s.Contract.Name, decl, want)
				}
			}
		}
	}
}

// TestDecodeJSKeyOrder: an object's decoder reports its fields' issues,
// and its absent fields', in the order zod checks the keys, JavaScript's:
// the array-index keys ("1", "7"; not "09") first, ascending, then the
// others as declared (testdata/decodetext declares b, 7, 09, a, 1).
func TestDecodeJSKeyOrder(t *testing.T) {
	files, err := Emit(&emit.Pass{Spec: decodeTextSpec(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if path.Base(f.Path) != "decode.go" {
			continue
		}
		_, table, ok := strings.Cut(string(f.Data), "var keysLayoutsOrder = []string{\n")
		if !ok {
			t.Fatal("decode.go declares no keysLayoutsOrder")
		}
		table, _, _ = strings.Cut(table, "}")
		if got, want := strings.Join(strings.Fields(table), " "), `"1", "7", "b", "09", "a",`; got != want {
			t.Errorf("keysLayoutsOrder = %s, want %s", got, want)
		}
		if !strings.Contains(string(f.Data), "issues come out in JavaScript's key\n// order (array indices first, ascending).\nfunc decodeLayoutsOrder(") {
			t.Error("decodeLayoutsOrder's doc does not say its issues' order")
		}
		return
	}
	t.Fatal("Emit wrote no decode.go")
}

// TestListItemConstraints: a list's doc comment states its items'
// constraints after "each item:", once under one "Constraints:" (the
// grid of testdata/decodetext, a list of lists of bounded integers).
func TestListItemConstraints(t *testing.T) {
	files, err := Emit(&emit.Pass{Spec: decodeTextSpec(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := "// Constraints: at most 3 items; each item: at least 1 items; each item: >= 0; < 10.\n"
	for _, f := range files {
		if path.Base(f.Path) == "tools.go" && !bytes.Contains(f.Data, []byte(want)) {
			t.Errorf("tools.go lacks the grid's constraints %q", want)
		}
	}
}
