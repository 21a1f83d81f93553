package diag

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/agentc-dev/agentc/gen/model"
)

// TestErrSortsAndDeduplicates: findings come out by file, line, column and
// message, whatever order they were added in, and a finding repeated at the
// same position with the same message is printed once; no findings is no
// error.
func TestErrSortsAndDeduplicates(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("an empty list is an error")
	}
	l.Add(model.Pos{File: "spec/b.cue", Line: 1, Col: 1}, "x", "in b")
	l.Add(model.Pos{File: "spec/a.cue", Line: 10, Col: 2}, "x", "line 10")
	l.Add(model.Pos{File: "spec/a.cue", Line: 2, Col: 9}, "x", "line 2, col 9")
	l.Add(model.Pos{File: "spec/a.cue", Line: 2, Col: 3}, "y", "second %s", "message")
	l.Add(model.Pos{File: "spec/a.cue", Line: 2, Col: 3}, "y", "first message")
	l.Add(model.Pos{File: "spec/a.cue", Line: 10, Col: 2}, "z", "line 10")
	l.Add(model.Pos{}, "x", "no position")
	want := "no position\n" +
		"spec/a.cue:2:3: first message\n" +
		"spec/a.cue:2:3: second message\n" +
		"spec/a.cue:2:9: line 2, col 9\n" +
		"spec/a.cue:10:2: line 10\n" +
		"spec/b.cue:1:1: in b"
	err := l.Err()
	if err == nil || err.Error() != want {
		t.Fatalf("Err() = %v, want\n%s", err, want)
	}
	var w bytes.Buffer
	Print(&w, err)
	if w.String() != want+"\n" {
		t.Errorf("Print wrote\n%s\nwant each finding on its line", w.String())
	}
}

// TestErrors: an error that is no List is one finding without a position,
// carrying its text; a List, even wrapped, is its findings.
func TestErrors(t *testing.T) {
	if got := Errors(nil); got != nil {
		t.Errorf("Errors(nil) = %v", got)
	}
	l := Errors(errors.New("reading spec: no such file"))
	if len(l) != 1 || l[0].Pos.IsValid() || l[0].Code != "error" || l[0].Msg != "reading spec: no such file" {
		t.Errorf("Errors(plain) = %#v", l)
	}
	var found List
	found.Add(model.Pos{File: "spec/a.cue", Line: 1, Col: 1}, "x", "one")
	found.Add(model.Pos{File: "spec/a.cue", Line: 2, Col: 1}, "x", "two")
	if got := Errors(fmt.Errorf("loading: %w", found)); len(got) != 2 || got[1].Msg != "two" {
		t.Errorf("Errors(wrapped list) = %v", got)
	}
}
