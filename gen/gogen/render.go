package gogen

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"go/format"
	"maps"
	pathpkg "path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"
)

// splitMark is the split mark: a comment no spec text can produce, as it
// holds random bytes, and which never reaches the output. It is the same
// for the life of the process, so that rendered units (see unit) hold the
// mark the next render splits at.
var splitMark = func() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "//agentc:split:" + hex.EncodeToString(b[:])
}()

// minChunk is the size from which a run of declarations is formatted as a
// chunk of its own.
var minChunk = 64 << 10

// render builds the parts in order (build), each unformatted, cut at split
// marks into chunks of whole declarations; go/format formats the chunks
// concurrently while the next part is built, and passes through the
// declarations written already formatted (decl), which are most of a
// large spec's package. A part's jen tree is garbage once it is
// rendered. The output is jen's File.Render of each file.
//
// gofmt formats top-level declarations independently, separating them as
// the source does, at least as their kinds ask: a declaration with a doc
// comment starts after one blank line. So the formatted file is the
// formatted first chunk followed, each after a blank line, by the other
// chunks formatted as files of their own without their package clause
// (which go/format writes followed by a blank line).
func (g *generator) render(parts []part) ([][]byte, []error) {
	out := make([][]byte, len(parts))
	errs := make([]error, len(parts))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0)) // the formatting goroutines that may run at once
	var wg sync.WaitGroup

	target := minChunk
	clause := []byte("package " + g.s.Codegen.GoPackage + "\n")
	head := []byte("package " + g.s.Codegen.GoPackage + "\n\n") // of a formatted chunk
	type chunk struct {
		src, out []byte
		err      error
		pre      bool // out was written formatted (decl)
	}
	// The unformatted sources, cut at split marks into chunks (the part's
	// source is garbage once cut); a declaration written already formatted
	// (see decl) is a chunk of its own, formatted as it is.
	chunks := make([][]chunk, len(parts))
	for i, p := range parts {
		pieces, err := g.build(p)
		if err != nil {
			errs[i] = err
			continue
		}
		cs := make([]chunk, 0, len(pieces)+1)
		open := -1 // the chunk being filled, if any
		for n, pc := range pieces {
			if pc.formatted {
				cs = append(cs, chunk{out: pc.text, pre: true})
				open = -1
				continue
			}
			for j, seg := range bytes.Split(pc.text, []byte("\n"+g.mark)) {
				// A piece's text before its first mark continues the chunk
				// before it (n > 0) or starts the file (n == 0); after a
				// formatted declaration, it is at most a line break.
				split := j > 0 || n == 0
				if open < 0 && !split && len(bytes.TrimSpace(seg)) == 0 {
					continue
				}
				if open < 0 || split && len(cs[open].src) >= target {
					var c chunk
					if n > 0 || j > 0 {
						c.src = append(c.src, clause...)
					}
					cs = append(cs, c)
					open = len(cs) - 1
				}
				cs[open].src = append(cs[open].src, seg...)
			}
		}
		chunks[i] = cs
		for j := range cs {
			if c := &cs[j]; !c.pre {
				wg.Go(func() {
					sem <- struct{}{}
					c.out, c.err = format.Source(c.src)
					<-sem
				})
			}
		}
	}
	wg.Wait()
	for i, cs := range chunks {
		if errs[i] != nil {
			continue
		}
		// The file is the formatted chunks, each after a line break but
		// the first, which alone keeps its package clause: bytes.Join
		// copies them once into a buffer it does not clear first.
		texts := make([][]byte, len(cs))
		for j, c := range cs {
			texts[j] = c.out
			if c.err != nil {
				// A generator's bug: the chunk is what it wrote wrong.
				errs[i] = fmt.Errorf("formatting: %w\n%s", c.err, c.src)
				break
			}
			if j > 0 && !c.pre {
				texts[j], _ = bytes.CutPrefix(c.out, head)
			}
		}
		if errs[i] == nil {
			out[i] = bytes.Join(texts, []byte("\n"))
		}
	}
	return out, errs
}

// sink is the part build is rendering: the jen file the part's function
// adds to, the writer of its formatted declarations, and what was rendered
// of it so far.
type sink struct {
	f *jen.File
	// src is the part's writer (see source): the text of the formatted
	// pieces.
	src goSource
	// dirty is set when jen code may have been added to f since the last
	// flush: every jen declaration of a part follows its doc comment
	// (comment), which sets it.
	dirty   bool
	body    []piece           // the rendered pieces, in order
	imports map[string]string // path → the name it is imported as
	err     error
	// unitImports, while a unit is rendered (see unit), gathers its imports.
	unitImports map[string]string
}

// piece is a run of a part's source: as jen renders it with NoFormat,
// or, formatted, one or more top-level declarations written by decl.
type piece struct {
	text      []byte
	formatted bool
}

// decl adds to the part being built top-level declarations written as
// gofmt formats them: text starts with the first one's doc comment and
// ends with a line break, and the declaration after it, if any, has a doc
// comment too (comment).
// render passes the text through unformatted; TestRenderChunks proves,
// spec by spec, that it is what jen and go/format would make of it. The
// text is held, not copied: its writer never writes over it (see next).
func (g *generator) decl(text []byte) {
	g.flush()
	if k := g.sink; k.err == nil {
		k.body = append(k.body, piece{text: text, formatted: true})
	}
}

// build returns a part's source as pieces: the unformatted ones as jen's
// File.Render with NoFormat makes them. It renders the part as it is built: at every
// documented declaration (comment) the declarations added since the last
// are rendered and dropped, so the jen tree of a large part (decoders for
// a thousand tools) never exists whole. A jen file renders as its items
// each after a newline, so the pieces concatenate to the whole; a piece's
// imports are gathered into the file's import block, as jen writes it.
func (g *generator) build(p part) ([]piece, error) {
	k := &sink{f: jen.NewFile(g.s.Codegen.GoPackage), imports: map[string]string{}, dirty: true}
	g.sink = k
	defer func() { g.sink = nil }()
	p.fn(k.f)
	g.flush()
	if k.err != nil {
		return nil, k.err
	}
	head := g.newFile(p.name == "tools.go") // header, package doc and clause
	head.NoFormat = true
	var out bytes.Buffer
	if err := head.Render(&out); err != nil {
		return nil, err
	}
	paths := slices.Sorted(maps.Keys(k.imports))
	line := func(path string) string {
		if name := k.imports[path]; name != "" {
			return name + " " + strconv.Quote(path)
		}
		return strconv.Quote(path)
	}
	switch len(paths) {
	case 0:
	case 1:
		fmt.Fprintf(&out, "import %s\n\n", line(paths[0]))
	default:
		out.WriteString("import (\n")
		for _, p := range paths {
			out.WriteString(line(p) + "\n")
		}
		out.WriteString(")\n\n")
	}
	return append([]piece{{text: out.Bytes()}}, k.body...), nil
}

// flush renders what the part being built added since the last flush, and
// drops it.
func (g *generator) flush() {
	k := g.sink
	if k == nil || k.err != nil || !k.dirty {
		return
	}
	k.dirty = false
	batch := jen.NewFile(g.s.Codegen.GoPackage)
	batch.Group, k.f.Group = k.f.Group, batch.Group
	batch.NoFormat = true
	var buf bytes.Buffer
	if err := batch.Render(&buf); err != nil {
		k.err = err
		return
	}
	rest, ok := bytes.CutPrefix(buf.Bytes(), []byte("package "+g.s.Codegen.GoPackage+"\n\n"))
	if !ok {
		k.err = fmt.Errorf("jen rendered no package clause")
		return
	}
	// The import block, as jen writes one: import "p", or import ( lines ),
	// then a blank line.
	var block []byte
	if r, ok := bytes.CutPrefix(rest, []byte("import ")); ok {
		end := bytes.Index(r, []byte("\n\n"))
		if end < 0 {
			k.err = fmt.Errorf("jen rendered an unterminated import block")
			return
		}
		block, rest = r[:end], r[end+2:]
	}
	for _, l := range strings.Split(string(block), "\n") {
		if l == "" || l == "(" || l == ")" {
			continue
		}
		name, quoted, found := strings.Cut(l, " ")
		if !found {
			name, quoted = "", l
		}
		path, err := strconv.Unquote(quoted)
		if err != nil {
			k.err = fmt.Errorf("jen rendered the import %q", l)
			return
		}
		if k.addImport(path, name); k.err != nil {
			return
		}
	}
	if len(rest) > 0 {
		k.body = append(k.body, piece{text: rest})
	}
}

// importing records that the part being built uses the package at path
// (the standard library's or the runtime), imported under its own name, as
// flush records the imports of what jen rendered: jen names a package
// outside the standard library explicitly.
func (g *generator) importing(path string) {
	name := ""
	if path == g.runtime {
		name = pathpkg.Base(path)
	}
	g.sink.addImport(path, name)
}

// addImport records that the part, and the unit being rendered if any,
// import path as name ("" for the package's own name).
func (k *sink) addImport(path, name string) {
	if prev, seen := k.imports[path]; seen && prev != name {
		k.err = fmt.Errorf("import %q named both %q and %q in one file", path, prev, name)
		return
	}
	k.imports[path] = name
	if k.unitImports != nil {
		k.unitImports[path] = name
	}
}
