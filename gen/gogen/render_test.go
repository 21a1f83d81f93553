package gogen

import (
	"bytes"
	"maps"
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

// TestRenderCached: with formatting remembered (gen --watch), a second
// render after an edit formats only the declarations the edit changed, and
// every file is the same as without the cache.
func TestRenderCached(t *testing.T) {
	specs := editedSpecs(t, "strings.MaxRunes(999)")
	want := renderAll(t, specs[1], false)

	CacheFormatting(true)
	defer CacheFormatting(false)
	renderAll(t, specs[0], true)
	first := formatted.runs.Load()
	got := renderAll(t, specs[1], true)
	again := formatted.runs.Load() - first
	sameFormatting(t, got, want, again)
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
			flushes = g.sink.flushes
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

// TestFormattingPersists: the formatted declarations written by one
// process (WriteFormatting) start another (ReadFormatting), which formats
// only what an edit changed and renders what jen does; damaged data is
// refused whole.
func TestFormattingPersists(t *testing.T) {
	specs := editedSpecs(t, "strings.MaxRunes(998)")
	want := renderAll(t, specs[1], false)

	CacheFormatting(true)
	defer CacheFormatting(false)
	renderAll(t, specs[0], true)
	var saved bytes.Buffer
	if err := WriteFormatting(&saved); err != nil {
		t.Fatal(err)
	}
	CacheFormatting(false)

	for name, damage := range map[string]func([]byte) []byte{
		"truncated": func(b []byte) []byte { return b[:len(b)-1] },
		"flipped":   func(b []byte) []byte { b = bytes.Clone(b); b[len(b)/2] ^= 1; return b },
		"empty":     func([]byte) []byte { return nil },
	} {
		if err := ReadFormatting(damage(saved.Bytes())); err == nil {
			t.Errorf("%s data was read", name)
		}
		if len(formatted.last) != 0 {
			t.Errorf("%s data: %d declarations remembered", name, len(formatted.last))
		}
	}

	if err := ReadFormatting(saved.Bytes()); err != nil {
		t.Fatal(err)
	}
	before := formatted.runs.Load()
	got := renderAll(t, specs[1], true)
	again := formatted.runs.Load() - before
	sameFormatting(t, got, want, again)
}

// editedSpecs loads a 30-tool spec and the same with its first
// strings.MaxRunes(1000) replaced by edit.
func editedSpecs(t *testing.T, edit string) []*model.Spec {
	t.Helper()
	files := synth.Files(30)
	edited := maps.Clone(files)
	edited["synthetic_tools.cue"] = bytes.Replace(files["synthetic_tools.cue"],
		[]byte("strings.MaxRunes(1000)"), []byte(edit), 1)
	var specs []*model.Spec
	for _, fs := range []map[string][]byte{files, edited} {
		s, err := load.Load(load.Bytes("spec", fs))
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	return specs
}

// sameFormatting: a render after a one-constraint edit, from remembered
// formatting, is jen's, and formatted again only a few declarations (the
// changed check, the decoder that calls it).
func sameFormatting(t *testing.T, got, want [][]byte, again int64) {
	t.Helper()
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s: formatting from remembered declarations differs from jen's", (&generator{}).parts()[i].name)
		}
	}
	if chunks := len(formatted.last); again == 0 || again > 10 || chunks < 100 {
		t.Errorf("after a one-constraint edit, %d of %d declarations were formatted again; want a few", again, chunks)
	}
}
