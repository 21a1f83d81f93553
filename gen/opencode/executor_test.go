package opencode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/opencode"
)

// fakeServer is a stand-in for opencode serve that replays recorded event
// streams: each GET /event writes "server.connected" and hands the
// connection to stream.
type fakeServer struct {
	*httptest.Server
	sessionID string

	mu       sync.Mutex
	prompts  []string      // the bodies of prompt_async, as sent
	messages func() []byte // GET /session/:id/message

	prompted  chan struct{} // a prompt arrived
	aborted   chan struct{} // an abort arrived
	listed    chan struct{} // a message list was served
	promptErr int           // when not 0, prompt_async answers this status
	stream    func(w io.Writer, flush func(), r *http.Request)
}

func newFakeServer(t *testing.T, sessionID string) *fakeServer {
	t.Helper()
	f := &fakeServer{
		sessionID: sessionID,
		messages:  func() []byte { return []byte("[]") },
		prompted:  make(chan struct{}, 100),
		aborted:   make(chan struct{}, 100),
		listed:    make(chan struct{}, 100),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /global/health", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"healthy":true,"version":"fake"}`)
	})
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":%q,"title":"t"}`, f.sessionID)
	})
	mux.HandleFunc("POST /session/{id}/prompt_async", func(w http.ResponseWriter, r *http.Request) {
		p, err := io.ReadAll(r.Body)
		if err != nil || !json.Valid(p) {
			http.Error(w, fmt.Sprintf("not JSON (%v): %s", err, p), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.prompts = append(f.prompts, string(p))
		status := f.promptErr
		f.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
			fmt.Fprint(w, `{"name":"BadRequest","data":{"message":"nope"}}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		f.prompted <- struct{}{}
	})
	mux.HandleFunc("POST /session/{id}/abort", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "true")
		f.aborted <- struct{}{}
	})
	mux.HandleFunc("GET /session/status", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "{}") // no session busy
	})
	mux.HandleFunc("GET /session/{id}/message", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		body := f.messages()
		f.mu.Unlock()
		w.Write(body)
		f.listed <- struct{}{}
	})
	mux.HandleFunc("GET /event", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		flusher := w.(http.Flusher)
		fmt.Fprint(w, "data: {\"id\":\"evt_0\",\"type\":\"server.connected\",\"properties\":{}}\n\n")
		flusher.Flush()
		if f.stream != nil {
			f.stream(w, flusher.Flush, r)
		}
		<-r.Context().Done()
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// wait receives from ch in a handler of r. When the client goes away first
// it drops the connection; when nothing comes for a while it also fails the
// test.
func wait(t *testing.T, r *http.Request, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-r.Context().Done():
		panic(http.ErrAbortHandler)
	case <-time.After(10 * time.Second):
		t.Errorf("fake server: no %s", what)
		panic(http.ErrAbortHandler)
	}
}

// recording is a recorded GET /event stream and message list of the real
// OpenCode 1.18.33 (testdata/*.sse, *.messages.json).
type recording struct {
	sessionID string
	events    []string // the data of each event after server.connected
	messages  []byte
}

// replayServer is a fake OpenCode serving the recording name: its events,
// streamed once the prompt arrives, and its message list.
func replayServer(t *testing.T, name string) *fakeServer {
	t.Helper()
	rec := loadRecording(t, name)
	f := newFakeServer(t, rec.sessionID)
	f.messages = func() []byte { return rec.messages }
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		wait(t, r, f.prompted, "prompt")
		writeEvents(w, flush, rec.events)
	}
	return f
}

func loadRecording(t *testing.T, name string) *recording {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name + ".sse")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recording{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || strings.Contains(line, `"server.connected"`) {
			continue
		}
		rec.events = append(rec.events, line)
	}
	if m := regexp.MustCompile(`"sessionID":"(ses_[^"]+)"`).FindStringSubmatch(string(raw)); m != nil {
		rec.sessionID = m[1]
	} else {
		t.Fatalf("no session id in %s.sse", name)
	}
	if rec.messages, err = os.ReadFile("testdata/" + name + ".messages.json"); err != nil {
		t.Fatal(err)
	}
	return rec
}

func writeEvents(w io.Writer, flush func(), events []string) {
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
	}
	flush()
}

func newClient(t *testing.T, url string, cfg opencode.Config) *opencode.Client {
	t.Helper()
	cfg.BaseURL = url
	c, err := opencode.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestReplayToolCall(t *testing.T) {
	f := replayServer(t, "echo")
	c := newClient(t, f.URL, opencode.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Execute(ctx, &opencode.ExecuteRequest{
		Message: "please echo hi",
		Model:   &opencode.Model{ProviderID: "p", ModelID: "m"},
		Tools:   map[string]bool{"*": false, "echo": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{Type: opencode.EventMessage, Role: "user", Text: "please echo hi"},
		{Type: opencode.EventMessage, Role: "assistant", Text: "Let me echo."},
		{Type: opencode.EventToolCall, Role: "assistant", Tool: "echo", ID: "toolu_1", Input: `{"sleep_ms":0,"text":"hi"}`},
		{Type: opencode.EventToolResult, Role: "assistant", Tool: "echo", ID: "toolu_1", Input: `{"sleep_ms":0,"text":"hi"}`, Output: "echo: hi"},
		{Type: opencode.EventMessage, Role: "assistant", Text: "The echo said hi."},
		{Type: opencode.EventCompletion, Role: "assistant", FinalText: "The echo said hi."},
	}
	if got := complete(resp.Events); !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%v", dump(resp.Events), want)
	}
	if resp.FinalText != "The echo said hi." || resp.Error != "" || resp.SessionID != f.sessionID {
		t.Errorf("response = %+v", resp)
	}
	var partials []string
	for _, e := range resp.Events {
		if e.Partial {
			partials = append(partials, e.Text)
		}
	}
	if !slices.Equal(partials, []string{"Let me", " echo.", "The echo", " said hi."}) {
		t.Errorf("partial texts = %q", partials)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.prompts) != 1 {
		t.Fatalf("%d prompts", len(f.prompts))
	}
	const wantPrompt = `{"model":{"providerID":"p","modelID":"m"},"tools":{"*":false,"echo":true},"parts":[{"type":"text","text":"please echo hi"}]}`
	if got := f.prompts[0]; got != wantPrompt {
		t.Errorf("prompt sent = %s, want %s", got, wantPrompt)
	}
}

// runningVariant is the recorded final message list as it looked at the
// first session.idle after the abort: the tool still running, the
// assistant message not completed.
func runningVariant(t *testing.T, final []byte) []byte {
	t.Helper()
	var msgs []map[string]any
	if err := json.Unmarshal(final, &msgs); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		info := m["info"].(map[string]any)
		delete(info["time"].(map[string]any), "completed")
		delete(info, "error")
		for _, p := range m["parts"].([]any) {
			part := p.(map[string]any)
			if part["type"] == "tool" {
				state := part["state"].(map[string]any)
				state["status"] = "running"
				delete(state, "error")
			}
		}
	}
	out, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReplayAbort(t *testing.T) {
	t.Run("list catches up", func(t *testing.T) { testReplayAbort(t, false) })
	// Seen with the real server: at the second idle the message list
	// still showed the aborted tool running; the events have it all.
	t.Run("list lags", func(t *testing.T) { testReplayAbort(t, true) })
}

func testReplayAbort(t *testing.T, listLags bool) {
	rec := loadRecording(t, "abort")
	running := runningVariant(t, rec.messages)
	f := newFakeServer(t, rec.sessionID)
	final := false
	f.messages = func() []byte {
		if final && !listLags {
			return rec.messages
		}
		return running
	}
	// Split the recording where the real server paused: after the tool
	// started running (until the abort), and after the first idle (which
	// comes before the tool's aborted state).
	toolRunning := slices.IndexFunc(rec.events, func(e string) bool { return strings.Contains(e, `"status":"running"`) })
	firstIdle := slices.IndexFunc(rec.events, func(e string) bool { return strings.Contains(e, `"type":"session.idle"`) })
	if toolRunning < 0 || firstIdle < toolRunning {
		t.Fatalf("unexpected recording: running at %d, first idle at %d", toolRunning, firstIdle)
	}
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		wait(t, r, f.prompted, "prompt")
		writeEvents(w, flush, rec.events[:toolRunning+1])
		wait(t, r, f.aborted, "abort")
		writeEvents(w, flush, rec.events[toolRunning+1:firstIdle+1])
		wait(t, r, f.listed, "message list at the first idle")
		f.mu.Lock()
		final = true
		f.mu.Unlock()
		writeEvents(w, flush, rec.events[firstIdle+1:])
	}

	c := newClient(t, f.URL, opencode.Config{AbortTimeout: 10 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ex, err := c.ExecuteStreaming(ctx, &opencode.ExecuteRequest{Message: "please echo hi"})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	untilCompletion(t, ex, func(e *opencode.StreamEvent) bool { return e.Type == opencode.EventToolCall })
	cancelled := make(chan error, 1)
	go func() { cancelled <- ex.Cancel() }()
	evs := untilCompletion(t, ex, nil)
	if err := <-cancelled; err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	want := []step{
		{Type: opencode.EventError, Error: "MessageAbortedError: Aborted"},
		{Type: opencode.EventToolResult, Role: "assistant", Tool: "echo", ID: "toolu_1", Input: `{"sleep_ms":30000,"text":"hi"}`,
			Output: "Tool execution aborted", IsError: true},
		// The text the model wrote before the tool call is the final text.
		{Type: opencode.EventCompletion, Role: "assistant", FinalText: "Let me echo.", Error: "MessageAbortedError: Aborted", IsError: true},
	}
	if got := complete(evs); !slices.Equal(got, want) {
		t.Errorf("events after Cancel:\n%s\nwant:\n%v", dump(evs), want)
	}
	// The tool_result came from the stream, not from the message list.
	for _, e := range evs {
		if e.Type == opencode.EventToolResult && e.RawType != "message.part.updated" {
			t.Errorf("tool_result raw type = %q", e.RawType)
		}
	}
}

// TestSettleFromMessageList: when the stream misses a tool's final state,
// the message list read at idle supplies it before the completion.
func TestSettleFromMessageList(t *testing.T) {
	rec := loadRecording(t, "echo")
	f := newFakeServer(t, rec.sessionID)
	f.messages = func() []byte { return rec.messages }
	var kept []string
	for _, e := range rec.events {
		if strings.Contains(e, `"status":"completed"`) {
			continue // the stream loses the tool's completed state
		}
		kept = append(kept, e)
	}
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		wait(t, r, f.prompted, "prompt")
		writeEvents(w, flush, kept)
	}
	c := newClient(t, f.URL, opencode.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Execute(ctx, &opencode.ExecuteRequest{Message: "please echo hi"})
	if err != nil {
		t.Fatal(err)
	}
	got := complete(resp.Events)
	i := slices.IndexFunc(got, func(s step) bool { return s.Type == opencode.EventToolResult })
	if i < 0 || got[i].Output != "echo: hi" || got[len(got)-1].Type != opencode.EventCompletion {
		t.Errorf("events:\n%s", dump(resp.Events))
	}
}

func TestOtherSessionsAndStaleIdleIgnored(t *testing.T) {
	f := newFakeServer(t, "ses_mine")
	f.messages = func() []byte {
		return []byte(`[{"info":{"id":"msg_1","sessionID":"ses_mine","role":"user","time":{"created":1}},"parts":[]},
			{"info":{"id":"msg_2","sessionID":"ses_mine","role":"assistant","parentID":"msg_1","time":{"created":2,"completed":3}},
			 "parts":[{"id":"prt_1","type":"text","text":"mine"}]}]`)
	}
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		writeEvents(w, flush, []string{
			// An idle before any prompt is nobody's completion.
			`{"type":"session.idle","properties":{"sessionID":"ses_mine"}}`,
		})
		wait(t, r, f.prompted, "prompt")
		writeEvents(w, flush, []string{
			`{"type":"session.status","properties":{"sessionID":"ses_other","status":{"type":"busy"}}}`,
			`{"type":"message.updated","properties":{"sessionID":"ses_other","info":{"id":"msg_9","role":"assistant"}}}`,
			`{"type":"message.part.updated","properties":{"sessionID":"ses_other","part":{"id":"prt_9","messageID":"msg_9","type":"text","text":"theirs","time":{"start":1,"end":2}}}}`,
			`{"type":"session.idle","properties":{"sessionID":"ses_other"}}`,
			// An idle left over from an earlier turn, before busy.
			`{"type":"session.idle","properties":{"sessionID":"ses_mine"}}`,
			`not json`,
			// A known event whose properties do not decode.
			`{"type":"message.updated","properties":{"sessionID":"ses_mine","info":"msg_3"}}`,
			`{"type":"some.future.event","properties":{"sessionID":"ses_mine"}}`,
			`{"type":"session.status","properties":{"sessionID":"ses_mine","status":{"type":"retry","attempt":2,"message":"overloaded","next":1}}}`,
			`{"type":"session.status","properties":{"sessionID":"ses_mine","status":{"type":"busy"}}}`,
			`{"type":"message.updated","properties":{"sessionID":"ses_mine","info":{"id":"msg_2","role":"assistant"}}}`,
			`{"type":"message.part.updated","properties":{"sessionID":"ses_mine","part":{"id":"prt_1","messageID":"msg_2","type":"text","text":"","time":{"start":1}}}}`,
			`{"type":"message.part.delta","properties":{"sessionID":"ses_mine","messageID":"msg_2","partID":"prt_1","field":"text","delta":"mi"}}`,
			`{"type":"message.part.delta","properties":{"sessionID":"ses_mine","messageID":"msg_2","partID":"prt_1","field":"text","delta":"ne"}}`,
			`{"type":"message.part.updated","properties":{"sessionID":"ses_mine","part":{"id":"prt_1","messageID":"msg_2","type":"text","text":"mine","time":{"start":1,"end":2}}}}`,
			`{"type":"session.idle","properties":{"sessionID":"ses_mine"}}`,
		})
	}
	c := newClient(t, f.URL, opencode.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ex, err := c.ExecuteStreaming(ctx, &opencode.ExecuteRequest{Message: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	evs := untilCompletionAllowingErrors(t, ex)
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%s/%s/%s", e.Type, e.Role, e.Text+e.FinalText))
	}
	want := []string{
		"system//opencode session ses_mine at " + f.URL,
		"system//retrying the model call (attempt 2): overloaded",
		"message/assistant/mi",
		"message/assistant/ne",
		"message/assistant/mine",
		"completion/assistant/mine",
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n%q\nwant:\n%q", got, want)
	}
}

// untilCompletionAllowingErrors is untilCompletion that expects exactly the
// errors of the two undecodable events on Errors.
func untilCompletionAllowingErrors(t *testing.T, ex opencode.StreamingExecutor) []*opencode.StreamEvent {
	t.Helper()
	var got []*opencode.StreamEvent
	var errs []error
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	for {
		select {
		case e := <-ex.Events():
			got = append(got, e)
			if e.Type == opencode.EventCompletion {
				// The executor reported them before it sent the
				// completion: they are on Errors, whichever case the
				// select took first.
				for len(ex.Errors()) > 0 {
					errs = append(errs, <-ex.Errors())
				}
				if len(errs) != 2 || !strings.Contains(errs[0].Error(), "decoding an event") ||
					!strings.Contains(errs[1].Error(), "decoding a message.updated event") {
					t.Errorf("errors = %v, want the two undecodable events", errs)
				}
				return got
			}
		case err := <-ex.Errors():
			errs = append(errs, err)
		case <-timer.C:
			t.Fatalf("no completion; events:\n%s", dump(got))
		}
	}
}

// TestFailureBeforeAnswer: a turn that fails before any assistant message
// ends with OpenCode's error, whether the events show the turn over or,
// when the stream lost the user's message, the message list read at idle
// does.
func TestFailureBeforeAnswer(t *testing.T) {
	user := `{"type":"message.updated","properties":{"sessionID":"ses_x","info":{"id":"msg_1","role":"user","time":{"created":1}}}}`
	rest := []string{
		`{"type":"session.status","properties":{"sessionID":"ses_x","status":{"type":"busy"}}}`,
		`{"type":"session.error","properties":{"sessionID":"ses_x","error":{"name":"ProviderAuthError","data":{"providerID":"p","message":"no key"}}}}`,
		`{"type":"session.idle","properties":{"sessionID":"ses_x"}}`,
	}
	for _, tc := range []struct {
		name   string
		events []string
		listed bool // whether the executor must read the message list
	}{
		{"events", append([]string{user}, rest...), false},
		{"message list", rest, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t, "ses_x")
			f.messages = func() []byte {
				return []byte(`[{"info":{"id":"msg_1","sessionID":"ses_x","role":"user","time":{"created":1}},"parts":[]}]`)
			}
			f.stream = func(w io.Writer, flush func(), r *http.Request) {
				wait(t, r, f.prompted, "prompt")
				writeEvents(w, flush, tc.events)
			}
			c := newClient(t, f.URL, opencode.Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := c.Execute(ctx, &opencode.ExecuteRequest{Message: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			want := []step{
				{Type: opencode.EventError, Error: "ProviderAuthError: no key"},
				{Type: opencode.EventCompletion, Role: "assistant", Error: "ProviderAuthError: no key", IsError: true},
			}
			if got := complete(resp.Events); !slices.Equal(got, want) {
				t.Errorf("events:\n%s\nwant:\n%v", dump(resp.Events), want)
			}
			if resp.Error != "ProviderAuthError: no key" {
				t.Errorf("response error = %q", resp.Error)
			}
			// The list is served before the completion it settles.
			if listed := len(f.listed) > 0; listed != tc.listed {
				t.Errorf("message list read: %v, want %v", listed, tc.listed)
			}
		})
	}
}

// TestRefusedPrompt: a prompt OpenCode refuses before its loop starts (an
// unknown agent) yields two session.error events and nothing else — no
// user message, no busy, no idle, as recorded from the real server. The
// turn ends at the error with OpenCode's first message, and the second
// error, which comes after that completion, does not make the next turn
// fail.
func TestRefusedPrompt(t *testing.T) {
	rec := loadRecording(t, "echo")
	f := newFakeServer(t, rec.sessionID)
	f.messages = func() []byte { return rec.messages }
	refused := fmt.Sprintf(`{"type":"session.error","properties":{"sessionID":%q,"error":{"name":"UnknownError","data":{"message":"Agent not found: \"nonesuch\". Available agents: build, plan"}}}}`, rec.sessionID)
	stack := fmt.Sprintf(`{"type":"session.error","properties":{"sessionID":%q,"error":{"name":"UnknownError","data":{"message":"UnknownError: UnknownError\n    at SessionPrompt.createUserMessage"}}}}`, rec.sessionID)
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		wait(t, r, f.prompted, "prompt")
		writeEvents(w, flush, []string{refused, stack})
		wait(t, r, f.prompted, "second prompt")
		writeEvents(w, flush, rec.events)
	}
	c := newClient(t, f.URL, opencode.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ex, err := c.ExecuteStreaming(ctx, &opencode.ExecuteRequest{Agent: "nonesuch", Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	evs := untilCompletion(t, ex, nil)
	last := evs[len(evs)-1]
	if !last.IsError || last.Error != `UnknownError: Agent not found: "nonesuch". Available agents: build, plan` || last.FinalText != "" {
		t.Errorf("the refused turn's completion = %s", last)
	}
	if err := ex.SendMessage("please echo hi"); err != nil {
		t.Fatal(err)
	}
	evs = untilCompletion(t, ex, nil)
	if last := evs[len(evs)-1]; last.IsError || last.Error != "" || last.FinalText != "The echo said hi." {
		t.Errorf("the next turn's completion = %s", last)
	}
}

// TestStaleErrorBeforePrompt: a session.error read while no prompt was
// pending belongs to no turn, also when a prompt is sent while the executor
// still delivers it (Events full, its consumer not reading): it neither
// refuses the prompt nor ends its turn, where it was taken for the prompt's
// refusal and the turn ended at once with an empty completion.
func TestStaleErrorBeforePrompt(t *testing.T) {
	rec := loadRecording(t, "echo")
	f := newFakeServer(t, rec.sessionID)
	f.messages = func() []byte { return rec.messages }
	var before []string
	// Enough events to fill Events beside its first (the system event)...
	for i := range 255 {
		before = append(before, fmt.Sprintf(`{"type":"session.status","properties":{"sessionID":%q,"status":{"type":"retry","attempt":%d,"message":"overloaded","next":1}}}`, rec.sessionID, i+1))
	}
	// ... so that the executor waits to deliver this one.
	before = append(before, fmt.Sprintf(`{"type":"session.error","properties":{"sessionID":%q,"error":{"name":"UnknownError","data":{"message":"left over"}}}}`, rec.sessionID))
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		writeEvents(w, flush, before)
		wait(t, r, f.prompted, "prompt")
		writeEvents(w, flush, rec.events)
	}
	c := newClient(t, f.URL, opencode.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ex, err := c.ExecuteStreaming(ctx, &opencode.ExecuteRequest{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	if !settles(func() bool { return len(ex.Events()) == cap(ex.Events()) }) {
		t.Fatalf("Events holds %d of %d events", len(ex.Events()), cap(ex.Events()))
	}
	time.Sleep(100 * time.Millisecond) // the executor reads the error, and waits
	if err := ex.SendMessage("please echo hi"); err != nil {
		t.Fatal(err)
	}
	evs := untilCompletion(t, ex, nil)
	if last := evs[len(evs)-1]; last.IsError || last.FinalText != "The echo said hi." {
		t.Errorf("the prompt's completion = %s", last)
	}
}

// TestExecuteAbortsWhenContextEnds: Execute gives up with its context and
// aborts the session's turn on the way out.
func TestExecuteAbortsWhenContextEnds(t *testing.T) {
	f := newFakeServer(t, "ses_x")
	c := newClient(t, f.URL, opencode.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.Execute(ctx, &opencode.ExecuteRequest{Message: "never answered"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	select {
	case <-f.aborted:
	case <-time.After(10 * time.Second):
		t.Error("Execute did not abort the turn")
	}
}

// TestLongErrorBodyTruncated: an error answer's body is kept to its first
// 2000 bytes, marked as cut, so that a server's error page does not flood
// the message.
func TestLongErrorBodyTruncated(t *testing.T) {
	long := strings.Repeat("x", 3000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, long, http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	err := newClient(t, srv.URL, opencode.Config{}).Ping(context.Background())
	var he *opencode.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 500 || he.Body != long[:2000]+"…" {
		t.Errorf("err = %.100v…, want an HTTPError 500 with the body's first 2000 bytes and …", err)
	}
}

func TestPromptError(t *testing.T) {
	f := newFakeServer(t, "ses_x")
	f.promptErr = http.StatusBadRequest
	c := newClient(t, f.URL, opencode.Config{})
	_, err := c.ExecuteStreaming(context.Background(), &opencode.ExecuteRequest{Message: "hi"})
	var he *opencode.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 400 || !strings.Contains(he.Body, "nope") ||
		!strings.Contains(err.Error(), "POST /session/ses_x/prompt_async: 400") {
		t.Errorf("err = %v, want an HTTPError 400 naming the request", err)
	}
}

func TestContextEndsExecutor(t *testing.T) {
	f := newFakeServer(t, "ses_x")
	c := newClient(t, f.URL, opencode.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	ex, err := c.ExecuteStreaming(ctx, &opencode.ExecuteRequest{})
	if err != nil {
		t.Fatal(err)
	}
	<-ex.Events() // the system event
	cancel()
	select {
	case <-ex.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the executor did not end with its context")
	}
	if _, ok := <-ex.Events(); ok {
		t.Error("Events not closed")
	}
	code, err := ex.Wait()
	if code != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %d, %v; want 1 and context.Canceled", code, err)
	}
	if !ex.IsClosed() {
		t.Error("IsClosed = false")
	}
	if err := ex.Close(); err != nil {
		t.Errorf("Close after the end: %v", err)
	}
}

func TestServerEndsStream(t *testing.T) {
	f := newFakeServer(t, "ses_x")
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		panic(http.ErrAbortHandler) // drop the connection
	}
	c := newClient(t, f.URL, opencode.Config{})
	ex, err := c.ExecuteStreaming(context.Background(), &opencode.ExecuteRequest{})
	if err != nil {
		t.Fatal(err)
	}
	code, err := ex.Wait()
	if code != 1 || err == nil || !strings.Contains(err.Error(), "event stream") {
		t.Errorf("Wait = %d, %v; want 1 and an event stream error", code, err)
	}
	var last error
	for e := range ex.Errors() {
		last = e
	}
	if last == nil || last.Error() != err.Error() {
		t.Errorf("last error on Errors() = %v, want %v", last, err)
	}
	if err := ex.SendMessage("hi"); !errors.Is(err, opencode.ErrClosed) {
		t.Errorf("SendMessage after the end = %v, want ErrClosed", err)
	}

	// Execute, whose turn the dropped stream leaves without a completion,
	// returns why the executor ended.
	g := newFakeServer(t, "ses_y")
	g.stream = func(w io.Writer, flush func(), r *http.Request) {
		wait(t, r, g.prompted, "prompt")
		panic(http.ErrAbortHandler)
	}
	resp, err := newClient(t, g.URL, opencode.Config{}).Execute(context.Background(), &opencode.ExecuteRequest{Message: "hi"})
	if resp == nil || err == nil || !strings.Contains(err.Error(), "session ses_y: ") || !strings.Contains(err.Error(), "event stream") {
		t.Errorf("Execute = %v, %v; want the session's event stream error", resp, err)
	}
}

func TestNoFirstEvent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, opencode.Config{RequestTimeout: 200 * time.Millisecond})
	began := time.Now()
	_, err := c.ExecuteStreaming(context.Background(), &opencode.ExecuteRequest{})
	if err == nil || !strings.Contains(err.Error(), "no first event within 200ms") {
		t.Errorf("err = %v, want a timeout waiting for the first event", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestWrongContentType(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>")
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, opencode.Config{})
	_, err := c.ExecuteStreaming(context.Background(), &opencode.ExecuteRequest{})
	if err == nil || !strings.Contains(err.Error(), "want text/event-stream") {
		t.Errorf("err = %v", err)
	}
}

// TestCloseWithUnreadEvents: a consumer that stops reading does not keep
// the reader goroutine alive after Close.
func TestCloseWithUnreadEvents(t *testing.T) {
	f := newFakeServer(t, "ses_x")
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		wait(t, r, f.prompted, "prompt")
		for i := 0; i < 1000 && r.Context().Err() == nil; i++ {
			fmt.Fprintf(w, "data: {\"type\":\"message.part.updated\",\"properties\":{\"sessionID\":\"ses_x\",\"part\":{\"id\":\"prt_%d\",\"messageID\":\"msg_u\",\"type\":\"text\",\"text\":\"t%d\",\"time\":{\"start\":1,\"end\":2}}}}\n\n", i, i)
			flush()
		}
	}
	c := newClient(t, f.URL, opencode.Config{})
	ex, err := c.ExecuteStreaming(context.Background(), &opencode.ExecuteRequest{Message: "flood"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the buffer fill
	closed := make(chan struct{})
	go func() { ex.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs while Events is full")
	}
	if code, err := ex.Wait(); code != 0 || err != nil {
		t.Errorf("Wait after Close = %d, %v", code, err)
	}
}

// clientGoroutines returns the stacks of the goroutines that belong to this
// package or to an HTTP client connection.
func clientGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "agentc/gen/opencode.") && !strings.Contains(g, "opencode_test.") ||
			strings.Contains(g, "net/http.(*persistConn)") {
			out = append(out, g)
		}
	}
	return out
}

// settles polls cond for a few seconds.
func settles(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestNoGoroutineLeak runs whole sessions against the fake server and
// closes the executors and the client: no goroutine of the client may
// remain while the server still runs, and once the server is closed too the
// goroutine count is back where it was.
func TestNoGoroutineLeak(t *testing.T) {
	// Earlier tests' clients close their idle connections as they end,
	// whose read loops then return.
	if !settles(func() bool { return len(clientGoroutines()) == 0 }) {
		t.Fatalf("client goroutines before the test:\n%s", strings.Join(clientGoroutines(), "\n\n"))
	}
	before := runtime.NumGoroutine()
	func() {
		f := replayServer(t, "echo")
		defer f.Close()
		c, err := opencode.New(opencode.Config{BaseURL: f.URL})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if _, err := c.Execute(context.Background(), &opencode.ExecuteRequest{Message: "please echo hi"}); err != nil {
				t.Fatal(err)
			}
		}
		ex, err := c.ExecuteStreaming(context.Background(), &opencode.ExecuteRequest{})
		if err != nil {
			t.Fatal(err)
		}
		ex.Close()
		c.Close()
		if !settles(func() bool { return len(clientGoroutines()) == 0 }) {
			t.Errorf("client goroutines left after Close, the server still up:\n%s", strings.Join(clientGoroutines(), "\n\n"))
		}
	}()
	if !settles(func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
	t.Logf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:4096", "ftp://x", "http://"} {
		if _, err := opencode.New(opencode.Config{BaseURL: u}); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
}

func TestBasicAuthAndDirectory(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		fmt.Fprint(w, `{"healthy":true,"version":"x"}`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, opencode.Config{Password: "secret", Directory: "/repo"})
	if err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	user, pass, ok := got.BasicAuth()
	if !ok || user != "opencode" || pass != "secret" || got.URL.Query().Get("directory") != "/repo" {
		t.Errorf("request: auth %q %q %v, query %q", user, pass, ok, got.URL.RawQuery)
	}

	// A server with its own username.
	c = newClient(t, srv.URL, opencode.Config{Username: "ci", Password: "secret"})
	if err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if user, pass, ok := got.BasicAuth(); !ok || user != "ci" || pass != "secret" {
		t.Errorf("request: auth %q %q %v, want user ci", user, pass, ok)
	}
}

// TestCancel: Cancel without a running turn aborts and returns at once;
// with one it waits at most AbortTimeout for the turn to settle; after
// Close it refuses. Execute refuses a request without a message.
func TestCancel(t *testing.T) {
	f := newFakeServer(t, "ses_x")
	c := newClient(t, f.URL, opencode.Config{AbortTimeout: 200 * time.Millisecond})
	for _, req := range []*opencode.ExecuteRequest{nil, {}} {
		if _, err := c.Execute(context.Background(), req); err == nil || !strings.Contains(err.Error(), "needs a message") {
			t.Errorf("Execute(%v): err = %v, want it to need a message", req, err)
		}
	}
	ex, err := c.ExecuteStreaming(context.Background(), nil) // a nil request is an empty one
	if err != nil {
		t.Fatal(err)
	}
	if err := ex.Cancel(); err != nil {
		t.Errorf("Cancel with no turn running: %v", err)
	}
	<-f.aborted
	if err := ex.SendMessage("never answered"); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := ex.Cancel(); err == nil || !strings.Contains(err.Error(), "did not settle within 200ms") {
		t.Errorf("Cancel of a turn that never settles: err = %v", err)
	}
	if d := time.Since(began); d < 200*time.Millisecond {
		t.Errorf("Cancel returned after %v, before AbortTimeout", d)
	}
	ex.Close()
	if err := ex.Cancel(); !errors.Is(err, opencode.ErrClosed) {
		t.Errorf("Cancel after Close: err = %v, want ErrClosed", err)
	}
	if err := ex.SendMessage("late"); !errors.Is(err, opencode.ErrClosed) {
		t.Errorf("SendMessage after Close: err = %v, want ErrClosed", err)
	}
}

// TestPingAndRefusedStream: Ping fails when the server says it is not
// healthy; a refused event stream (a wrong password) is an HTTPError.
func TestPingAndRefusedStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/event" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"healthy":false}`)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, opencode.Config{})
	if err := c.Ping(context.Background()); err == nil || !strings.Contains(err.Error(), "not healthy") {
		t.Errorf("Ping of an unhealthy server: err = %v", err)
	}
	_, err := c.ExecuteStreaming(context.Background(), &opencode.ExecuteRequest{})
	var he *opencode.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized || he.Path != "/event" {
		t.Errorf("refused event stream: err = %v, want an HTTPError 401 of GET /event", err)
	}
}

// TestRequestShapesEveryPrompt: ExecuteStreaming continues the session
// ExecuteRequest.SessionID names, and every prompt it sends, the first and
// the next, carries the request's model, agent, system prompt, variant and
// tools.
func TestRequestShapesEveryPrompt(t *testing.T) {
	f := newFakeServer(t, "ses_new")
	c := newClient(t, f.URL, opencode.Config{})
	req := &opencode.ExecuteRequest{
		SessionID: "ses_old",
		Message:   "first",
		Model:     &opencode.Model{ProviderID: "p", ModelID: "m"},
		Agent:     "plan",
		System:    "Be brief.",
		Variant:   "high",
		Tools:     map[string]bool{"*": false, "echo": true},
	}
	ex, err := c.ExecuteStreaming(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	if id := ex.RuntimeSessionID(); id != "ses_old" {
		t.Errorf("session %q, want the request's ses_old", id)
	}
	if err := ex.SendMessage("second"); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.prompts) != 2 {
		t.Fatalf("%d prompts, want 2", len(f.prompts))
	}
	for i, text := range []string{"first", "second"} {
		want := fmt.Sprintf(`{"model":{"providerID":"p","modelID":"m"},"agent":"plan","system":"Be brief.","variant":"high","tools":{"*":false,"echo":true},"parts":[{"type":"text","text":%q}]}`, text)
		if got := f.prompts[i]; got != want {
			t.Errorf("prompt %d: %s, want %s", i+1, got, want)
		}
	}
}
