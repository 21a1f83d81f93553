package gogen

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"go/format"
	"runtime"
	"sync"
	"sync/atomic"
)

// newMark returns a split mark: a comment no spec text can produce, as it
// holds random bytes, and which never reaches the output.
func newMark() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "//agentc:split:" + hex.EncodeToString(b[:])
}

// minChunk is the size from which a run of declarations is formatted as a
// chunk of its own.
var minChunk = 64 << 10

// formatted, when on, holds the formatted text of each chunk the last
// render formatted, by its source: a long-running agentc (gen --watch)
// formats again only the declarations an edit changed.
var formatted struct {
	sync.Mutex
	on   bool
	last map[string][]byte
	// runs counts the chunks formatted, for tests.
	runs atomic.Int64
}

// CacheFormatting turns on (or off, dropping what it holds) the memory of
// formatted declarations from one Emit to the next. A chunk's formatted
// text depends on its source alone, so the output is the same either way;
// with it on, every documented declaration is formatted as a chunk of its
// own, so that an edit reformats only the declarations it touched.
func CacheFormatting(on bool) {
	formatted.Lock()
	defer formatted.Unlock()
	formatted.on, formatted.last = on, nil
}

// render builds the parts in order, each into a jen file of its own, and
// renders each unformatted as soon as it is built, cut at split marks into
// chunks of whole declarations; go/format formats the chunks concurrently
// while the next part is built. A part's jen tree is garbage once it is
// rendered. The output is jen's File.Render of each file.
//
// gofmt formats top-level declarations independently, separating them as
// the source does, at least as their kinds ask: a declaration with a doc
// comment starts after one blank line. So the formatted file is the
// formatted first chunk followed, each after a blank line, by the other
// chunks formatted as files of their own without their package clause.
// Should any chunk not format, the whole file is formatted, as jen does, for
// its output or its error.
func (g *generator) render(parts []part) ([][]byte, []error) {
	out := make([][]byte, len(parts))
	errs := make([]error, len(parts))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	run := func(fn func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			fn()
		}()
	}

	formatted.Lock()
	cache, prev := formatted.on, formatted.last
	formatted.Unlock()
	target := minChunk
	if cache {
		target = 0 // a chunk per declaration
	}
	clause := []byte("package " + g.s.Codegen.GoPackage + "\n")
	head := []byte("package " + g.s.Codegen.GoPackage + "\n\n") // of a formatted chunk
	type chunk struct {
		src, out []byte
		err      error
	}
	// The unformatted sources, as pieces between split marks.
	pieces := make([][][]byte, len(parts))
	chunks := make([][]*chunk, len(parts))
	for i, p := range parts {
		f := g.newFile(p.name == "tools.go")
		p.fn(f)
		f.NoFormat = true
		var buf bytes.Buffer
		if err := f.Render(&buf); err != nil {
			errs[i] = err
			continue
		}
		pieces[i] = bytes.Split(buf.Bytes(), []byte("\n"+g.mark))
		var c *chunk
		for j, p := range pieces[i] {
			if c == nil || len(c.src) >= target {
				c = &chunk{}
				if j > 0 {
					c.src = append(c.src, clause...)
				}
				chunks[i] = append(chunks[i], c)
			}
			c.src = append(c.src, p...)
		}
		for _, c := range chunks[i] {
			if out, ok := prev[string(c.src)]; ok {
				c.out = out
				continue
			}
			formatted.runs.Add(1)
			run(func() { c.out, c.err = format.Source(c.src) })
		}
	}
	wg.Wait()
	if cache {
		next := map[string][]byte{}
		for _, cs := range chunks {
			for _, c := range cs {
				if c.err == nil {
					next[string(c.src)] = c.out
				}
			}
		}
		formatted.Lock()
		if formatted.on {
			formatted.last = next
		}
		formatted.Unlock()
	}

	for i, cs := range chunks {
		if errs[i] != nil {
			continue
		}
		var buf bytes.Buffer
		ok := true
		for j, c := range cs {
			if c.err != nil {
				ok = false
				break
			}
			if j == 0 {
				buf.Write(c.out)
				continue
			}
			rest, found := bytes.CutPrefix(c.out, head)
			if !found {
				ok = false
				break
			}
			buf.WriteByte('\n')
			buf.Write(rest)
		}
		if ok {
			out[i] = buf.Bytes()
			continue
		}
		src := bytes.Join(pieces[i], nil)
		b, err := format.Source(src)
		if err != nil {
			errs[i] = fmt.Errorf("Error %s while formatting source:\n%s", err, src)
			continue
		}
		out[i] = b
	}
	return out, errs
}
