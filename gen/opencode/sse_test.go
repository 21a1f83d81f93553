package opencode

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r io.Reader, max int) ([]string, error) {
	t.Helper()
	s := newSSEReader(r, max)
	var out []string
	for i := 0; i < 1000; i++ {
		ev, err := s.Next()
		if err != nil {
			return out, err
		}
		out = append(out, string(ev))
	}
	t.Fatal("more than 1000 events")
	return nil, nil
}

func TestSSE(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"one data line", "data: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"multi-line data joined with newlines", "data: a\ndata: b\ndata:\n\n", []string{"a\nb\n"}},
		{"comments and unknown fields ignored", ": keep-alive\nfoo: bar\ndata: x\n:another\n\n", []string{"x"}},
		{"event, id and retry fields ignored", "event: ping\nid: 7\nretry: 1500\ndata: y\n\n", []string{"y"}},
		{"no space after the colon, only one space removed", "data:x\ndata:  y\n\n", []string{"x\n y"}},
		{"CRLF line endings", "data: a\r\ndata: b\r\n\r\n", []string{"a\nb"}},
		{"lone CR line endings", "data: a\rdata: b\r\r", []string{"a\nb"}},
		{"an event without data is not dispatched", "event: x\n\ndata: z\n\n", []string{"z"}},
		{"field name without colon", "data\n\n", []string{""}},
		{"blank lines between events", "\n\n\ndata: 1\n\n\n\ndata: 2\n\n", []string{"1", "2"}},
		{"unfinished event at the end is discarded", "data: 1\n\ndata: 2\n", []string{"1"}},
		{"unterminated last line is discarded", "data: 1\n\ndata: 2", []string{"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time as well as whole: line endings split
			// across reads must not matter.
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := readAll(t, r, 1<<10)
				if !errors.Is(err, io.EOF) {
					t.Fatalf("err = %v, want io.EOF", err)
				}
				if len(got) != len(tt.want) {
					t.Fatalf("got %d events %+v, want %d", len(got), got, len(tt.want))
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("event %d = %q, want %q", i, got[i], tt.want[i])
					}
				}
			}
		})
	}
}

func TestSSETooLarge(t *testing.T) {
	in := "data: " + strings.Repeat("x", 100) + "\n\n"
	_, err := readAll(t, strings.NewReader(in), 50)
	if !errors.Is(err, errEventTooLarge) {
		t.Errorf("err = %v, want errEventTooLarge", err)
	}
	// Many lines of one event add up.
	in = strings.Repeat("data: 0123456789\n", 10) + "\n"
	_, err = readAll(t, strings.NewReader(in), 50)
	if !errors.Is(err, errEventTooLarge) {
		t.Errorf("err = %v, want errEventTooLarge", err)
	}
	// A line of any field is bounded as it is read: a stream that never
	// ends a line does not grow the buffer until it ends.
	in = ": " + strings.Repeat("x", 200)
	_, err = readAll(t, strings.NewReader(in), 50)
	if !errors.Is(err, errEventTooLarge) {
		t.Errorf("an unending comment line: err = %v, want errEventTooLarge", err)
	}
}

func TestSSEReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n"), iotest.ErrReader(boom))
	got, err := readAll(t, r, 1<<10)
	if len(got) != 1 || !errors.Is(err, boom) {
		t.Errorf("got %d events, err %v; want 1 event and the read error", len(got), err)
	}
}
