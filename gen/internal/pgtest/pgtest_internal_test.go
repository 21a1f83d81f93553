package pgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder stands in for a testing.TB to observe whether binDir skips or
// fails; like the real methods, Skipf and Fatalf end the calling goroutine.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func callBinDir(glob, ci string) (*recorder, string) {
	r := &recorder{}
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = binDir(r, glob, ci)
	}()
	<-done
	return r, got
}

func TestBinDirMissing(t *testing.T) {
	glob := filepath.Join(t.TempDir(), "*", "bin")
	r, _ := callBinDir(glob, "")
	if !r.skipped || r.failed || !strings.Contains(r.msg, "make postgres") {
		t.Errorf("without CI: skipped=%v failed=%v msg=%q, want a skip naming make postgres", r.skipped, r.failed, r.msg)
	}
	r, _ = callBinDir(glob, "true")
	if r.skipped || !r.failed || !strings.Contains(r.msg, "CI=") {
		t.Errorf("with CI: skipped=%v failed=%v msg=%q, want a failure", r.skipped, r.failed, r.msg)
	}
}

func TestBinDirPicksNewest(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9", "15", "13", "16", "17"} {
		dir := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if v == "16" {
			continue // incomplete: no binaries
		}
		mode := os.FileMode(0o755)
		if v == "17" {
			mode = 0o644 // not executable
		}
		for _, name := range []string{"initdb", "postgres"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	r, got := callBinDir(filepath.Join(root, "*", "bin"), "true")
	if r.skipped || r.failed {
		t.Fatalf("binDir: %s", r.msg)
	}
	if want := filepath.Join(root, "15", "bin"); got != want {
		t.Errorf("binDir = %s, want %s (the newest complete one)", got, want)
	}
}
