package opencode

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r io.Reader, max int) ([]sseEvent, error) {
	t.Helper()
	s := newSSEReader(r, max)
	var out []sseEvent
	for i := 0; i < 1000; i++ {
		ev, err := s.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	t.Fatal("more than 1000 events")
	return nil, nil
}

func TestSSE(t *testing.T) {
	tests := []struct {
		name, in string
		want     []sseEvent
	}{
		{"one data line", "data: {\"a\":1}\n\n", []sseEvent{{Data: []byte(`{"a":1}`), Retry: -1}}},
		{"multi-line data joined with newlines", "data: a\ndata: b\ndata:\n\n", []sseEvent{{Data: []byte("a\nb\n"), Retry: -1}}},
		{"comments and unknown fields ignored", ": keep-alive\nfoo: bar\ndata: x\n:another\n\n", []sseEvent{{Data: []byte("x"), Retry: -1}}},
		{"event, id and retry fields", "event: ping\nid: 7\nretry: 1500\ndata: y\n\n", []sseEvent{{Event: "ping", ID: "7", Data: []byte("y"), Retry: 1500}}},
		{"no space after the colon, only one space removed", "data:x\ndata:  y\n\n", []sseEvent{{Data: []byte("x\n y"), Retry: -1}}},
		{"CRLF line endings", "data: a\r\ndata: b\r\n\r\n", []sseEvent{{Data: []byte("a\nb"), Retry: -1}}},
		{"lone CR line endings", "data: a\rdata: b\r\r", []sseEvent{{Data: []byte("a\nb"), Retry: -1}}},
		{"an event without data is not dispatched and resets", "event: x\n\ndata: z\n\n", []sseEvent{{Data: []byte("z"), Retry: -1}}},
		{"field name without colon", "data\n\n", []sseEvent{{Data: []byte(""), Retry: -1}}},
		{"blank lines between events", "\n\n\ndata: 1\n\n\n\ndata: 2\n\n", []sseEvent{{Data: []byte("1"), Retry: -1}, {Data: []byte("2"), Retry: -1}}},
		{"unfinished event at the end is discarded", "data: 1\n\ndata: 2\n", []sseEvent{{Data: []byte("1"), Retry: -1}}},
		{"unterminated last line is discarded", "data: 1\n\ndata: 2", []sseEvent{{Data: []byte("1"), Retry: -1}}},
		{"bad retry ignored", "retry: soon\ndata: r\n\n", []sseEvent{{Data: []byte("r"), Retry: -1}}},
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
					g, w := got[i], tt.want[i]
					if g.Event != w.Event || g.ID != w.ID || g.Retry != w.Retry || string(g.Data) != string(w.Data) {
						t.Errorf("event %d = %+v (data %q), want %+v (data %q)", i, g, g.Data, w, w.Data)
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
}

func TestSSEReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n"), iotest.ErrReader(boom))
	got, err := readAll(t, r, 1<<10)
	if len(got) != 1 || !errors.Is(err, boom) {
		t.Errorf("got %d events, err %v; want 1 event and the read error", len(got), err)
	}
}
