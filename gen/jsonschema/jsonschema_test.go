package jsonschema_test

import (
	"encoding/json"
	"testing"

	"github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/gen/model"
)

func TestCanonical(t *testing.T) {
	t.Parallel()
	got, err := jsonschema.Canonical([]byte(`{"b":1.0,"a":{"d":[2e0,"<>"],"c":1e21}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": {\n    \"c\": 1e+21,\n    \"d\": [\n      2,\n      \"<>\"\n    ]\n  },\n  \"b\": 1\n}\n"
	if string(got) != want {
		t.Errorf("Canonical = %q, want %q", got, want)
	}
}

// TestSchemaBeyondDouble: a bound or a default beyond a double's range,
// which js.Check reports before any gen, still fails Schema when the
// schema would hold it (JSON has no Infinity), while the largest double is
// a bound like any other.
func TestSchemaBeyondDouble(t *testing.T) {
	t.Parallel()
	tool := func(f *model.Field) *model.Tool {
		return &model.Tool{Name: "t", Args: &model.Type{Kind: model.Object, Fields: []*model.Field{f}}}
	}
	for _, tc := range []struct {
		field *model.Field
		fails bool
	}{
		{&model.Field{Name: "n", Presence: model.Required, Type: &model.Type{Kind: model.Number, Maximum: &model.Bound{Value: "1e400"}}}, true},
		{&model.Field{Name: "n", Presence: model.Required, Type: &model.Type{Kind: model.Number, Minimum: &model.Bound{Value: "-1e400", Exclusive: true}}}, true},
		// .int()'s own bound, -MAX_SAFE_INTEGER, is the tighter: the schema
		// holds it alone.
		{&model.Field{Name: "n", Presence: model.Required, Type: &model.Type{Kind: model.Integer, Minimum: &model.Bound{Value: "-1e400", Exclusive: true}}}, false},
		{&model.Field{Name: "n", Presence: model.Defaulted, Default: json.RawMessage(`[1, 2e999]`),
			Type: &model.Type{Kind: model.Array, Items: &model.Type{Kind: model.Number}}}, true},
		{&model.Field{Name: "n", Presence: model.Required, Type: &model.Type{Kind: model.Number, Maximum: &model.Bound{Value: "1.7976931348623157e308"}}}, false},
	} {
		_, err := jsonschema.Schema(tool(tc.field))
		if (err != nil) != tc.fails {
			t.Errorf("%+v: Schema error %v, want an error: %v", tc.field.Type, err, tc.fails)
		}
	}
}
