package gogen

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// TestJSONTagName: a field tagged as the generator tags it marshals under
// its JSON name exactly when jsonTagName admits the name (encoding/json
// decides, through a struct type built with that tag).
func TestJSONTagName(t *testing.T) {
	for _, name := range []string{
		"a", "run_id", "-", "a-b", "x y", "π", "中文", "1", "a.b", "$ref", "@type", "{}", "a|b", "50%",
		"", "comma,sep", "it's", `x"y`, `a\b`, "a`b", "tab\there", "emoji😀", "a'", "é\u0301",
	} {
		for _, options := range []string{"", ",omitzero"} {
			// The tag appendStructTag writes (the names it may be given
			// backquoted, TestStructTag), or else as encoding/json reads it.
			tag := "json:" + strconv.Quote(name+options)
			if jsonTagName(name) {
				tag = string(appendStructTag(nil, name, options))
				tag = tag[1 : len(tag)-1]
			}
			typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(tag)}})
			v := reflect.New(typ).Elem()
			v.Field(0).SetInt(1)
			b, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(map[string]int{name: 1})
			if got := string(b) == string(want); got != jsonTagName(name) {
				t.Errorf("%q%s: tag %s marshals as %s; jsonTagName = %v", name, options, tag, b, jsonTagName(name))
			}
		}
	}
}
