package conformance

import (
	"sync/atomic"
	"testing"
)

// FuzzDifferential feeds inputs to the generated Go decoders and to the
// generated zod schemas in a long-lived node process, and fails on any
// difference: syntax verdict, accept/reject, issue list, decoded data.
// The seeds are the corpus. Run it with
//
//	go test -run '^$' -fuzz '^FuzzDifferential$' -fuzztime 20s ./gen/conformance
func FuzzDifferential(f *testing.F) {
	s := defaultSpec(f)
	zod := startZod(f, s)
	var tools []string
	index := map[string]int{}
	for _, t := range s.Tools {
		index[t.Name] = len(tools)
		tools = append(tools, t.Name)
	}
	for _, c := range readCorpus(f) {
		f.Add(uint8(index[c.Tool]), c.Input)
	}
	var execs atomic.Int64
	f.Cleanup(func() {
		if n := execs.Load(); n > 0 {
			f.Logf("this process compared %d inputs", n)
		}
	})
	f.Fuzz(func(t *testing.T, which uint8, input []byte) {
		execs.Add(1)
		tool := tools[int(which)%len(tools)]
		gv, err := runGo(tool, input)
		if err != nil {
			t.Fatal(err)
		}
		zv, err := zod.run(tool, input)
		if err != nil {
			t.Fatal(err)
		}
		if gv != zv {
			t.Fatalf("%s: Go and zod differ on %q\ngo:  %+v\nzod: %+v", tool, input, gv, zv)
		}
	})
}
