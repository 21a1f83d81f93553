package opencodetest_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/opencodetest"
)

// helloTool is a hand-written custom tool in the shape agentc generates.
const helloTool = `import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Say hello to someone.",
  args: {
    name: tool.schema.string().max(20).describe("Who to greet."),
  },
  async execute(args) {
    return "hello " + args.name
  },
})
`

// helloSchema is the JSON Schema OpenCode 1.18.33 renders for helloTool's
// args, byte for byte: zod 4's toJSONSchema, draft 2020-12, description
// before type, no additionalProperties.
const helloSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"name":{"description":"Who to greet.","type":"string","maxLength":20}},"required":["name"]}`

func TestCustomToolIsLoaded(t *testing.T) {
	repo := t.TempDir()
	toolDir := filepath.Join(repo, ".opencode", "tool")
	if err := os.MkdirAll(toolDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(toolDir, "hello.ts"), []byte(helloTool), 0o644); err != nil {
		t.Fatal(err)
	}
	config := []byte(`{"$schema":"https://opencode.ai/config.json","autoupdate":false,"share":"disabled","username":"agentc-opencodetest"}`)

	srv := opencodetest.Start(t, repo, opencodetest.Options{Config: config})
	t.Logf("opencode listening at %s after %v", srv.URL, srv.StartupTime)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	began := time.Now()
	ids, err := srv.ToolIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first request (tool ids) took %v", time.Since(began))
	if !slices.Contains(ids, "hello") {
		t.Errorf("tool ids %q lack hello", ids)
	}

	// No provider is configured: the server accepts any provider and model.
	tools, err := srv.Tools(ctx, "anthropic", "claude-sonnet-4")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools, func(tl opencodetest.Tool) bool { return tl.ID == "hello" })
	if i < 0 {
		t.Fatalf("GET /experimental/tool lacks hello: %d tools", len(tools))
	}
	hello := tools[i]
	if hello.Description != "Say hello to someone." {
		t.Errorf("hello description = %q", hello.Description)
	}
	if got := string(hello.Parameters); got != helloSchema {
		t.Errorf("hello parameters:\n got %s\nwant %s", got, helloSchema)
	}

	var cfg struct {
		Username string `json:"username"`
	}
	if err := srv.GetJSON(ctx, "/config", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Username != "agentc-opencodetest" {
		t.Errorf("GET /config username = %q: Options.Config was not loaded", cfg.Username)
	}

	if n := srv.RegistryHits(); n != 0 {
		t.Errorf("something tried to reach the npm registry %d times:\n%s", n, srv.Output())
	}
	entries, err := os.ReadDir(filepath.Join(srv.Home, ".config", "opencode", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("OpenCode installed into its global config directory: %d entries", len(entries))
	}
}

// TestServersSideBySide: servers started at once get ports of their own
// (opencode binds port 0 itself: 4096 for the first, another for the rest)
// and each answers at the URL Start read from its listening line.
func TestServersSideBySide(t *testing.T) {
	a := opencodetest.Start(t, t.TempDir(), opencodetest.Options{})
	b := opencodetest.Start(t, t.TempDir(), opencodetest.Options{})
	if a.URL == b.URL {
		t.Fatalf("both servers at %s", a.URL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, s := range []*opencodetest.Server{a, b} {
		var h struct {
			Healthy bool `json:"healthy"`
		}
		if err := s.GetJSON(ctx, "/global/health", &h); err != nil || !h.Healthy {
			t.Errorf("%s: healthy %v, %v", s.URL, h.Healthy, err)
		}
	}
}
