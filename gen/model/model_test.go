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
