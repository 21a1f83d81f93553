package gogen

import (
	"bytes"
	"text/tabwriter"
)

// Go text written already formatted (see decl). The regular declarations
// of a large spec (a decoder per object, a struct per argument type) are
// most of the package; writing them as gofmt would format them spares
// go/format, which is most of gen's time. What gofmt does beyond
// indentation is align columns in runs of lines (struct fields, keyed
// composite literals, trailing comments): align does that with the
// text/tabwriter settings go/printer uses.

// align writes rows to b as one run of aligned lines at the given tab
// indentation: each row's cells but the last are padded with spaces to
// their column's widest cell in the run plus one, as gofmt aligns a run of
// struct fields (name, type, tag) or of key: value pairs ("key:", value).
// As in text/tabwriter, a column is aligned over consecutive rows that
// have a cell in it (a cell that is not their last). The caller cuts runs
// where gofmt does (at blank lines, comment lines, elements spanning
// several lines). No cell may hold a tab or a line break: a cell is an
// identifier, a type, or a quoted literal.
func align(b *bytes.Buffer, indent int, rows [][]string) {
	var cells bytes.Buffer
	tw := tabwriter.NewWriter(&cells, 0, 8, 1, ' ', tabwriter.DiscardEmptyColumns)
	for _, row := range rows {
		var line []byte
		for i, c := range row {
			if i > 0 {
				line = append(line, '\t')
			}
			line = append(line, c...)
		}
		_, _ = tw.Write(append(line, '\n'))
	}
	_ = tw.Flush() // writes to a bytes.Buffer: no error
	for line := range bytes.Lines(cells.Bytes()) {
		for range indent {
			b.WriteByte('\t')
		}
		b.Write(line)
	}
}
