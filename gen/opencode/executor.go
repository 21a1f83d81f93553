package opencode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// maxEvent bounds one server-sent event's data.
const maxEvent = 16 << 20

// errorBuffer is the capacity of Errors(); further errors are dropped
// while it is full.
const errorBuffer = 16

// eventBuffer is the capacity of Events(); the event stream is not read
// while it is full.
const eventBuffer = 256

// ErrClosed is returned by the methods of a closed executor.
var ErrClosed = errors.New("opencode: executor closed")

// Executor is a StreamingExecutor over one OpenCode session: it reads the
// server's event stream, keeps the session's events, and turns them into
// StreamEvents. One goroutine reads the stream; it ends, closing Events,
// Errors and Done, when the executor is closed, its context ends or the
// stream breaks.
type Executor struct {
	c         *Client
	sessionID string
	defaults  ExecuteRequest

	events chan *StreamEvent
	errs   chan error
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc

	mu sync.Mutex
	// pending counts prompts sent and not yet answered by a completion.
	pending int
	// active is set when the session reported work (busy) or an error
	// since the last prompt, so that an idle left over from an earlier
	// turn does not end this one.
	active bool
	// idle is set when the session went idle in this turn before the
	// events showed it over.
	idle bool
	// settled is closed at each completion and replaced.
	settled  chan struct{}
	closing  bool
	exitCode int
	exitErr  error
}

// ExecuteStreaming opens the server's event stream, creates a session (or
// takes req.SessionID), and sends req.Message when it is not empty. The
// executor, an *Executor, runs until Close or until ctx ends. Its first
// event is a system event naming the session.
func (c *Client) ExecuteStreaming(ctx context.Context, req *ExecuteRequest) (StreamingExecutor, error) {
	if req == nil {
		req = &ExecuteRequest{}
	}
	ectx, cancel := context.WithCancel(ctx)
	sse, body, err := c.subscribe(ectx, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	sessionID := req.SessionID
	if sessionID == "" {
		sessionID, err = c.CreateSession(ectx, req.Title)
		if err != nil {
			cancel()
			body.Close()
			return nil, err
		}
	}
	e := &Executor{
		c:         c,
		sessionID: sessionID,
		defaults:  *req,
		events:    make(chan *StreamEvent, eventBuffer),
		errs:      make(chan error, errorBuffer),
		done:      make(chan struct{}),
		ctx:       ectx,
		cancel:    cancel,
		settled:   make(chan struct{}),
	}
	e.events <- &StreamEvent{
		Type: EventSystem,
		Text: fmt.Sprintf("opencode session %s at %s", sessionID, c.base),
	}
	go e.run(sse, body)
	if req.Message != "" {
		if err := e.SendMessage(req.Message); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// subscribe opens GET /event and reads its first event (server.connected),
// after which every later event of the instance is on the stream. The
// connection is bounded by RequestTimeout until then, by ctx after.
func (c *Client) subscribe(ctx context.Context, cancel context.CancelFunc) (*sseReader, io.ReadCloser, error) {
	timer := time.AfterFunc(c.cfg.RequestTimeout, cancel)
	fail := func(err error) (*sseReader, io.ReadCloser, error) {
		if !timer.Stop() {
			err = fmt.Errorf("opencode: GET /event: no first event within %v: %w", c.cfg.RequestTimeout, err)
		}
		return nil, nil, err
	}
	resp, err := c.send(ctx, http.MethodGet, "/event", "text/event-stream", nil)
	if err != nil {
		return fail(err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		return fail(fmt.Errorf("opencode: GET /event: content type %q, want text/event-stream", resp.Header.Get("Content-Type")))
	}
	sse := newSSEReader(resp.Body, maxEvent)
	if _, err := sse.Next(); err != nil {
		resp.Body.Close()
		return fail(fmt.Errorf("opencode: GET /event: reading the first event: %w", err))
	}
	if !timer.Stop() {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("opencode: GET /event: no first event within %v", c.cfg.RequestTimeout)
	}
	return sse, resp.Body, nil
}

// run reads the event stream until it ends.
func (e *Executor) run(sse *sseReader, body io.ReadCloser) {
	defer func() {
		body.Close()
		e.mu.Lock()
		e.closing = true
		e.mu.Unlock()
		close(e.events)
		close(e.errs)
		close(e.done)
	}()
	n := &normalizer{
		sessionID: e.sessionID,
		roles:     map[string]string{},
		partTypes: map[string]string{},
		textDone:  map[string]bool{},
		tools:     map[string]StreamEventType{},

		unresolved: map[string]bool{},
		texts:      map[string][]string{},
	}
	for {
		data, err := sse.Next()
		if err != nil {
			e.exit(err)
			return
		}
		// An event read while no prompt was pending belongs to no turn:
		// the next prompt was sent after the server wrote it.
		e.mu.Lock()
		inTurn := e.pending > 0
		e.mu.Unlock()
		out, sig, err := n.handle(data)
		if err != nil {
			e.report(err)
			continue
		}
		if sig == sigError && !inTurn {
			n.turnError = "" // so that the next turn does not end in it
		}
		if !e.send(out) {
			e.exit(nil)
			return
		}
		e.mu.Lock()
		// Not inTurn, the event is no turn's, though a prompt may have
		// been sent while send waited for Events' consumer.
		turn := inTurn && e.pending > 0
		// A prompt OpenCode refuses before its loop starts (an unknown
		// agent) yields session.error and nothing more: no busy, no idle.
		refused := sig == sigError && turn && !e.active
		switch {
		case (sig == sigActive || sig == sigError) && turn:
			e.active = true
		case sig == sigIdle && turn && e.active:
			e.idle = true
		}
		// The turn may end at an idle of its own or, after an idle that
		// came too early, at any later event but one of activity.
		check := sig != sigActive && sig != sigError && e.idle && turn && e.active
		e.mu.Unlock()
		if refused {
			// Unless the session is busy (with a turn the prompt was
			// queued behind), the refused prompt's turn is over.
			busy, err := e.c.busy(e.ctx, e.sessionID)
			if err != nil {
				if e.ctx.Err() != nil {
					e.exit(nil)
					return
				}
				e.report(fmt.Errorf("opencode: session %s reported an error but its status could not be read: %w", e.sessionID, err))
				continue
			}
			if !busy && !e.finishTurn([]*StreamEvent{n.complete(nil, "")}) {
				return
			}
			continue
		}
		if !check {
			continue
		}
		var end []*StreamEvent
		if done := n.completeFromEvents(); done != nil {
			end = []*StreamEvent{done}
		} else if sig == sigIdle {
			// The events do not show the turn over: after an abort
			// OpenCode goes idle before it publishes the running tool's
			// end. Ask the message list, which also covers events the
			// stream never delivered; when it is not settled either, a
			// later event or idle ends the turn.
			msgs, err := e.c.Messages(e.ctx, e.sessionID)
			if err != nil {
				if e.ctx.Err() != nil {
					e.exit(nil)
					return
				}
				e.report(fmt.Errorf("opencode: session %s went idle but its messages could not be read: %w", e.sessionID, err))
				continue
			}
			end = n.settle(msgs)
		}
		if end != nil && !e.finishTurn(end) {
			return
		}
	}
}

// finishTurn marks the turn answered and delivers its last events; it
// reports false when the executor is ending (and has recorded why). The
// state is reset before the completion goes out: a consumer may send the
// next message the moment it sees the completion.
func (e *Executor) finishTurn(out []*StreamEvent) bool {
	e.mu.Lock()
	e.pending = 0
	e.active = false
	e.idle = false
	settled := e.settled
	e.settled = make(chan struct{})
	e.mu.Unlock()
	ok := e.send(out)
	close(settled)
	if !ok {
		e.exit(nil)
	}
	return ok
}

// send delivers events unless the executor is ending; it reports whether
// it delivered them all.
func (e *Executor) send(evs []*StreamEvent) bool {
	for _, ev := range evs {
		select {
		case e.events <- ev:
		case <-e.ctx.Done():
			return false
		}
	}
	return true
}

// report delivers a non-fatal error, dropping it when Errors() is full.
func (e *Executor) report(err error) {
	select {
	case e.errs <- err:
	default:
	}
}

// exit records why the stream ended: Close is a clean end, a context that
// ended or a broken or finished stream is a failure. err is the stream's
// error; it is nil only when the context ended.
func (e *Executor) exit(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closing:
		return
	case e.ctx.Err() != nil:
		err = fmt.Errorf("opencode: session %s: %w", e.sessionID, context.Cause(e.ctx))
	case errors.Is(err, io.EOF):
		err = fmt.Errorf("opencode: session %s: the server ended the event stream", e.sessionID)
	default:
		err = fmt.Errorf("opencode: session %s: reading the event stream: %w", e.sessionID, err)
	}
	e.report(err)
	e.exitCode, e.exitErr = 1, err
}

// SendMessage sends a text prompt with the request's model, agent, system
// prompt, variant and tools. A completion event answers it. Prompts sent
// while a turn runs are queued by OpenCode; one completion then answers
// them all.
func (e *Executor) SendMessage(message string) error {
	p := struct {
		ExecuteRequest
		Parts []PromptPart `json:"parts"`
	}{e.defaults, []PromptPart{{Type: "text", Text: message}}}
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return ErrClosed
	}
	e.pending++
	e.active = false
	e.idle = false
	e.mu.Unlock()
	if err := e.c.do(e.ctx, http.MethodPost, "/session/"+url.PathEscape(e.sessionID)+"/prompt_async", p, nil); err != nil {
		e.mu.Lock()
		e.pending--
		e.mu.Unlock()
		return err
	}
	return nil
}

// Cancel aborts the running turn (POST /session/:id/abort): a running tool
// ends with "Tool execution aborted". When a turn was running it waits, at
// most Config.AbortTimeout, until OpenCode has settled it and its
// completion (with Error "MessageAbortedError: Aborted") is on Events, so a
// message sent next starts a fresh turn; keep reading Events meanwhile.
func (e *Executor) Cancel() error {
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return ErrClosed
	}
	running := e.pending > 0
	settled := e.settled
	e.mu.Unlock()

	if err := e.c.Abort(e.ctx, e.sessionID); err != nil {
		return err
	}
	if !running {
		return nil
	}
	select {
	case <-settled:
		return nil
	case <-e.done:
		return ErrClosed
	case <-time.After(e.c.cfg.AbortTimeout):
		return fmt.Errorf("opencode: session %s: aborted, but the turn did not settle within %v", e.sessionID, e.c.cfg.AbortTimeout)
	}
}

// Events delivers the normalised events; it is closed when the executor
// ends.
func (e *Executor) Events() <-chan *StreamEvent { return e.events }

// Errors delivers errors that do not end the executor (an undecodable
// event, a failed message listing) and the error that ended it; it is
// closed when the executor ends. Errors are dropped while it is full.
func (e *Executor) Errors() <-chan error { return e.errs }

// Done is closed when the executor has ended.
func (e *Executor) Done() <-chan struct{} { return e.done }

// Wait blocks until the executor ends and returns 0 and nil after Close,
// or 1 and the reason when its context ended or the event stream broke.
func (e *Executor) Wait() (int, error) {
	<-e.done
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.exitCode, e.exitErr
}

// Close stops reading the event stream and waits for the reader to end.
// It does not abort the session's turn (Cancel does). It is idempotent.
func (e *Executor) Close() error {
	e.mu.Lock()
	e.closing = true
	e.mu.Unlock()
	e.cancel()
	<-e.done
	return nil
}

// RuntimeSessionID returns the OpenCode session id.
func (e *Executor) RuntimeSessionID() string { return e.sessionID }

// IsClosed reports whether the executor has ended.
func (e *Executor) IsClosed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}
