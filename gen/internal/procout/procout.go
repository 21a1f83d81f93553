// Package procout is the plumbing the test harnesses share for servers
// they start as child processes (opencode serve, postgres): a buffer of
// the process's output safe for concurrent use, a writer that signals the
// line saying the server is ready, and a free loopback port.
package procout

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
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

// LineWatcher copies output to W and sends, without blocking, what follows
// Marker on each complete line that contains it (trimmed) to Found. Found
// should be buffered: only the first signal matters to a caller waiting
// for readiness.
type LineWatcher struct {
	W      io.Writer
	Marker string
	Found  chan<- string
	line   []byte
}

// Write scans p for complete lines and passes it on to W.
func (lw *LineWatcher) Write(p []byte) (int, error) {
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
