package opencode_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/fakemodel"
	"github.com/agentc-dev/agentc/gen/internal/opencodetest"
	"github.com/agentc-dev/agentc/gen/opencode"
)

// echoTool is a hand-written custom tool: it echoes its text, after
// sleeping sleep_ms milliseconds unless the turn is aborted first.
const echoTool = `import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Echo the text back.",
  args: {
    text: tool.schema.string().describe("What to echo."),
    sleep_ms: tool.schema.number().int().min(0).optional().describe("How long to wait first."),
  },
  async execute(args, ctx) {
    if (args.sleep_ms) {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, args.sleep_ms)
        ctx.abort.addEventListener("abort", () => {
          clearTimeout(timer)
          reject(new Error("echo: aborted"))
        })
      })
    }
    return "echo: " + args.text
  },
})
`

// turnTimeout bounds one turn; the first one loads the tool with bun and
// takes seconds on a loaded 2-core machine.
const turnTimeout = 120 * time.Second

// startOpenCode runs opencode serve on a scratch repository holding echo.ts,
// with the scripted model as its only provider.
func startOpenCode(t *testing.T, fm *fakemodel.Server, opts fakemodel.ConfigOptions) *opencodetest.Server {
	t.Helper()
	repo := t.TempDir()
	dir := filepath.Join(repo, ".opencode", "tool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "echo.ts"), []byte(echoTool), 0o644); err != nil {
		t.Fatal(err)
	}
	return opencodetest.Start(t, repo, opencodetest.Options{Config: fm.Config(opts)})
}

// step is an event reduced to what a test compares.
type step struct {
	Type                    opencode.StreamEventType
	Role, Text              string
	Tool, ID, Input, Output string
	IsError                 bool
	FinalText, Error        string
}

func reduce(e *opencode.StreamEvent) step {
	s := step{
		Type: e.Type, Role: e.Role, Text: e.Text, Tool: e.ToolName, ID: e.ToolID,
		Output: e.ToolOutput, IsError: e.IsError, FinalText: e.FinalText, Error: e.Error,
	}
	if len(e.ToolInput) > 0 {
		s.Input = compactJSON(e.ToolInput)
	}
	return s
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "invalid JSON: " + string(raw)
	}
	b, _ := json.Marshal(v) // sorted keys
	return string(b)
}

// untilCompletion reads events until a completion, returning them all; it
// fails the test on timeout or when the executor ends first.
func untilCompletion(t *testing.T, ex opencode.StreamingExecutor, stop func(*opencode.StreamEvent) bool) []*opencode.StreamEvent {
	t.Helper()
	if stop == nil {
		stop = func(e *opencode.StreamEvent) bool { return e.Type == opencode.EventCompletion }
	}
	timer := time.NewTimer(turnTimeout)
	defer timer.Stop()
	var got []*opencode.StreamEvent
	for {
		select {
		case e, ok := <-ex.Events():
			if !ok {
				_, err := ex.Wait()
				t.Fatalf("the executor ended before the awaited event (%v); events:\n%s", err, dump(got))
			}
			got = append(got, e)
			if stop(e) {
				return got
			}
		case err, ok := <-ex.Errors():
			if ok {
				t.Errorf("executor error: %v", err)
			}
		case <-timer.C:
			t.Fatalf("no awaited event within %v; events:\n%s", turnTimeout, dump(got))
		}
	}
}

func dump(evs []*opencode.StreamEvent) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("  " + e.String() + "\n")
	}
	return b.String()
}

// complete keeps the events that are not streamed pieces and not the
// executor's opening system event.
func complete(evs []*opencode.StreamEvent) []step {
	var out []step
	for _, e := range evs {
		if e.Partial || e.Type == opencode.EventSystem {
			continue
		}
		out = append(out, reduce(e))
	}
	return out
}

func TestEndToEnd(t *testing.T) {
	fm := fakemodel.New(t,
		fakemodel.Turn{
			Name:  "call echo",
			Match: fakemodel.All(fakemodel.OffersTool("echo"), fakemodel.LastUserTextContains("please echo hi")),
			Reply: fakemodel.Reply{
				{Text: "Let me echo that."},
				{ToolID: "toolu_echo_1", ToolName: "echo", Input: map[string]any{"text": "hi"}},
			},
		},
		fakemodel.Turn{
			Name:  "answer",
			Match: fakemodel.AfterToolResult("echo"),
			Reply: fakemodel.Say("The tool said: echo: hi"),
		},
		fakemodel.Turn{
			Name:  "call echo again",
			Match: fakemodel.LastUserTextContains("again"),
			Reply: fakemodel.Call("toolu_echo_2", "echo", map[string]any{"text": "again"}),
		},
		fakemodel.Turn{
			Name:  "answer again",
			Match: fakemodel.AfterToolResult("echo"),
			Reply: fakemodel.Say("Done again."),
		},
		fakemodel.Turn{
			Name:  "slow echo",
			Match: fakemodel.LastUserTextContains("slowly"),
			Reply: fakemodel.Call("toolu_slow", "echo", map[string]any{"text": "zzz", "sleep_ms": 120000}),
		},
	)
	cfgOpts := fakemodel.ConfigOptions{}
	srv := startOpenCode(t, fm, cfgOpts)
	t.Logf("MEASURE opencode serve start to listening: %v", srv.StartupTime)

	ctx, cancel := context.WithTimeout(context.Background(), 5*turnTimeout)
	defer cancel()

	client, err := opencode.New(opencode.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if err := client.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	recordEvents(t, ctx, srv.URL)

	providerID, modelID := cfgOpts.Model()
	req := &opencode.ExecuteRequest{
		Model: &opencode.Model{ProviderID: providerID, ModelID: modelID},
		Tools: map[string]bool{"*": false, "echo": true},
	}
	ex, err := client.ExecuteStreaming(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	sessionID := ex.RuntimeSessionID()
	if !strings.HasPrefix(sessionID, "ses") {
		t.Fatalf("session id %q", sessionID)
	}

	// Turn 1: prompt → tool → answer.
	began := time.Now()
	if err := ex.SendMessage("please echo hi"); err != nil {
		t.Fatal(err)
	}
	evs := untilCompletion(t, ex, nil)
	t.Logf("MEASURE first prompt→tool→answer round trip (loads the tool): %v", time.Since(began))
	if evs[0].Type != opencode.EventSystem || !strings.Contains(evs[0].Text, sessionID) {
		t.Errorf("first event = %s, want the system event naming the session", evs[0])
	}
	want := []step{
		{Type: opencode.EventMessage, Role: "user", Text: "please echo hi"},
		{Type: opencode.EventMessage, Role: "assistant", Text: "Let me echo that."},
		{Type: opencode.EventToolCall, Role: "assistant", Tool: "echo", ID: "toolu_echo_1", Input: `{"text":"hi"}`},
		{Type: opencode.EventToolResult, Role: "assistant", Tool: "echo", ID: "toolu_echo_1", Input: `{"text":"hi"}`, Output: "echo: hi"},
		{Type: opencode.EventMessage, Role: "assistant", Text: "The tool said: echo: hi"},
		{Type: opencode.EventCompletion, Role: "assistant", FinalText: "The tool said: echo: hi"},
	}
	if got := complete(evs); !slices.Equal(got, want) {
		t.Errorf("turn 1 events:\n%s\nwant (without partial and system events):\n%v", dump(evs), want)
	}
	// The streamed pieces add up to the complete texts.
	pieces := map[string]string{}
	for _, e := range evs {
		if e.Partial {
			pieces[e.PartID] += e.Text
		}
	}
	for _, e := range evs {
		if e.Type == opencode.EventMessage && !e.Partial && e.Role == "assistant" {
			if pieces[e.PartID] != e.Text {
				t.Errorf("partial pieces of part %s add up to %q, complete text %q", e.PartID, pieces[e.PartID], e.Text)
			}
		}
	}

	// What the model was sent.
	first, second := fm.ByTurn("call echo"), fm.ByTurn("answer")
	if first == nil || second == nil {
		t.Fatalf("the model did not answer both steps:\n%s", fm)
	}
	if tl := first.Tool("echo"); tl == nil {
		t.Errorf("the first request offers no echo tool: %v", first.ToolNames())
	} else {
		var schema struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(schema.Required, []string{"text"}) || len(schema.Properties) != 2 {
			t.Errorf("echo input_schema = %s", tl.InputSchema)
		}
		if tl.Description != "Echo the text back." {
			t.Errorf("echo description = %q", tl.Description)
		}
	}
	if got := first.ToolNames(); !slices.Equal(got, []string{"echo"}) {
		t.Errorf("tools offered = %v, want only echo (tools filter {*: false, echo: true})", got)
	}
	if !strings.Contains(first.SystemText(), "OpenCode") {
		t.Errorf("the system prompt does not look like OpenCode's: %.200q", first.SystemText())
	}
	results := second.LastToolResults()
	if len(results) != 1 || results[0].ToolUseID != "toolu_echo_1" || results[0].ToolName != "echo" ||
		results[0].Text != "echo: hi" || results[0].IsError {
		t.Errorf("the second request's tool results = %+v, want echo's toolu_echo_1 → \"echo: hi\"", results)
	}

	// The message list shows the tool part.
	msgs, err := client.Messages(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	part := findToolPart(msgs, "toolu_echo_1")
	if part == nil {
		t.Fatalf("no tool part with call id toolu_echo_1 in %d messages", len(msgs))
	}
	if part.Tool != "echo" || part.State.Status != opencode.ToolCompleted || part.State.Output != "echo: hi" ||
		compactJSON(part.State.Input) != `{"text":"hi"}` {
		t.Errorf("tool part = %+v, state %+v", part, part.State)
	}

	// Turn 2 in the same session, warm: the round trip to measure.
	began = time.Now()
	if err := ex.SendMessage("echo it again"); err != nil {
		t.Fatal(err)
	}
	evs = untilCompletion(t, ex, nil)
	t.Logf("MEASURE warm prompt→tool→answer round trip: %v", time.Since(began))
	last := evs[len(evs)-1]
	if last.FinalText != "Done again." || last.IsError {
		t.Errorf("turn 2 completion = %s", last)
	}

	// Turn 3: Cancel aborts a long-running tool.
	if err := ex.SendMessage("echo slowly"); err != nil {
		t.Fatal(err)
	}
	untilCompletion(t, ex, func(e *opencode.StreamEvent) bool {
		return e.Type == opencode.EventToolCall && e.ToolID == "toolu_slow"
	})
	began = time.Now()
	cancelled := make(chan error, 1)
	go func() { cancelled <- ex.Cancel() }()
	evs = untilCompletion(t, ex, nil)
	if err := <-cancelled; err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	t.Logf("MEASURE Cancel to the aborted turn's completion: %v", time.Since(began))
	want = []step{
		{Type: opencode.EventError, Error: "MessageAbortedError: Aborted"},
		{Type: opencode.EventToolResult, Role: "assistant", Tool: "echo", ID: "toolu_slow", Input: `{"sleep_ms":120000,"text":"zzz"}`,
			Output: "Tool execution aborted", IsError: true},
		{Type: opencode.EventCompletion, Role: "assistant", Error: "MessageAbortedError: Aborted", IsError: true},
	}
	if got := complete(evs); !slices.Equal(got, want) {
		t.Errorf("aborted turn events:\n%s\nwant:\n%v", dump(evs), want)
	}
	msgs, err = client.Messages(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	if part := findToolPart(msgs, "toolu_slow"); part == nil || part.State.Status != opencode.ToolError || part.State.Error != "Tool execution aborted" {
		t.Errorf("aborted tool part = %+v", part)
	}
	if n := len(fm.Answered()); n != 5 {
		t.Errorf("the model answered %d scripted requests, want 5 (none after the abort):\n%s", n, fm)
	}

	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	if code, err := ex.Wait(); code != 0 || err != nil {
		t.Errorf("Wait after Close = %d, %v", code, err)
	}
	if !ex.IsClosed() {
		t.Error("IsClosed after Close = false")
	}
	if err := ex.SendMessage("late"); err == nil {
		t.Error("SendMessage after Close succeeded")
	}
}

func TestExecuteGeneratesTitle(t *testing.T) {
	fm := fakemodel.New(t, fakemodel.Turn{Name: "hello", Reply: fakemodel.Say("Hello there.")},
		fakemodel.Turn{Name: "title", Match: func(r *fakemodel.Request) bool { return !r.HasTools() }, Reply: fakemodel.Say("Greeting session")})
	cfgOpts := fakemodel.ConfigOptions{}
	srv := startOpenCode(t, fm, cfgOpts)

	ctx, cancel := context.WithTimeout(context.Background(), turnTimeout)
	defer cancel()
	client, err := opencode.New(opencode.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	providerID, modelID := cfgOpts.Model()
	resp, err := client.Execute(ctx, &opencode.ExecuteRequest{
		Message: "say hello",
		Model:   &opencode.Model{ProviderID: providerID, ModelID: modelID},
		System:  "Answer briefly.",
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinalText != "Hello there." || resp.Error != "" {
		t.Errorf("Execute = %q, error %q", resp.FinalText, resp.Error)
	}
	step := fm.ByTurn("hello")
	if step == nil {
		t.Fatalf("no step request:\n%s", fm)
	}
	if !strings.Contains(step.SystemText(), "Answer briefly.") {
		t.Errorf("the request's system prompt lacks the prompt's system text")
	}
	// With no title given, OpenCode asks the small model for one, without
	// tools, and sets it on the session.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var s struct {
			Title string `json:"title"`
		}
		if err := srv.GetJSON(ctx, "/session/"+resp.SessionID, &s); err != nil {
			t.Fatal(err)
		}
		if s.Title == "Greeting session" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session title = %q, want the scripted title; requests:\n%s", s.Title, fm)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if fm.ByTurn("title") == nil {
		t.Errorf("no title request:\n%s", fm)
	}

	// A prompt OpenCode refuses before its loop starts (an unknown agent)
	// ends its turn with OpenCode's reason, not at the context's end.
	rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
	defer rcancel()
	refused, err := client.Execute(rctx, &opencode.ExecuteRequest{SessionID: resp.SessionID, Agent: "nonesuch", Message: "hello again"})
	if err != nil || !strings.Contains(refused.Error, `Agent not found: "nonesuch"`) {
		t.Errorf("Execute with an unknown agent = %+v, %v; want its turn ended with OpenCode's error", refused, err)
	}
}

// recordEvents keeps OpenCode's raw event stream, to show when the test
// fails.
func recordEvents(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/event", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if l := sc.Text(); l != "" && !strings.Contains(l, `"plugin.added"`) {
				mu.Lock()
				lines = append(lines, time.Now().Format("15:04:05.000 ")+l)
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-done
		if t.Failed() {
			mu.Lock()
			defer mu.Unlock()
			t.Logf("raw OpenCode events:\n%s", strings.Join(lines, "\n"))
		}
	})
}

func findToolPart(msgs []opencode.Message, callID string) *opencode.Part {
	for _, m := range msgs {
		for i, p := range m.Parts {
			if p.Type == "tool" && p.CallID == callID {
				return &m.Parts[i]
			}
		}
	}
	return nil
}
