package opencode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### Driving OpenCode from Go (`gen/opencode`)\n")
	sec, _, ok2 := strings.Cut(sec, "\n## ")
	m := regexp.MustCompile("(?s)\n```go\n(.*?)\n```\n").FindStringSubmatch(sec)
	const addr = `BaseURL: "http://127.0.0.1:4096"`
	if !ok || !ok2 || m == nil || !strings.Contains(m[1], addr) {
		t.Fatalf("README: no Go block with %s in the section \"Driving OpenCode from Go\"", addr)
	}
	src := fmt.Sprintf(readmeProgram, strings.Replace(m[1], addr, `BaseURL: os.Getenv("OPENCODE_URL")`, 1))

	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main.go")
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// The program's package directory does not exist: go build reads its
	// file from the overlay, inside this module.
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(root, "gen/opencode/readmeprogram/main.go"): main}})
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "program")
	build := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", bin, "./gen/opencode/readmeprogram")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README's example does not build: %v\n%s\n%s", err, out, src)
	}

	rec := loadRecording(t, "echo")
	f := newFakeServer(t, rec.sessionID)
	f.messages = func() []byte { return rec.messages }
	f.stream = func(w io.Writer, flush func(), r *http.Request) {
		wait(t, r, f.prompted, "prompt")
		writeEvents(w, flush, rec.events)
	}
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
