package opencode_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/readme"
)

// readmeProgram wraps the README's example (a function body using ctx and
// returning an error) in a program whose server address comes from
// $OPENCODE_URL.
const readmeProgram = `package main

import (
	"context"
	"log"
	"os"

	"github.com/agentc-dev/agentc/gen/opencode"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
%s
}
`

// TestREADMEExample builds the README's example of "Driving OpenCode from
// Go" as a stranger copies it and runs it against a server replaying a
// recorded turn: it must log the tool call, its result and the completion,
// and then return (the executor's Events stays open after a completion,
// so a loop that waits for it to close never ends).
func TestREADMEExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	blocks := readme.GoBlocks(t, "### Driving OpenCode from Go (`gen/opencode`)", "## ")
	const addr = `BaseURL: "http://127.0.0.1:4096"`
	if len(blocks) == 0 || !strings.Contains(blocks[0], addr) {
		t.Fatalf("README: no Go block with %s in the section \"Driving OpenCode from Go\"", addr)
	}
	src := fmt.Sprintf(readmeProgram, strings.Replace(blocks[0], addr, `BaseURL: os.Getenv("OPENCODE_URL")`, 1))
	bin := readme.Build(t, "gen/opencode/readmeprogram", map[string]string{"main.go": src})

	f := replayServer(t, "echo")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), "OPENCODE_URL="+f.URL)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the README's example did not return after the turn's completion:\n%s", out)
	}
	if err != nil {
		t.Fatalf("the README's example failed: %v\n%s", err, out)
	}
	for _, want := range []string{`tool echo({"sleep_ms":0,"text":"hi"})`, "tool echo: echo: hi (error: false)", "done: The echo said hi."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the README's example did not log %q:\n%s", want, out)
		}
	}
}
