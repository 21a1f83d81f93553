package gogen

import (
	"bytes"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// TestRenderChunks: formatting the files in chunks, cut at every split
// mark, with the declarations written already formatted (decl) passed
// through, gives exactly jen's formatting of the whole files.
func TestRenderChunks(t *testing.T) {
	defer func(n int) { minChunk = n }(minChunk)
	minChunk = 1
	var specs []*model.Spec
	for _, dir := range testspecs.Dirs {
		specs = append(specs, testspecs.Load(t, dir))
	}
	synthetic, err := load.Load(load.Bytes("spec", synth.Files(60)))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(specs, synthetic) {
		got := renderAll(t, s, true)
		want := renderAll(t, s, false)
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: chunked formatting differs from jen's", (&generator{}).parts()[i].name)
			}
		}
	}
}

func renderAll(t *testing.T, s *model.Spec, chunked bool) [][]byte {
	t.Helper()
	g, err := newGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	if !chunked {
		g.mark = ""
	}
	if chunked {
		out, errs := g.render(g.parts())
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	var out [][]byte
	for _, p := range g.parts() {
		f := g.newFile(p.name == "tools.go")
		p.fn(f)
		var buf bytes.Buffer
		if err := f.Render(&buf); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// TestBuildStreams: a part is rendered a declaration at a time, so its
// whole jen tree is never held: decode.go of n tools is rendered in at
// least n pieces, and the result is jen's rendering of the whole file.
func TestBuildStreams(t *testing.T) {
	const n = 40
	s, err := load.Load(load.Bytes("spec", synth.Files(n)))
	if err != nil {
		t.Fatal(err)
	}
	g, errs := newGenerator(s)
	if errs != nil {
		t.Fatal(errs)
	}
	for _, p := range g.parts() {
		var flushes int
		fn := p.fn
		p.fn = func(f *jen.File) {
			fn(f)
			flushes = len(g.sink.body) // the pieces rendered before the part's end
		}
		pieces, err := g.build(p)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for _, pc := range pieces {
			if pc.formatted {
				got = append(got, '\n') // as jen separates its items
			}
			got = append(got, pc.text...)
		}
		f := g.newFile(p.name == "tools.go")
		fn(f)
		f.NoFormat = true
		var want bytes.Buffer
		if err := f.Render(&want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: the streamed source differs from jen's render of the whole file", p.name)
		}
		if p.name == "decode.go" && flushes < n {
			t.Errorf("decode.go of %d tools was rendered in %d pieces, want at least %d", n, flushes, n)
		}
	}
}
