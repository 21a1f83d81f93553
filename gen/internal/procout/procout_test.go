package procout

import (
	"testing"
)

func TestLineWatcher(t *testing.T) {
	var out SyncBuffer
	found := make(chan string, 1)
	w := &LineWatcher{W: &out, Marker: "listening on ", Found: found}
	for _, chunk := range []string{"starting\nserver listen", "ing on http://127.0.0.1:9\r", "\nmore\n"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case got := <-found:
		if got != "http://127.0.0.1:9" {
			t.Errorf("found %q, want the address after the marker", got)
		}
	default:
		t.Fatal("the marker line split across writes was not seen")
	}
	if want := "starting\nserver listening on http://127.0.0.1:9\r\nmore\n"; out.String() != want {
		t.Errorf("output = %q, want %q", out.String(), want)
	}
}

func TestFreePort(t *testing.T) {
	p, err := FreePort()
	if err != nil || p <= 0 {
		t.Fatalf("FreePort() = %d, %v", p, err)
	}
}
