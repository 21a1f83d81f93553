package load

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentc-dev/agentc/gen/model"
)

// TestTypeJSON: appendTypeJSON writes what encoding/json writes for a
// type's constraints (typeJSONSlow), for types with every constraint set
// or absent, strings needing every kind of escape, and bounds encoding/json
// refuses.
func TestTypeJSON(t *testing.T) {
	t.Parallel()
	n := func(i int) *int { return &i }
	strs := []string{"", "plain", "a&b", "a<b", "a>b", "a\"b", `a\b`, `a"b\c`, "<>&", "tab\tnl\ncr\rbs\bff\f\x00\x1f", "é ü 日本", "\u2028\u2029", "bad\xffutf8\xc3", `^[a-z]\d+$`, "\x7f"}
	var types []*model.Type
	for _, s := range strs {
		types = append(types,
			&model.Type{Kind: model.String, Literal: s},
			&model.Type{Kind: model.Enum, Enum: []string{s, "x" + s}},
			&model.Type{Kind: model.String, Patterns: []model.Pattern{{Regexp: s}, {Regexp: "b"}}, MinLength: n(1), MaxLength: n(1 << 30)},
			&model.Type{Kind: model.String, Checks: []*model.Check{{Name: s, Reject: []model.Pattern{{Regexp: s}}, Match: []model.Pattern{{Regexp: "m"}, {Regexp: s}}}}},
			&model.Type{Kind: model.Kind(s)},
		)
	}
	for _, num := range []json.Number{"", "0", "-1", "12", "1.5", "-0.25e+10", "1E5", "01", "1.", ".5", "-", "1e", "1e+", "abc", "+1", "9999999999999999999999"} {
		for _, excl := range []bool{false, true} {
			types = append(types,
				&model.Type{Kind: model.Integer, Minimum: &model.Bound{Value: num, Exclusive: excl}},
				&model.Type{Kind: model.Number, Maximum: &model.Bound{Value: num, Exclusive: excl}, Minimum: &model.Bound{Value: "1"}},
			)
		}
	}
	types = append(types,
		&model.Type{Kind: model.Array, MinItems: n(0), MaxItems: n(10)},
		&model.Type{Kind: model.Enum, Enum: []string{}},
		&model.Type{},
	)
	for _, ty := range types {
		got, want := appendTypeJSON(nil, ty), typeJSONSlow(ty)
		if !bytes.Equal(got, want) {
			t.Errorf("type %+v:\n got %s\nwant %s", *ty, got, want)
		}
	}
}

// TestFingerprint: fingerprint and fingerprintSlow agree on a tool with
// nested objects, lists, defaults and quoted field names.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	one := 1
	tool := &model.Tool{Name: "save", Args: &model.Type{Kind: model.Object, Fields: []*model.Field{
		{Name: "plain", Presence: model.Required, Type: &model.Type{Kind: model.String, MinLength: &one}},
		{Name: "quo\"ted\n", Presence: model.Defaulted, Default: json.RawMessage(`"x"`), Type: &model.Type{Kind: model.String}},
		{Name: "list", Presence: model.Optional, Type: &model.Type{Kind: model.Array, Items: &model.Type{Kind: model.Object, Fields: []*model.Field{
			{Name: "n", Presence: model.Defaulted, Default: json.RawMessage("1"), Type: &model.Type{Kind: model.Integer, Minimum: &model.Bound{Value: "1"}}},
		}}}},
	}}}
	if got, want := fingerprint(tool), fingerprintSlow(tool); got != want {
		t.Errorf("fingerprint %s, the general way %s", got, want)
	}
	other := *tool
	other.Name = "other"
	if fingerprint(&other) == fingerprint(tool) {
		t.Error("two tools of different names have the same fingerprint")
	}
}
