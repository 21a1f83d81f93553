package load_test

import (
	"bytes"
	"testing"

	cueformat "cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"

	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/spec"
)

// TestSchemaCopyIsCueFmtClean: the metaschema copy agentc init --schema
// writes into a spec directory is exactly as cue fmt formats it. Else a
// repository that runs cue fmt (a pre-commit hook) rewrites the copy, and
// every later vet warns that it differs from agentc's, until init --schema
// writes it back and cue fmt rewrites it again.
func TestSchemaCopyIsCueFmtClean(t *testing.T) {
	t.Parallel()
	b := load.SchemaFor(load.Bytes(displayDir, map[string][]byte{"a.cue": []byte("package mine\n")}))
	f, err := parser.ParseFile(spec.SchemaFile, b, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cueformat.Node(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b) {
		t.Errorf("cue fmt changes the metaschema copy (first difference at line %d); format spec/%s with cue fmt", load.FirstDifference(b, got), spec.SchemaFile)
	}
}
