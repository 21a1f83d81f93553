// Package opencodetest runs the real `opencode serve` (the pinned
// opencode-ai from gen/testdata/npm) inside a test, offline, on loopback.
//
// OpenCode wants to install @opencode-ai/plugin with npm into its global
// config directory and into <repo>/.opencode on the first request for a
// project. Start prepares both so no install runs, points npm at a loopback
// port that only counts connections (RegistryHits) with retries off, so a
// stray install fails in under a second instead of hanging a request for a
// minute, gives the server a scratch HOME and a minimal environment, and
// waits for the "opencode server listening on" line before it returns,
// because a request sent earlier can hang forever.
package opencodetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/procout"
)

// listeningMarker starts the line opencode serve prints once it accepts
// requests; the URL follows it.
const listeningMarker = "opencode server listening on "

// startTimeout bounds the wait for the listening line. Start to listening
// takes about 1 s on a quiet machine; the margin is for loaded CI runners.
const startTimeout = 60 * time.Second

// stopGrace is how long the server gets to exit after SIGTERM before its
// process group is killed.
const stopGrace = 5 * time.Second

// pluginPackage is the package OpenCode would otherwise install.
const pluginPackage = "@opencode-ai/plugin"

// inheritedEnv lists the only variables passed through from the test's
// environment; everything else (XDG_*, OPENCODE_*, npm_config_*, provider
// API keys) stays out so the server sees the same world on every machine.
var inheritedEnv = []string{"PATH", "TMPDIR", "LANG", "LC_ALL", "TZ", "SYSTEMROOT"}

// Options configures Start.
type Options struct {
	// Config, when not nil, is written to <repo>/opencode.json before the
	// server starts (for example a scripted provider).
	Config []byte
	// Env holds extra KEY=value entries for the server's environment; they
	// override the defaults Start sets.
	Env []string
}

// Server is a running opencode serve process.
type Server struct {
	// URL is the base URL the server printed, like http://127.0.0.1:41234.
	URL string
	// Home is the scratch HOME of the server; OpenCode keeps its config,
	// data, logs and caches under it.
	Home string
	// StartupTime is how long the server took from exec to the listening
	// line.
	StartupTime time.Duration

	output   *procout.SyncBuffer
	registry *tripwire
}

// Tool is one entry of GET /experimental/tool.
type Tool struct {
	// ID is the tool's name; for a custom tool, the base name of its file.
	ID string `json:"id"`
	// Description is the text the model is shown.
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments, byte for byte as the
	// server sent it.
	Parameters json.RawMessage `json:"parameters"`
}

// Start runs opencode serve in repoDir and stops it (with its whole process
// group) when the test ends. It fails the test if the server does not come
// up; it skips or fails like nodetool.Dir when the toolchain is missing.
//
// Start creates <repoDir>/.opencode/node_modules (a symlink to the installed
// toolchain) and <repoDir>/.opencode/package-lock.json when they are absent,
// and OpenCode itself writes <repoDir>/.opencode/.gitignore: give it a
// scratch copy of a repository, never a source tree.
func Start(t testing.TB, repoDir string, opts Options) *Server {
	t.Helper()
	bin := nodetool.OpencodeBin(t)
	nodeModules := nodetool.Dir(t)

	home := t.TempDir()
	if err := prepare(repoDir, home, nodeModules, opts.Config); err != nil {
		t.Fatalf("opencodetest: %v", err)
	}

	registry, err := newTripwire()
	if err != nil {
		t.Fatalf("opencodetest: dead registry: %v", err)
	}
	t.Cleanup(registry.close)

	output := &procout.SyncBuffer{}
	// Port 0 lets opencode bind the port itself (4096 when it is free,
	// else one the kernel picks), so no other process can take the port
	// between choosing and binding it; the URL is read from the listening
	// line. --print-logs puts OpenCode's log on stderr, so a failing test
	// shows what the "Check server logs" of a 500 answer refers to.
	cmd := exec.Command(bin, "serve", "--print-logs", "--hostname", "127.0.0.1", "--port", "0")
	cmd.Dir = repoDir
	cmd.Env = environment(home, registry.url(), opts.Env)
	cmd.WaitDelay = stopGrace

	began := time.Now()
	u, proc, err := procout.Start(cmd, output, listeningMarker, startTimeout)
	if err != nil {
		t.Fatalf("opencodetest: opencode serve: %v\n--- opencode output ---\n%s", err, output)
	}
	s := &Server{
		URL:         strings.TrimRight(u, "/"),
		Home:        home,
		StartupTime: time.Since(began),
		output:      output,
		registry:    registry,
	}
	t.Cleanup(func() {
		proc.Stop(syscall.SIGTERM, stopGrace)
		if t.Failed() {
			t.Logf("opencodetest: output of opencode serve in %s:\n%s", repoDir, output)
		}
	})
	return s
}

// Output returns what the server has printed on stdout and stderr so far.
func (s *Server) Output() string {
	return s.output.String()
}

// RegistryHits returns how many connections reached the dead npm registry,
// that is how many times something under the server tried to install.
func (s *Server) RegistryHits() int {
	return int(s.registry.hits.Load())
}

// GetJSON sends GET path (with its query) to the server and decodes the JSON
// answer into out. A status other than 200 is an error carrying the body.
func (s *Server) GetJSON(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: reading the answer: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if n := s.RegistryHits(); n > 0 {
			hint = fmt.Sprintf(" (OpenCode tried to install from npm %d times: is <repo>/.opencode/package-lock.json missing %s?)", n, pluginPackage)
		}
		return fmt.Errorf("GET %s: %s: %s%s", path, resp.Status, bytes.TrimSpace(body), hint)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("GET %s: decoding %.200q: %w", path, body, err)
	}
	return nil
}

// ToolIDs returns the ids of every tool the server knows for its directory
// (GET /experimental/tool/ids), built-in and custom.
func (s *Server) ToolIDs(ctx context.Context) ([]string, error) {
	var ids []string
	if err := s.GetJSON(ctx, "/experimental/tool/ids", &ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// Tools returns the tools offered to the given provider and model, with the
// JSON Schema of their arguments (GET /experimental/tool). Both parameters
// are required by the server but need not name a configured provider; the
// built-in tool set varies with them (apply_patch replaces edit and write
// for openai gpt-* models, for example), custom tools do not.
func (s *Server) Tools(ctx context.Context, provider, model string) ([]Tool, error) {
	q := url.Values{"provider": {provider}, "model": {model}}
	var tools []Tool
	if err := s.GetJSON(ctx, "/experimental/tool?"+q.Encode(), &tools); err != nil {
		return nil, err
	}
	return tools, nil
}

// prepare lays out the files that keep OpenCode from installing anything:
// the project's .opencode/node_modules and lock, the global config
// directory's empty node_modules and lock, and opencode.json if given.
func prepare(dir, home, nodeModules string, config []byte) error {
	version, err := pluginVersion(nodeModules)
	if err != nil {
		return err
	}
	lock := minimalLock(version)

	project := filepath.Join(dir, ".opencode")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	if err := os.Symlink(nodeModules, filepath.Join(project, "node_modules")); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("linking the toolchain into the project: %w", err)
	}
	// A project's own lock is left as it is.
	projectLock := filepath.Join(project, "package-lock.json")
	if _, err := os.Lstat(projectLock); err != nil {
		if err := os.WriteFile(projectLock, lock, 0o644); err != nil {
			return err
		}
	}

	global := filepath.Join(home, ".config", "opencode")
	if err := os.MkdirAll(filepath.Join(global, "node_modules"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(global, "package-lock.json"), lock, 0o644); err != nil {
		return err
	}

	if config != nil {
		if !json.Valid(config) {
			return fmt.Errorf("the opencode.json body (Options.Config) is not valid JSON: %.200q", config)
		}
		if err := os.WriteFile(filepath.Join(dir, "opencode.json"), config, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pluginVersion reads the installed @opencode-ai/plugin's version.
func pluginVersion(nodeModules string) (string, error) {
	path := filepath.Join(nodeModules, filepath.FromSlash(pluginPackage), "package.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the installed %s: %w", pluginPackage, err)
	}
	var manifest struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		return "", fmt.Errorf("decoding %s: %w", path, err)
	}
	return manifest.Version, nil
}

// minimalLock is a package-lock.json that lists only the plugin, which is
// all OpenCode checks before deciding not to install it.
func minimalLock(version string) []byte {
	lock := map[string]any{
		"lockfileVersion": 3,
		"requires":        true,
		"packages": map[string]any{
			"": map[string]any{
				"dependencies": map[string]string{pluginPackage: version},
			},
			"node_modules/" + pluginPackage: map[string]string{"version": version},
		},
	}
	// Maps of strings, a number and a bool always encode.
	data, _ := json.MarshalIndent(lock, "", "  ")
	return append(data, '\n')
}

// environment builds the server's environment: a few inherited variables,
// the scratch HOME, OpenCode's switches for offline use, the dead registry,
// then extra (which wins: exec.Cmd keeps the last value of a repeated
// key).
func environment(home, registry string, extra []string) []string {
	var env []string
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env,
		"HOME="+home,
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"npm_config_registry="+registry,
		// npm retries a dropped connection with back-off for about a
		// minute, and the request that set off the install hangs
		// meanwhile; with no retries it fails at once with a 500 that
		// GetJSON explains.
		"npm_config_fetch_retries=0",
	)
	return append(env, extra...)
}

// tripwire is the dead npm registry: a loopback listener that counts and
// drops every connection, so an install fails at once instead of reaching
// the network, and the test can tell that one was tried.
type tripwire struct {
	l    net.Listener
	hits atomic.Int64
	done sync.WaitGroup
}

func newTripwire() (*tripwire, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	w := &tripwire{l: l}
	w.done.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			w.hits.Add(1)
			c.Close()
		}
	})
	return w, nil
}

func (w *tripwire) url() string { return "http://" + w.l.Addr().String() + "/" }

func (w *tripwire) close() {
	w.l.Close()
	w.done.Wait()
}
