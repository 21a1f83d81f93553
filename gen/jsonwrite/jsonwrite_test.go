package jsonwrite

import "testing"

// TestMarshal: keys sorted, two-space indentation, no HTML escaping, a
// final newline; an error for what encoding/json refuses.
func TestMarshal(t *testing.T) {
	t.Parallel()
	got, err := Marshal(map[string]any{"b": []string{"<&>"}, "a": map[string]int{}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": {},\n  \"b\": [\n    \"<&>\"\n  ]\n}\n"; string(got) != want {
		t.Errorf("Marshal = %q, want %q", got, want)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal(func) succeeded")
	}
}
