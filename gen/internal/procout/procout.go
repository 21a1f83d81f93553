// Package procout is the plumbing the test harnesses share for servers
// they start as child processes (opencode serve, postgres): a buffer of
// the process's output safe for concurrent use, a start that waits for
// the line saying the server is ready, and a free loopback port.
package procout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// SyncBuffer is a bytes.Buffer safe for concurrent writers and readers.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lineWatcher copies output to W and sends, without blocking, what follows
// Marker on each complete line that contains it (trimmed) to Found. Found
// should be buffered: only the first signal matters to a caller waiting
// for readiness.
type lineWatcher struct {
	W      io.Writer
	Marker string
	Found  chan<- string
	line   []byte
}

// Write scans p for complete lines and passes it on to W.
func (lw *lineWatcher) Write(p []byte) (int, error) {
	lw.line = append(lw.line, p...)
	for {
		i := bytes.IndexByte(lw.line, '\n')
		if i < 0 {
			break
		}
		line := string(bytes.TrimRight(lw.line[:i], "\r"))
		lw.line = lw.line[i+1:]
		if _, rest, ok := strings.Cut(line, lw.Marker); ok {
			select {
			case lw.Found <- strings.TrimSpace(rest):
			default:
			}
		}
	}
	return lw.W.Write(p)
}

// Start starts cmd with its stdout and stderr copied to out and waits, at
// most timeout, for a line holding marker. It returns what follows the
// marker on that line, and a channel that delivers cmd.Wait's result.
// When the process exits first, or the time is up (kill must then end
// the process), it returns an error.
func Start(cmd *exec.Cmd, out io.Writer, marker string, timeout time.Duration, kill func()) (string, <-chan error, error) {
	found := make(chan string, 1)
	// One writer for both streams: exec then copies them through one pipe
	// and one goroutine, so a line is never split between two watchers.
	watch := &lineWatcher{W: out, Marker: marker, Found: found}
	cmd.Stdout, cmd.Stderr = watch, watch
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case rest := <-found:
		return rest, exited, nil
	case err := <-exited:
		if err == nil {
			err = errors.New("exit status 0")
		}
		return "", nil, fmt.Errorf("exited before it was ready (%w)", err)
	case <-timer.C:
		kill()
		<-exited
		return "", nil, fmt.Errorf("no line with %q within %v", strings.TrimSpace(marker), timeout)
	}
}

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	return port, nil
}
