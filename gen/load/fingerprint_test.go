package load

import (
	"encoding/json"
	"testing"

	"github.com/agentc-dev/agentc/gen/model"
)

// TestFingerprint: a tool's fingerprint changes with its name and with any
// constraint, presence or default of its arguments, and not with docs,
// positions or generated names.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	tool := func() *model.Tool {
		one := 1
		return &model.Tool{Name: "save", Args: &model.Type{Kind: model.Object, Fields: []*model.Field{
			{Name: "plain", Presence: model.Required, Type: &model.Type{Kind: model.String, MinLength: &one}},
			{Name: "quo\"ted\n", Presence: model.Defaulted, Default: json.RawMessage(`"x"`), Type: &model.Type{Kind: model.String}},
			{Name: "list", Presence: model.Optional, Type: &model.Type{Kind: model.Array, Items: &model.Type{Kind: model.Object, Fields: []*model.Field{
				{Name: "n", Presence: model.Defaulted, Default: json.RawMessage("1"), Type: &model.Type{Kind: model.Integer, Minimum: &model.Bound{Value: "1"}}},
			}}}},
		}}}
	}
	base := fingerprint(tool())
	same := map[string]func(*model.Tool){
		"doc":      func(t *model.Tool) { t.Args.Fields[0].Type.Doc = "A doc." },
		"position": func(t *model.Tool) { t.Args.Fields[1].Pos = model.Pos{File: "x.cue", Line: 3, Col: 1} },
		"Go name":  func(t *model.Tool) { t.Args.Fields[2].GoName = "Other" },
	}
	differ := map[string]func(*model.Tool){
		"name":          func(t *model.Tool) { t.Name = "other" },
		"field name":    func(t *model.Tool) { t.Args.Fields[0].Name = "plan" },
		"presence":      func(t *model.Tool) { t.Args.Fields[0].Presence = model.Optional },
		"default":       func(t *model.Tool) { t.Args.Fields[1].Default = json.RawMessage(`"y"`) },
		"length":        func(t *model.Tool) { *t.Args.Fields[0].Type.MinLength = 2 },
		"nested bound":  func(t *model.Tool) { t.Args.Fields[2].Type.Items.Fields[0].Type.Minimum.Exclusive = true },
		"pattern":       func(t *model.Tool) { t.Args.Fields[1].Type.Patterns = []model.Pattern{{Regexp: "^a"}} },
		"item count":    func(t *model.Tool) { n := 3; t.Args.Fields[2].Type.MaxItems = &n },
		"kind of items": func(t *model.Tool) { t.Args.Fields[2].Type.Items = &model.Type{Kind: model.String} },
	}
	for what, edit := range same {
		x := tool()
		edit(x)
		if got := fingerprint(x); got != base {
			t.Errorf("a change of %s changes the fingerprint: %s, was %s", what, got, base)
		}
	}
	for what, edit := range differ {
		x := tool()
		edit(x)
		if got := fingerprint(x); got == base {
			t.Errorf("a change of %s keeps the fingerprint %s", what, got)
		}
	}
}
