//go:build linux

package write_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/write"
)

// TestMemoryPlan: a plan through a Memory takes settled files' content from
// memory (it reads only what changed since) and plans exactly what Plan
// plans; a file rewritten behind agentc's back — same size, mtime set back
// — or replaced is read again and planned from its real content.
func TestMemoryPlan(t *testing.T) {
	root := t.TempDir()
	files := func(v string) []emit.File {
		var fs []emit.File
		for i := range 20 {
			fs = append(fs, emit.File{Path: fmt.Sprintf("d/f%02d.ts", i), Data: []byte("// " + emit.Header + "\nconst x = " + v + "\n")})
		}
		return fs
	}
	mem := write.NewMemory()
	run := func(fs []emit.File) []write.Change {
		t.Helper()
		got, err := mem.Plan(root, fs)
		if err != nil {
			t.Fatal(err)
		}
		want, err := write.Plan(root, fs)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, func(a, b write.Change) bool {
			return a.Path == b.Path && a.Kind == b.Kind && string(a.Old) == string(b.Old) && string(a.New) == string(b.New)
		}) {
			t.Fatalf("a plan through memory differs from Plan:\n%v\nwant\n%v", got, want)
		}
		if err := write.Apply(write.OS{}, root, got); err != nil {
			t.Fatal(err)
		}
		mem.Applied(root, got)
		return got
	}
	run(files("1"))
	// The memory trusts a file's times once the file system's clock (as
	// the ctime of a later write shows it) has passed them.
	time.Sleep(250 * time.Millisecond)
	run(slices.Replace(files("1"), 0, 1, emit.File{Path: "d/f00.ts", Data: []byte("// " + emit.Header + "\nconst x = 2\n")}))
	run(files("1")) // reads all but f00 and remembers them as settled
	before := mem.Reads()
	run(files("1"))
	if n := mem.Reads() - before; n > 2 {
		t.Errorf("a plan of unchanged, settled files read %d of them, want at most 2", n)
	}

	// Rewritten in place, same size, times set back.
	p := filepath.Join(root, "d", "f05.ts")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := []byte("// Code written by hand. Do not edit it!!\nconst x = 9\n")
	if int64(len(edited)) != fi.Size() {
		t.Fatalf("the edit is %d bytes, the file %d", len(edited), fi.Size())
	}
	if err := os.WriteFile(p, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	// Replaced by another file with the same content size.
	q := filepath.Join(root, "d", "f06.ts")
	if err := os.WriteFile(q+".new", []byte("// "+emit.Header+"\nconst x = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(q+".new", q); err != nil {
		t.Fatal(err)
	}
	got, err := mem.Plan(root, files("1"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]write.Kind{}
	for _, c := range got {
		kinds[c.Path] = c.Kind
	}
	if kinds["d/f05.ts"] != write.Conflict || kinds["d/f06.ts"] != write.Update {
		t.Errorf("after edits behind agentc's back: f05 %s (want conflict), f06 %s (want update)", kinds["d/f05.ts"], kinds["d/f06.ts"])
	}
}
