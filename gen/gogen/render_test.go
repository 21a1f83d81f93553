package gogen

import (
	"bytes"
	"fmt"
	"go/format"
	"path"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// TestRenderIsGofmt: every Go file Emit writes, for each test spec, a
// synthetic one and one emptied of what may be absent (prompt parameters,
// critical instructions; the loader admits no spec without a model, nor an
// agent without a default model), is what go/format makes of it: the text
// written as gofmt formats it is, and so are the odd declarations
// go/format laid out alone.
func TestRenderIsGofmt(t *testing.T) {
	t.Parallel()
	specs := []*model.Spec{decodeTextSpec(t)}
	for _, dir := range testspecs.Dirs {
		specs = append(specs, testspecs.Load(t, dir))
	}
	empty := testspecs.Load(t, "")
	empty.Contract.Name = "emptied"
	empty.PromptParams = nil
	for _, m := range empty.Modes {
		m.Critical = ""
	}
	specs = append(specs, empty)
	synthetic, err := load.Load(load.Bytes("spec", synth.Files(60)))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(specs, synthetic) {
		checkGofmt(t, s.Contract.Name, emitGo(t, s))
	}
}

// checkGofmt fails the test for each file that go/format would change.
func checkGofmt(t *testing.T, spec string, files []emit.File) {
	t.Helper()
	checked := 0
	for _, f := range files {
		if path.Ext(f.Path) != ".go" {
			continue
		}
		checked++
		out, err := format.Source(f.Data)
		if err != nil {
			t.Errorf("%s: %s does not parse: %v", spec, f.Path, err)
			continue
		}
		if !bytes.Equal(out, f.Data) {
			t.Errorf("%s: %s is not gofmt's:\n%s", spec, f.Path, firstDiff(f.Data, out))
		}
	}
	if checked < len((&generator{}).parts()) {
		t.Errorf("%s: only %d Go files checked", spec, checked)
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, g[i], w[i])
		}
	}
	return "lengths differ"
}

// emitGo is Emit outside a session, failing the test on an error.
func emitGo(t *testing.T, s *model.Spec) []emit.File {
	t.Helper()
	files, err := Emit(&emit.Pass{Spec: s})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// goFile returns the data of the generated file named name.
func goFile(t *testing.T, files []emit.File, name string) []byte {
	t.Helper()
	for _, f := range files {
		if path.Base(f.Path) == name && !strings.Contains(f.Path, "agentrt") {
			return f.Data
		}
	}
	t.Fatalf("Emit wrote no %s", name)
	return nil
}

// TestRenderDecls: a file is written a run of declarations at a time,
// straight into its text: decode.go of n tools is handed on in at least
// 2n runs (a Decode function per tool, a decoder per object: the units
// gen --watch reuses), and the file is its head and those runs, each after
// a blank line.
func TestRenderDecls(t *testing.T) {
	t.Parallel()
	const n = 40
	s, err := load.Load(load.Bytes("spec", synth.Files(n)))
	if err != nil {
		t.Fatal(err)
	}
	g, errs := newGenerator(s)
	if errs != nil {
		t.Fatal(errs)
	}
	files := emitGo(t, s)
	for _, p := range g.parts() {
		var src goSource
		p.fn(&src)
		if src.err != nil {
			t.Fatal(src.err)
		}
		data := goFile(t, files, p.name)
		var body [][]byte
		for _, d := range src.decls {
			body = append(body, d.text)
		}
		joined := bytes.Join(body, []byte("\n"))
		head, ok := bytes.CutSuffix(data, joined)
		if !ok || !bytes.HasSuffix(head, []byte("\n\n")) {
			t.Errorf("%s is not its head and its declarations, each after a blank line", p.name)
		}
		if p.name == "decode.go" && len(src.decls) < 2*n {
			t.Errorf("decode.go of %d tools was handed on in %d runs, want at least %d", n, len(src.decls), 2*n)
		}
	}
}
