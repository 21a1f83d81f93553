package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDir: cases in file order with where they are; comments and blank
// lines skipped; a line that is not four tab-separated fields is an error
// naming its file and line.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "# comment\n\nt1\tfirst\tok\t{\"a\":1}\n")
	write("b.txt", "t2\tsecond\tbad\t{\"b\":\t2}\n")
	write("c.md", "not\ta\tcase\n")
	cases, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2: %+v", len(cases), cases)
	}
	c := cases[1]
	if c.Tool != "t2" || c.Name != "second" || c.Expect != "bad" || string(c.Input) != "{\"b\":\t2}" ||
		c.Line != 1 || c.Where != filepath.Join(dir, "b.txt")+":1" {
		t.Errorf("second case %+v", c)
	}
	if cases[0].Line != 3 {
		t.Errorf("first case on line %d, want 3", cases[0].Line)
	}
	write("d.txt", "t3\tthird\n")
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "d.txt:1: want tool<TAB>name<TAB>expect<TAB>input") {
		t.Errorf("a malformed line: %v", err)
	}
}
