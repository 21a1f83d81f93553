package zod_test

import (
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/zod"
)

func intp(n int) *int { return &n }

// TestFileRendersHelpers: each constraint renders as its helper call, the
// file records exactly the helpers used, and two named checks with one
// name get distinct consts, each declared once.
func TestFileRendersHelpers(t *testing.T) {
	t.Parallel()
	a := &model.Check{Name: "Ident", Message: "bad", Doc: "An identifier.", Reject: []model.Pattern{{Regexp: `^$`}}}
	b := &model.Check{Name: "Ident", Message: "worse", Doc: "Another.", Match: []model.Pattern{{Regexp: `^a`}}}
	str := func(min, max *int, cs ...*model.Check) *model.Type {
		return &model.Type{Kind: model.String, MinLength: min, MaxLength: max, Checks: cs}
	}
	obj := &model.Type{Kind: model.Object, Fields: []*model.Field{
		{Name: "both", TSName: "both", Type: str(intp(1), intp(100))},
		{Name: "min", TSName: "min", Type: str(intp(2), nil, a)},
		{Name: "max", TSName: "max", Type: str(nil, intp(5), a, b)},
		{Name: "list", TSName: "list", Type: &model.Type{Kind: model.Array, Items: str(nil, nil), MaxItems: intp(3)}},
	}}
	f := zod.NewFile()
	shape := f.Shape(obj, "")
	for _, want := range []string{
		"both: runes(1, 100),",
		"min: minRunes(2).check(isIdent).describe(\"An identifier.\"),",
		"max: maxRunes(5).check(isIdent).check(isIdent2).describe(\"An identifier. Another.\"),",
		"list: z.array(z.string()).check(maxItems(3)),",
	} {
		if !strings.Contains(shape, want) {
			t.Errorf("shape lacks %q:\n%s", want, shape)
		}
	}
	// A tool without arguments reads as one: {} (it rendered "{\n}").
	if empty := f.Shape(&model.Type{Kind: model.Object}, "  "); empty != "{}" {
		t.Errorf("the shape of no fields is %q, want {}", empty)
	}
	if got, want := strings.Join(f.Helpers(), ","), "maxItems,maxRunes,minRunes,named,runes"; got != want {
		t.Errorf("Helpers() = %s, want %s", got, want)
	}
	decls := f.Decls()
	for _, want := range []string{
		"const isIdent = named(\"bad\", { reject: [/^$/u] })\n",
		"const isIdent2 = named(\"worse\", { match: [/^a/u] })\n",
	} {
		if strings.Count(decls, want) != 1 {
			t.Errorf("Decls() must declare %q once:\n%s", want, decls)
		}
	}
}
