package gogen

import (
	"encoding/json"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/model"
)

// TestRenderMemo: with rendered declarations remembered (gen --watch),
// every kind of edit of the model, one after the other, gives exactly the
// files a fresh Emit gives, each edit changes them, and an Emit of an
// unchanged model builds no unit again. This is what makes the memory's
// keys sound: an input a unit reads but its key left out would make one of
// these edits come out stale.
func TestRenderMemo(t *testing.T) {
	t.Parallel()
	for _, dir := range testspecs.Dirs {
		t.Run(testspecs.Name(dir), func(t *testing.T) {
			t.Parallel()
			s := testspecs.Load(t, dir)
			var m emit.Memo
			prev := emitFiles(t, s, &m)
			applied := 0
			for _, ed := range modelEdits {
				if !ed.apply(s) {
					continue
				}
				applied++
				want := emitFiles(t, s, nil)
				got := emitFiles(t, s, &m)
				for i := range want {
					if want[i].Path != got[i].Path || string(want[i].Data) != string(got[i].Data) {
						t.Errorf("after %s: %s differs from a fresh render", ed.name, want[i].Path)
					}
				}
				if sameFiles(prev, want) {
					t.Errorf("%s changed no Go file: the edit tests nothing", ed.name)
				}
				prev = want
			}
			if applied < 8 {
				t.Errorf("only %d of %d edits applied to the %s spec", applied, len(modelEdits), testspecs.Name(dir))
			}
			before := m.Kept.(renders)
			again := emitFiles(t, s, &m)
			if !sameFiles(again, prev) {
				t.Error("a render from memory differs from the last one")
			}
			// A unit reused is the very declarations remembered; one built
			// again is a copy of its own.
			built := 0
			for key, u := range m.Kept.(renders) {
				if b := before[key]; len(b) == 0 || &b[0] != &u[0] {
					built++
				}
			}
			if built != 0 {
				t.Errorf("an unchanged model built %d units again, want 0", built)
			}
		})
	}
}

// emitFiles is Emit in a session whose memory of rendered units for the
// Go emitter is m (it reads and updates it), or outside one (m nil: a
// fresh render).
func emitFiles(t *testing.T, s *model.Spec, m *emit.Memo) []emit.File {
	t.Helper()
	files, err := Emit(&emit.Pass{Spec: s, Memo: m})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(a, b []emit.File) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path || string(a[i].Data) != string(b[i].Data) {
			return false
		}
	}
	return true
}

// modelEdits change, in place, one input of each kind the Go package's
// declarations read; apply reports false when the spec has nothing to edit.
var modelEdits = []struct {
	name  string
	apply func(s *model.Spec) bool
}{
	{"a tool's name", func(s *model.Spec) bool { s.Tools[0].Name += "_edited"; return true }},
	{"a tool's deprecation", func(s *model.Spec) bool {
		s.Tools[0].Deprecated += "edited"
		return true
	}},
	{"a field's doc", firstField(func(f *model.Field) bool { f.Type.Doc += " Edited."; return true })},
	{"a field's JSON name", firstField(func(f *model.Field) bool { f.Name += "_edited"; return true })},
	{"a field's presence", firstField(func(f *model.Field) bool {
		if f.Presence != model.Required {
			return false
		}
		f.Presence = model.Optional
		return true
	})},
	{"a default", firstField(func(f *model.Field) bool {
		if f.Presence != model.Defaulted || f.Type.Kind != model.String {
			return false
		}
		f.Default = json.RawMessage(`"edited"`)
		return true
	})},
	{"a length limit", firstType(func(t *model.Type) bool {
		if t.MaxLength == nil {
			return false
		}
		n := *t.MaxLength + 1
		t.MaxLength = &n
		return true
	})},
	{"an item limit", firstType(func(t *model.Type) bool {
		if t.Kind != model.Array {
			return false
		}
		n := 7
		if t.MaxItems != nil {
			n = *t.MaxItems + 1
		}
		t.MaxItems = &n
		return true
	})},
	{"a numeric bound", firstType(func(t *model.Type) bool {
		if t.Kind != model.Number && t.Kind != model.Integer {
			return false
		}
		t.Minimum = &model.Bound{Value: "-7", Exclusive: t.Minimum == nil || !t.Minimum.Exclusive}
		return true
	})},
	{"an enum's values", firstType(func(t *model.Type) bool {
		if t.Kind != model.Enum {
			return false
		}
		t.Enum = append(t.Enum[:len(t.Enum):len(t.Enum)], "edited")
		return true
	})},
	{"a literal", firstType(func(t *model.Type) bool {
		if t.Kind != model.Literal {
			return false
		}
		t.Literal += "-edited"
		return true
	})},
	{"a pattern", firstType(func(t *model.Type) bool {
		if len(t.Patterns) == 0 {
			return false
		}
		t.Patterns = append([]model.Pattern{{Regexp: "^edited"}}, t.Patterns[1:]...)
		return true
	})},
	{"a pattern before the others (later patterns renumbered)", firstType(func(t *model.Type) bool {
		if len(t.Patterns) == 0 {
			return false
		}
		t.Patterns = append([]model.Pattern{{Regexp: "^added"}}, t.Patterns...)
		return true
	})},
	{"a string made a literal (later values renumbered)", firstField(func(f *model.Field) bool {
		if f.Type.Kind != model.String || f.Presence == model.Defaulted {
			return false
		}
		f.Type = &model.Type{Kind: model.Literal, Literal: "added", Doc: f.Type.Doc}
		return true
	})},
	{"a named check's message", firstType(func(t *model.Type) bool {
		if len(t.Checks) == 0 {
			return false
		}
		t.Checks[0].Message += " (edited)"
		return true
	})},
	{"a string made a boolean", firstField(func(f *model.Field) bool {
		if f.Type.Kind != model.String || f.Presence == model.Defaulted {
			return false
		}
		f.Type = &model.Type{Kind: model.Boolean, Doc: f.Type.Doc}
		return true
	})},
	{"the order of the tools", func(s *model.Spec) bool {
		if len(s.Tools) < 2 {
			return false
		}
		s.Tools[0], s.Tools[1] = s.Tools[1], s.Tools[0]
		return true
	}},
	{"the package name", func(s *model.Spec) bool { s.Codegen.GoPackage += "edited"; return true }},
	{"the runtime's import path", func(s *model.Spec) bool { s.Codegen.GoRuntime = "example.com/edited/agentrt"; return true }},
}

// firstType applies edit to the first argument type, in tool and field
// order, for which it returns true.
func firstType(edit func(t *model.Type) bool) func(s *model.Spec) bool {
	return func(s *model.Spec) bool {
		var walk func(t *model.Type) bool
		walk = func(t *model.Type) bool {
			if edit(t) {
				return true
			}
			if t.Items != nil && walk(t.Items) {
				return true
			}
			for _, f := range t.Fields {
				if walk(f.Type) {
					return true
				}
			}
			return false
		}
		for _, tool := range s.Tools {
			if walk(tool.Args) {
				return true
			}
		}
		return false
	}
}

// firstField is firstType for fields.
func firstField(edit func(f *model.Field) bool) func(s *model.Spec) bool {
	return firstType(func(t *model.Type) bool {
		for _, f := range t.Fields {
			if edit(f) {
				return true
			}
		}
		return false
	})
}

// TestOwnDecls: a remembered unit's text is a copy: writing over the
// block it was written in changes nothing of it.
func TestOwnDecls(t *testing.T) {
	t.Parallel()
	block := []byte("// A is a.\ntype A int\n// B is b.\ntype B int\n")
	in := []decl{{text: block[:22], imports: []string{"fmt"}}, {text: []byte("var x = 1\n"), gofmt: true}, {text: block[22:]}}
	own := ownDecls(in)
	for i := range block {
		block[i] = 'x'
	}
	if got := string(own[0].text) + string(own[1].text) + string(own[2].text); got != "// A is a.\ntype A int\nvar x = 1\n// B is b.\ntype B int\n" {
		t.Errorf("remembered text after its block was written over: %q", got)
	}
	if len(own[0].imports) != 1 || !own[1].gofmt || own[2].gofmt {
		t.Error("ownDecls changed a declaration's imports or how it was formatted")
	}
}
