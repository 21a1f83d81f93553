package procout

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLineWatcher(t *testing.T) {
	var out SyncBuffer
	found := make(chan string, 1)
	w := &lineWatcher{W: &out, Marker: "listening on ", Found: found}
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

// TestStart: Start returns what follows the marker once a line holds it,
// an error when the process exits first, and after the timeout it kills
// the process and says so.
func TestStart(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	var out SyncBuffer
	cmd := exec.Command("sh", "-c", "echo starting; echo ready at 127.0.0.1:9 >&2; exec sleep 5")
	rest, proc, err := Start(cmd, &out, "ready at ", 10*time.Second)
	if err != nil || rest != "127.0.0.1:9" {
		t.Fatalf("Start = %q, %v; want the address after the marker", rest, err)
	}
	if err := proc.Stop(syscall.SIGTERM, 10*time.Second); err != nil {
		t.Errorf("Stop of a process that ends on SIGTERM: %v", err)
	}
	if !strings.Contains(out.String(), "starting\n") {
		t.Errorf("output %q lacks stdout", out.String())
	}

	_, _, err = Start(exec.Command("sh", "-c", "exit 3"), &out, "ready at ", 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready (exit status 3)") {
		t.Errorf("a process that exits: err = %v", err)
	}

	began := time.Now()
	_, _, err = Start(exec.Command("sh", "-c", "exec sleep 30"), &out, "ready at ", 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), `no line with "ready at" within 100ms`) || time.Since(began) > 10*time.Second {
		t.Errorf("a process that never gets ready: err = %v after %v", err, time.Since(began))
	}
}
