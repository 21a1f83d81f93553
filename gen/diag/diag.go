// Package diag holds positioned findings: errors made at a source position,
// collected, sorted and printed as file:line:col: message.
package diag

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentc-dev/agentc/gen/model"
)

// Error is one finding at a position. Its JSON is a finding of the
// --json envelope: file, line and col (absent without a position), code
// and message.
type Error struct {
	model.Pos
	// Code names the class of finding (e.g. "duplicate-tool"); stable, for
	// tools and tests.
	Code string `json:"code"`
	Msg  string `json:"message"`
}

// Error formats e as file:line:col: message.
func (e *Error) Error() string {
	if e.Pos.File == "" {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// List is a set of findings.
type List []*Error

// Add appends a finding.
func (l *List) Add(pos model.Pos, code, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Code: code, Msg: fmt.Sprintf(format, args...)})
}

// Err returns l sorted and deduplicated as an error, or nil if l is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Sort orders findings by file, line, column, then message, and removes
// exact duplicates.
func (l *List) Sort() {
	slices.SortStableFunc(*l, func(a, b *Error) int {
		return cmp.Or(a.Pos.Compare(b.Pos), cmp.Compare(a.Msg, b.Msg))
	})
	*l = slices.CompactFunc(*l, func(a, b *Error) bool {
		return a.Pos == b.Pos && a.Msg == b.Msg
	})
}

// Error joins the findings, one per line.
func (l List) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Errors returns the findings in err: a List's, or one position-less
// finding carrying err's text.
func Errors(err error) List {
	if err == nil {
		return nil
	}
	var l List
	if errors.As(err, &l) {
		return l
	}
	return List{{Code: "error", Msg: err.Error()}}
}

// Print writes each finding of err on its own line.
func Print(w io.Writer, err error) {
	for _, e := range Errors(err) {
		fmt.Fprintln(w, e.Error())
	}
}
