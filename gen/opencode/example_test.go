package opencode_test

import (
	"context"
	"log"

	"github.com/agentc-dev/agentc/gen/opencode"
)

// The README's example: run a turn on an OpenCode server and follow its
// tool calls. (Compiled, not run: it needs a server.)
func Example() {
	ctx := context.Background()
	rt, err := opencode.New(opencode.Config{BaseURL: "http://127.0.0.1:4096"})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	ex, err := rt.ExecuteStreaming(ctx, &opencode.ExecuteRequest{
		Title:   "fix the flaky test",
		Model:   &opencode.Model{ProviderID: "anthropic", ModelID: "claude-sonnet-4-5"},
		Tools:   map[string]bool{"*": false, "create_ticket": true, "finish": true},
		Message: "The test TestRetry fails one run in ten; find out why.",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer ex.Close()
	for ev := range ex.Events() {
		switch ev.Type {
		case opencode.EventToolCall:
			log.Printf("tool %s(%s)", ev.ToolName, ev.ToolInput)
		case opencode.EventToolResult:
			log.Printf("tool %s: %s (error: %v)", ev.ToolName, ev.ToolOutput, ev.IsError)
		case opencode.EventCompletion:
			log.Printf("done: %s", ev.FinalText)
			return // Events stays open for the next turn
		}
	}
	_, err = ex.Wait() // it ended before the completion: why
	log.Fatal(err)
}
