package load

import (
	"slices"

	"cuelang.org/go/cue"

	"github.com/agentc-dev/agentc/gen/diag"
)

// One iteration of a tool's fields, for the model and the metaschema's
// required check both.
//
// The required check (see required) lists every tool's fields to find one
// without a concrete value, and building the model then looked each field
// it reads up again by name (Value.LookupPath): at a thousand tools, most
// of what both cost. So when metaschema's walk reaches the tools struct, it
// leaves it to tools (toolsRequired), which walks each tool's fields once,
// checking each as required would and keeping its value for the model. A
// finding of that walk stops Load as metaschema's would (reqErrs): the
// model is built, then dropped. If metaschema finds anything elsewhere,
// the model is not built, and it walks the tools itself. Under crossCheck,
// the findings and each field read are compared with the general way.

// toolFields is a tool's fields as one iteration found them.
type toolFields struct {
	tv     cue.Value
	names  []string
	values []cue.Value
	// listed says that names holds every field of the tool: one not among
	// them is not there (Value.Fields lists each regular field).
	listed bool
}

// toolReads are the fields of a tool the model reads.
var toolReads = []string{"execution", "description", "deprecated", "summary", "aliases", "args", "result"}

// toolFields reads the fields of tool tv (its selector sel) and, when
// metaschema left the tools to tools, checks them as required would.
func (l *loader) toolFields(tv cue.Value, sel cue.Selector) *toolFields {
	tf := &toolFields{tv: tv}
	a := l.toolsRequired
	if a == nil {
		return tf
	}
	path := []string{"tools", sel.String()}
	d, _ := tv.Default()
	if d.IncompleteKind() != cue.StructKind {
		l.required(tv, path, a, &l.reqErrs)
		return tf
	}
	// required(tv, path, a) lists the fields of d below a's anchor for tv.
	at := &anchor{up: a, v: tv}
	it, err := d.Fields()
	if err != nil {
		return tf
	}
	for it.Next() {
		fv := it.Value()
		l.required(fv, append(slices.Clip(path), it.Selector().String()), at, &l.reqErrs)
		tf.names = append(tf.names, it.Selector().Unquoted())
		tf.values = append(tf.values, fv)
	}
	tf.listed = true
	if crossCheck != nil {
		for _, name := range toolReads {
			fast, ok := tf.optional(name)
			slow := lookup(tv, cue.Str(name))
			crossCheck("tool field of "+tv.Path().String()+"."+name, found(fast, ok), found(slow, slow.Exists()))
		}
	}
	return tf
}

// get returns the tool's field name, as LookupPath does.
func (tf *toolFields) get(name string) cue.Value {
	if i := slices.Index(tf.names, name); i >= 0 && tf.values[i].IncompleteKind() != cue.BottomKind {
		return tf.values[i]
	}
	// Not listed, or an error (a required field not present, listed as
	// one, is not found by LookupPath): as LookupPath finds it.
	return lookup(tf.tv, cue.Str(name))
}

// optional returns the tool's field name and whether it exists, as
// LookupPath and Exists tell.
func (tf *toolFields) optional(name string) (cue.Value, bool) {
	if tf.listed && !slices.Contains(tf.names, name) {
		return cue.Value{}, false
	}
	v := tf.get(name)
	return v, v.Exists()
}

// found describes a field a lookup found, for crossCheck.
func found(v cue.Value, exists bool) any {
	if !exists {
		return nil
	}
	return [2]any{v.Pos(), v.Path().String()}
}

// toolsRequiredDone, under crossCheck, compares the findings of the
// required check tools did with the general walk's.
func (l *loader) toolsRequiredDone() {
	a := l.toolsRequired
	if a == nil || crossCheck == nil {
		return
	}
	var slow diag.List
	l.required(a.v, []string{"tools"}, a.up, &slow)
	crossCheck("requiredness of tools", messages(l.reqErrs), messages(slow))
}

func messages(errs diag.List) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
