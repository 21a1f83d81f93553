package gogen

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"reflect"
	"slices"

	"github.com/agentc-dev/agentc/gen/model"
)

// renders is what an Emit in a session (gen --watch) keeps in its
// emit.Memo for the next one: the declarations of each unit (a tool's
// types, its Decode function, an object's decoder) it wrote, by the
// SHA-256 of everything the unit's code reads, so that the next Emit
// writes again only the units an edit changed. A unit's text is a
// function of its key alone (see unitHash), so the output is the same
// either way.
type renders map[[sha256.Size]byte][]decl

// memo is one Emit's use of its session's memory: what it found there,
// and what it wrote or reused (the next run's memory).
type memo struct {
	prev, next renders
	key        unitHash // the key being written, its buffer reused
}

// unit adds to src the declarations build writes to it, or, when the
// memory holds a unit with the same key, that unit's. src holds no
// declaration not yet handed on (add). key writes to h everything build's
// output depends on besides the package name and the runtime's import
// path, which unit writes itself (see unitHash); build must change nothing
// in g that later code reads.
func (g *generator) unit(src *goSource, key func(h *unitHash), build func()) {
	if g.memo == nil {
		build()
		return
	}
	h := &g.memo.key
	h.g, h.buf = g, h.buf[:0]
	h.str(g.s.Codegen.GoPackage)
	h.str(g.runtime)
	key(h)
	sum := sha256.Sum256(h.buf)
	if u, ok := g.memo.prev[sum]; ok {
		src.decls = append(src.decls, u...)
		g.memo.next[sum] = u
		return
	}
	start := len(src.decls)
	build()
	g.memo.next[sum] = ownDecls(src.decls[start:])
}

// unitHash writes a unit's key: the values its code reads, each framed by
// its kind and length so that no two sequences write the same bytes.
type unitHash struct {
	g   *generator
	buf []byte
}

func (u *unitHash) str(s string) {
	u.buf = append(binary.AppendUvarint(append(u.buf, 's'), uint64(len(s))), s...)
}

func (u *unitHash) num(v uint64) {
	u.buf = binary.AppendUvarint(append(u.buf, 'n'), v)
}

var (
	posType   = reflect.TypeFor[model.Pos]()
	typeType  = reflect.TypeFor[model.Type]()
	checkType = reflect.TypeFor[model.Check]()
)

// value writes every field of v, deeply (pointers followed, positions left
// out: no generated Go text holds one), and, for each schema type and
// check met on the way, the names the generator gave it (enum type, values
// slice, pattern and check variables). Whatever the model comes to
// hold, of the kinds below, is part of the key without a change here.
func (u *unitHash) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			u.num(0)
			return
		}
		u.num(1)
		switch v.Type().Elem() {
		case typeType:
			t := (*model.Type)(v.UnsafePointer())
			u.str(u.g.enumNames[t])
			u.str(u.g.values[t])
			u.str(u.g.patterns[t])
		case checkType:
			u.str(u.g.checkVars[(*model.Check)(v.UnsafePointer())])
		}
		u.value(v.Elem())
	case reflect.Struct:
		if v.Type() == posType {
			return
		}
		for i := range v.NumField() {
			u.value(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		u.num(uint64(v.Len()))
		for i := range v.Len() {
			u.value(v.Index(i))
		}
	case reflect.String:
		u.str(v.String())
	case reflect.Bool:
		b := uint64(0)
		if v.Bool() {
			b = 1
		}
		u.num(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		u.num(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u.num(v.Uint())
	default:
		// A kind the model does not hold (a map's order, a float's
		// spellings): TestRenderMemo fails here the day it comes to.
		panic("gogen: a unit's key cannot hold a " + v.Kind().String())
	}
}

// of writes a model value (a *model.Type, *model.Tool, ...) deeply.
func (u *unitHash) of(x any) { u.value(reflect.ValueOf(x)) }

// ownDecls returns a copy of decls whose texts are copied out of the
// blocks they were written in (see next): a unit kept for later runs holds
// its own text, not the blocks of the run that wrote it.
func ownDecls(decls []decl) []decl {
	out := slices.Clone(decls)
	for i := range out {
		out[i].text = bytes.Clone(out[i].text)
	}
	return out
}
