package gogen

import (
	"bytes"
	"go/format"
	"testing"
)

// TestAlign: align lines up struct fields and keyed literals as gofmt
// does, including a run cut by a row without a tag and wide Unicode cells.
func TestAlign(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("package p\n\ntype T struct {\n")
	align(&b, 1, [][]string{
		{"A", "string", "`json:\"a\"`"},
		{"Bbbbbbb", "Opt[int64]", "`json:\"b,omitempty\"`"},
		{"Ü", "bool"},
		{"D", "[]string", "`json:\"d\"`"},
	})
	b.WriteString("}\n\nvar x = Issue{\n")
	align(&b, 1, [][]string{
		{"Code:", `"too_small",`},
		{"Inclusive:", "true,"},
		{"Message:", `"Too small: expected string to have >=1 characters",`},
	})
	b.WriteString("}\n\nfunc f() {\n\tif true {\n\t\td.add(Issue{\n")
	align(&b, 3, [][]string{{"Code:", `"x",`}, {"Origin:", `"é",`}})
	b.WriteString("\t\t})\n\t}\n}\n")
	want, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("align's lines are not gofmt's:\n%s\nwant:\n%s", b.Bytes(), want)
	}
}
