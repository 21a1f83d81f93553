package model_test

import (
	"reflect"
	"testing"

	"github.com/agentc-dev/agentc/gen/model"
)

// TestTemplate: a template splits into its literal text and the prompt
// parameters its placeholders name; an empty template is one empty
// literal, and a placeholder that names no parameter stays text.
func TestTemplate(t *testing.T) {
	repo, branch := &model.PromptParam{Name: "repo"}, &model.PromptParam{Name: "branch"}
	s := &model.Spec{PromptParams: []*model.PromptParam{repo, branch}}
	lit := func(text string) model.TemplatePart { return model.TemplatePart{Text: text} }
	param := func(p *model.PromptParam) model.TemplatePart { return model.TemplatePart{Param: p} }
	for _, c := range []struct {
		text string
		want []model.TemplatePart
	}{
		{"", []model.TemplatePart{lit("")}},
		{"plain", []model.TemplatePart{lit("plain")}},
		{"{{repo}}", []model.TemplatePart{param(repo)}},
		{"{{repo}}{{branch}}", []model.TemplatePart{param(repo), param(branch)}},
		{"In {{repo}} on {{branch}}.", []model.TemplatePart{lit("In "), param(repo), lit(" on "), param(branch), lit(".")}},
		{"{{other}} in {{repo}}", []model.TemplatePart{lit("{{other}} in "), param(repo)}},
		{"{{{repo}}}", []model.TemplatePart{lit("{"), param(repo), lit("}")}},
	} {
		if got := s.Template(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Template(%q) = %+v, want %+v", c.text, got, c.want)
		}
	}
}

// TestDescription: a value's description is its doc followed by the doc
// of each named check, its own and, for a list, its items' (which are
// described nowhere else), at any depth of lists.
func TestDescription(t *testing.T) {
	rel := &model.Check{Name: "RelativePath", Doc: "A relative path."}
	slug := &model.Check{Name: "Slug", Doc: "A slug."}
	str := func(checks ...*model.Check) *model.Type { return &model.Type{Kind: model.String, Checks: checks} }
	for _, c := range []struct {
		typ  *model.Type
		want string
	}{
		{&model.Type{Kind: model.String, Doc: "A name."}, "A name."},
		{&model.Type{Kind: model.String, Doc: "A name.", Checks: []*model.Check{slug}}, "A name. A slug."},
		{&model.Type{Kind: model.Array, Doc: "Files.", Items: str(rel)}, "Files. A relative path."},
		{&model.Type{Kind: model.Array, Items: str(rel, slug)}, "A relative path. A slug."},
		{&model.Type{Kind: model.Array, Doc: "Groups.", Items: &model.Type{Kind: model.Array, Items: str(rel)}}, "Groups. A relative path."},
		{&model.Type{Kind: model.Array, Doc: "Plain.", Items: str()}, "Plain."},
	} {
		if got := c.typ.Description(); got != c.want {
			t.Errorf("Description() = %q, want %q", got, c.want)
		}
	}
}
