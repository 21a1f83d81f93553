package gateway_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/pgtest"
	"github.com/agentc-dev/agentc/gen/internal/procout"
	"github.com/agentc-dev/agentc/gen/internal/readme"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// readmeHarness is what the README's wiring leaves to the reader: the
// gateway (a contract.Handler), verifySandboxToken, sessionMode and ctx.
// The snippets' own lines go into run, unchanged but for the listening
// address.
const readmeHarness = `package main

import (
%s
)

// Gateway executes save_snapshot; the contract's other tools are not
// called here.
type Gateway struct{ contract.Handler }

func (Gateway) SaveSnapshot(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.SaveSnapshotResult], error) {
	return contract.Output[contract.SaveSnapshotResult]{Result: "saved"}, nil
}

func verifySandboxToken(ctx context.Context, token string) (agentrt.Claims, error) {
	if token != "sbx" {
		return agentrt.Claims{}, errors.New("bad token")
	}
	return agentrt.Claims{Source: agentrt.SourceSandbox}, nil
}

func sessionMode(ctx context.Context, id string) (contract.Mode, error) { return contract.ModeSetup, nil }

var _, _ = fmt.Sprint, time.Second

func main() {
	if err := run(context.Background(), Gateway{}); err != nil {
		fmt.Fprintln(os.Stderr, "readme gateway:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, gateway Gateway) error {
%s
}
`

// TestREADMEWiring builds the README's wiring as a stranger copies it —
// the callback route, then the MCP server mounted beside it — into a
// program that fills in only what the README leaves to its reader, runs it
// against a fresh PostgreSQL database, and calls save_snapshot through the
// callback route and again, with the same tool_call_id, over MCP: the
// first executes, the second is answered the stored result. It fails when
// a snippet uses a name that the generated packages or the snippets do
// not define, when what a line offers in its place ("// or …") does not
// build there, or when the wiring as written does not serve a call (a
// store without its table answers every call 503).
func TestREADMEWiring(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a gateway program")
	}
	blocks := readme.GoBlocks(t, "### Wiring the gateway", "#### Stores under faults")
	if len(blocks) < 2 {
		t.Fatalf("README: %d Go blocks in \"Wiring the gateway\", want the route's and the MCP server's", len(blocks))
	}
	imports, body, ok := strings.Cut(blocks[0], "\n)\n")
	if !strings.HasPrefix(imports, "import (\n") || !ok {
		t.Fatalf("README: the wiring's first block does not start with an import block:\n%s", blocks[0])
	}
	// The README's paths are a downstream module's; here the generated
	// package is this repository's, and the runtime agentc's own.
	imports = strings.NewReplacer(
		`"example.com/gateway/generated/go/contract/agentrt"`, `"github.com/agentc-dev/agentc/gen/gogen/agentrt"`,
		`"example.com/gateway/generated/go/`, `"github.com/agentc-dev/agentc/generated/go/`,
	).Replace(strings.TrimPrefix(imports, "import (\n"))
	for _, std := range []string{"context", "errors", "fmt", "net/http", "os", "time"} {
		if !strings.Contains(imports, `"`+std+`"`) {
			imports += "\n\t\"" + std + "\""
		}
	}
	imports += "\n\t\"github.com/agentc-dev/agentc/generated/go/contractmcp\""
	const mount = "mux.Handle(route.Pattern(), route)"
	head, tail, ok := strings.Cut(body, mount)
	if !ok || !strings.Contains(body, `Addr:              ":8080",`) {
		t.Fatalf("README: the wiring lacks %q or Addr \":8080\":\n%s", mount, body)
	}
	tail = strings.Replace(tail, `":8080"`, `os.Getenv("ADDR")`, 1)
	eol := strings.IndexByte(tail, '\n')
	body = head + mount + tail[:eol] + "\n" + blocks[1] + "\n" + tail[eol+1:]
	src := fmt.Sprintf(readmeHarness, imports, body)

	bin := readme.Build(t, "gen/gateway/readmeprogram", map[string]string{"main.go": src})
	// What a line offers in its place ("x := a // or b()") builds there,
	// the rest of the wiring as written: the swap a reader makes.
	swaps := regexp.MustCompile(`(?m)^(.*=) \S+( // or ([\w.]+\(\)).*)$`)
	if !swaps.MatchString(src) {
		t.Fatal("README: the wiring offers no alternative store (// or contract.NewMemoryStore())")
	}
	readme.Build(t, "gen/gateway/readmeprogram", map[string]string{"main.go": swaps.ReplaceAllString(src, "$1 $3$2")})

	pg := pgtest.Start(t)
	port, err := procout.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pg.DSN, "ADDR="+addr)
	var out procout.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the README's gateway exited (%v) before it listened:\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the README's gateway does not listen on %s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	client := &http.Client{Timeout: 30 * time.Second}

	post := func(path string, header map[string]string, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer sbx")
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v\n%s", path, err, out.String())
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	path := strings.NewReplacer("{sessionId}", setupSession, "{toolName}", "save_snapshot").Replace(contract.CallbackPath)
	status, got := post(path, nil, `{"tool_call_id":"readme-1","args":{}}`)
	var res contract.Result
	if json.Unmarshal([]byte(got), &res); status != 200 || !res.Success || res.Result != "saved" {
		t.Fatalf("callback: %d %s, want 200 and the handler's result\n%s", status, got, out.String())
	}
	status, got = post("/mcp", map[string]string{"Accept": "application/json, text/event-stream", "X-Agentc-Session": setupSession},
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save_snapshot","arguments":{},"_meta":{"dev.agentc/tool_call_id":"readme-1"}}}`)
	var rpc struct {
		Result struct {
			Meta              map[string]any  `json:"_meta"`
			StructuredContent contract.Result `json:"structuredContent"`
		}
	}
	json.Unmarshal([]byte(got), &rpc)
	if status != 200 || rpc.Result.Meta["dev.agentc/replay"] != true || rpc.Result.StructuredContent.Result != "saved" {
		t.Fatalf("MCP retry of the callback's call: %d %s, want the stored result, replayed\n%s", status, got, out.String())
	}
	if strings.Contains(out.String(), "ERROR") {
		t.Errorf("the README's gateway logged errors:\n%s", out.String())
	}
}

// readmeMetricsHarness runs the README's Prometheus adaptor, its metrics
// declared at package level and its assignment to cfg.Observe in main, on
// stand-ins for Prometheus's packages that count what is observed, with a
// call of a tool by its name, one by its alias and one of no tool.
const readmeMetricsHarness = `package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/agentc-dev/agentc/gen/gateway/readmeprogram/promauto"
	"github.com/agentc-dev/agentc/gen/gateway/readmeprogram/prometheus"
	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

var _, _ = strconv.Itoa, prometheus.CounterOpts{}

%s

func main() {
	var cfg contract.RouteConfig
%s
	for _, tool := range []string{"automation.complete", "automation_complete", "no_such_tool"} {
		cfg.Observe(context.Background(), agentrt.CallEvent{Tool: tool, Outcome: "executed", Duration: time.Millisecond})
	}
	fmt.Print(promauto.Counted())
}
`

// Stand-ins for github.com/prometheus/client_golang's prometheus and
// promauto, as far as the README's adaptor uses them.
const (
	readmePrometheus = `package prometheus

type CounterOpts struct{ Name, Help string }

type HistogramOpts struct{ Name, Help string }
`
	readmePromauto = `package promauto

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentc-dev/agentc/gen/gateway/readmeprogram/prometheus"
)

var counted = map[string]int{}

// Counted lists each metric and label values observed, with how often.
func Counted() string {
	var lines []string
	for k, n := range counted {
		lines = append(lines, fmt.Sprintf("%s %d\n", k, n))
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

type Vec struct{ name string }

type Metric struct{ key string }

func (m Metric) Inc()              { counted[m.key]++ }
func (m Metric) Observe(float64)   { counted[m.key]++ }
func (v *Vec) WithLabelValues(values ...string) Metric {
	return Metric{v.name + "{" + strings.Join(values, ",") + "}"}
}

func NewCounterVec(o prometheus.CounterOpts, labels []string) *Vec     { return &Vec{o.Name} }
func NewHistogramVec(o prometheus.HistogramOpts, labels []string) *Vec { return &Vec{o.Name} }
`
)

// TestREADMEMetrics builds the README's Prometheus adaptor for Observe
// and runs it: a tool called by its name and by its alias is counted under
// one label, the tool's name, and a name that is no tool's under
// "unknown", so that the labels stay bounded and one tool is one series.
func TestREADMEMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	blocks := readme.GoBlocks(t, "#### Stores under faults, retention and metrics", "## Using agentc in your repository")
	if len(blocks) != 1 {
		t.Fatalf("README: %d Go blocks in \"Stores under faults, retention and metrics\", want the adaptor's", len(blocks))
	}
	vars, stmt, ok := strings.Cut(blocks[0], "\n\ncfg.Observe = ")
	if !ok {
		t.Fatalf("README: the adaptor does not set cfg.Observe after its metrics:\n%s", blocks[0])
	}
	bin := readme.Build(t, "gen/gateway/readmeprogram", map[string]string{
		"main.go":                  fmt.Sprintf(readmeMetricsHarness, vars, "cfg.Observe = "+stmt),
		"prometheus/prometheus.go": readmePrometheus,
		"promauto/promauto.go":     readmePromauto,
	})
	out, err := exec.Command(bin).CombinedOutput()
	want := "agentc_tool_call_seconds{automation.complete,false} 2\n" +
		"agentc_tool_call_seconds{unknown,false} 1\n" +
		"agentc_tool_calls_total{automation.complete,executed} 2\n" +
		"agentc_tool_calls_total{unknown,executed} 1\n"
	if err != nil || string(out) != want {
		t.Errorf("the README's adaptor counted (%v):\n%s\nwant:\n%s", err, out, want)
	}
}
