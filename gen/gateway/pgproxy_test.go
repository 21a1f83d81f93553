package gateway_test

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pgProxy is a loopback TCP proxy in front of a PostgreSQL server that a
// test uses to inject network faults at a chosen step of the protocol:
//
//   - Blackhole stops forwarding in both directions (bytes in flight are
//     held, new connections are accepted but not connected) until Heal, as
//     a partitioned network does.
//   - DropAnswer makes the proxy forward the next client message holding
//     all of some texts (a statement: use default_query_exec_mode=simple_protocol, so
//     that each statement's text is on the wire) and then swallow the
//     server's answer to it and close the connection once the server is
//     ready again: the statement has run (and, outside a transaction,
//     committed) but the client never learns it.
type pgProxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	mu    sync.Mutex
	cond  *sync.Cond
	holed bool
	conns map[net.Conn]struct{}

	dropText atomic.Pointer[[]string]
	// holeAfterDrop, when set, blackholes the proxy as soon as an answer is
	// dropped.
	holeAfterDrop atomic.Bool
	dropped       atomic.Int64
	wg            sync.WaitGroup
}

func newPGProxy(t testing.TB, target string) *pgProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{t: t, ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// addr is the proxy's host:port.
func (p *pgProxy) addr() string { return p.ln.Addr().String() }

// Blackhole stops all forwarding until Heal.
func (p *pgProxy) Blackhole() {
	p.mu.Lock()
	p.holed = true
	p.mu.Unlock()
}

// Heal resumes forwarding.
func (p *pgProxy) Heal() {
	p.mu.Lock()
	p.holed = false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// DropAnswer arms the drop of the answer to the next statement holding
// every one of texts.
func (p *pgProxy) DropAnswer(texts ...string) { p.dropText.Store(&texts) }

// holdsAll reports whether msg holds every one of texts.
func holdsAll(msg []byte, texts []string) bool {
	for _, t := range texts {
		if !strings.Contains(string(msg), t) {
			return false
		}
	}
	return true
}

// pass blocks while the proxy is blackholed; it returns false once the
// proxy is closing.
func (p *pgProxy) pass() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.holed && p.conns != nil {
		p.cond.Wait()
	}
	return p.conns != nil
}

func (p *pgProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.cond.Broadcast()
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *pgProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *pgProxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(client) {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if !p.pass() {
				return
			}
			server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
			if err != nil || !p.track(server) {
				client.Close()
				return
			}
			var dropping atomic.Bool
			closeBoth := func() { client.Close(); server.Close() }
			p.wg.Add(2)
			go func() { defer p.wg.Done(); defer closeBoth(); p.clientToServer(client, server, &dropping) }()
			go func() { defer p.wg.Done(); defer closeBoth(); p.serverToClient(server, client, &dropping) }()
		}()
	}
}

// readMessage reads one protocol message: the type byte (none for the
// client's first, the startup message) and the length-prefixed rest.
func readMessage(r io.Reader, typed bool) ([]byte, error) {
	n := 4
	if typed {
		n = 5
	}
	head := make([]byte, n)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	size := int(binary.BigEndian.Uint32(head[n-4:]))
	if size < 4 || size > 1<<30 {
		return nil, io.ErrUnexpectedEOF
	}
	msg := make([]byte, n+size-4)
	copy(msg, head)
	if _, err := io.ReadFull(r, msg[n:]); err != nil {
		return nil, err
	}
	return msg, nil
}

func (p *pgProxy) clientToServer(client, server net.Conn, dropping *atomic.Bool) {
	for typed := false; ; typed = true {
		msg, err := readMessage(client, typed)
		if err != nil {
			return
		}
		if typed && (msg[0] == 'Q' || msg[0] == 'P') {
			if text := p.dropText.Load(); text != nil && holdsAll(msg, *text) && p.dropText.CompareAndSwap(text, nil) {
				dropping.Store(true)
			}
		}
		if !p.pass() {
			return
		}
		if _, err := server.Write(msg); err != nil {
			return
		}
	}
}

func (p *pgProxy) serverToClient(server, client net.Conn, dropping *atomic.Bool) {
	for {
		msg, err := readMessage(server, true)
		if err != nil {
			return
		}
		if !p.pass() {
			return
		}
		if dropping.Load() {
			if msg[0] == 'Z' { // ReadyForQuery: the statement has run
				p.dropped.Add(1)
				if p.holeAfterDrop.Load() {
					p.Blackhole()
				}
				return
			}
			continue
		}
		if _, err := client.Write(msg); err != nil {
			return
		}
	}
}
