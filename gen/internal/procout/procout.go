// Package procout is the plumbing the test harnesses share for servers
// they start as child processes (opencode serve, postgres): a buffer of
// the process's output safe for concurrent use, a start that waits for
// the line saying the server is ready, a stop that ends the server's
// process group, and a free loopback port.
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
	"syscall"
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

// Process is a server process that Start started.
type Process struct {
	cmd    *exec.Cmd
	exited chan error
}

// Start starts cmd in a process group of its own where the platform has
// them, so that stopping it also ends whatever it spawned (shells of a
// tool, server backends), with its stdout and stderr copied to out, and
// waits, at most timeout, for a line holding marker. It returns what
// follows the marker on that line. When the process exits first, or the
// time is up (its group is then killed), it returns an error.
func Start(cmd *exec.Cmd, out io.Writer, marker string, timeout time.Duration) (string, *Process, error) {
	found := make(chan string, 1)
	// One writer for both streams: exec then copies them through one pipe
	// and one goroutine, so a line is never split between two watchers.
	watch := &lineWatcher{W: out, Marker: marker, Found: found}
	cmd.Stdout, cmd.Stderr = watch, watch
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	p := &Process{cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	select {
	case rest := <-found:
		return rest, p, nil
	case err := <-p.exited:
		if err == nil {
			err = errors.New("exit status 0")
		}
		return "", nil, fmt.Errorf("exited before it was ready (%w)", err)
	case <-time.After(timeout):
		signalGroup(cmd, syscall.SIGKILL)
		<-p.exited
		return "", nil, fmt.Errorf("no line with %q within %v", strings.TrimSpace(marker), timeout)
	}
}

// Stop sends sig to the process group (where the platform has none, it
// kills the process) and waits, at most grace, for the process to exit;
// then it kills the group and reports that it had to.
func (p *Process) Stop(sig syscall.Signal, grace time.Duration) error {
	signalGroup(p.cmd, sig)
	select {
	case <-p.exited:
		return nil
	case <-time.After(grace):
	}
	signalGroup(p.cmd, syscall.SIGKILL)
	<-p.exited
	return fmt.Errorf("it did not exit within %v of %v and was killed", grace, sig)
}

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
