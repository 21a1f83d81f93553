package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/corpus"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// corpusCall is one tool-argument case of the conformance corpus.
type corpusCall struct {
	ID    string `json:"id"`
	Tool  string `json:"tool"`
	Input []byte `json:"input"` // base64 in JSON, as mcpclient.cjs reads it
}

// corpusCalls returns the conformance corpus's cases (gen/conformance,
// the default spec's files) of gateway-executed tools whose input is a JSON
// object: the arguments an MCP client can send (MCP's arguments are an
// object; other inputs are the callback route's 400s).
func corpusCalls(t *testing.T) []corpusCall {
	t.Helper()
	cases, err := corpus.ReadDir(filepath.Join("..", "conformance", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusCall
	for _, c := range cases {
		tool, ok := contract.LookupTool(c.Tool)
		if !ok || !tool.GatewayExecuted() || !strings.HasPrefix(strings.TrimSpace(string(c.Input)), "{") {
			continue
		}
		id := fmt.Sprintf("%s:%d:%s", filepath.Base(c.File), c.Line, c.Name)
		out = append(out, corpusCall{ID: id, Tool: tool.Name(), Input: c.Input})
	}
	return out
}

// tsAnswer is mcpclient.cjs's answer.
type tsAnswer struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
	Results []struct {
		ID         string          `json:"id"`
		Syntax     bool            `json:"syntax"`
		Sent       string          `json:"sent"`
		IsError    bool            `json:"isError"`
		Text       string          `json:"text"`
		Structured json.RawMessage `json:"structured"`
		Error      string          `json:"error"`
	} `json:"results"`
}

// TestMCPTypeScriptClient: a second, independent client, the official
// TypeScript SDK (pinned in gen/testdata/npm), lists every gateway tool of a
// setup session with agentc's schemas and calls each with every
// tool-argument case of the conformance corpus; each result — validation
// failures (zod's issues) and executions alike — equals the callback
// route's answer to the same arguments.
func TestMCPTypeScriptClient(t *testing.T) {
	node := nodetool.Node(t)
	nm := nodetool.Dir(t)
	calls := corpusCalls(t)
	if len(calls) < 100 {
		t.Fatalf("only %d corpus cases of gateway tools", len(calls))
	}
	// Two gateways whose handlers see the same calls in the same order, one
	// through each transport: the test handler's data counts calls.
	viaMCP, viaCallback := newBothGateway(t, newHandler(), nil), newBothGateway(t, newHandler(), nil)
	req, _ := json.Marshal(map[string]any{
		"url": viaMCP.srv.URL + agentmcp.Path, "session": setupSession, "token": tokenFor(setupSession),
		"sessionHeader": agentmcp.SessionHeader, "idMeta": agentmcp.ToolCallIDMeta, "calls": calls,
	})
	script, err := filepath.Abs(filepath.Join("testdata", "mcpclient.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, script)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nm)
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node mcpclient.cjs: %v\n%s", err, stderr.Bytes())
	}
	var ans tsAnswer
	if err := json.Unmarshal(out, &ans); err != nil {
		t.Fatalf("mcpclient.cjs answered %.500s: %v", out, err)
	}

	// tools/list: every gateway tool of the mode, with agentc's schemas.
	var names []string
	for _, tool := range ans.Tools {
		names = append(names, tool.Name)
		ct, _ := contract.LookupTool(tool.Name)
		want, err := os.ReadFile(filepath.Join(generatedDir(t), "..", "jsonschema", ct.FileName()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonschema.Canonical(tool.InputSchema)
		if err != nil || !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
			t.Errorf("the TypeScript SDK lists %s with inputSchema %s", tool.Name, tool.InputSchema)
		}
	}
	slices.Sort(names)
	if want := gatewayTools(contract.ModeSetup); !slices.Equal(names, want) {
		t.Errorf("the TypeScript SDK lists %v, want %v", names, want)
	}

	// tools/call: each result equals the callback route's.
	if len(ans.Results) != len(calls) {
		t.Fatalf("%d results for %d calls", len(ans.Results), len(calls))
	}
	client := viaCallback.srv.Client()
	var compared, invalid, executed, tooDeep int
	for i, r := range ans.Results {
		c := calls[i]
		if r.ID != c.ID {
			t.Fatalf("result %d is for %s, want %s", i, r.ID, c.ID)
		}
		if r.Syntax {
			continue // JSON.parse rejects it: no MCP client can send it
		}
		if r.Error != "" {
			// The one known difference: the Go SDK's JSON-RPC decoder
			// refuses a message nested deeper than 1,000 levels as a
			// malformed payload, before any tool runs; the callback route
			// strips such an unknown key as zod does.
			if strings.Contains(r.Error, "exceeded maximum nesting depth") {
				tooDeep++
				continue
			}
			t.Errorf("%s: %s over MCP failed: %s", c.ID, c.Tool, r.Error)
			continue
		}
		cb := post(t, client, viaCallback.callbackURL(setupSession, c.Tool), tokenFor(setupSession), "", body(c.ID, r.Sent))
		if cb.Status != 200 {
			t.Errorf("%s: the callback route answered %v", c.ID, cb)
			continue
		}
		var got contract.Result
		if err := json.Unmarshal(r.Structured, &got); err != nil {
			t.Errorf("%s: structuredContent %s: %v", c.ID, r.Structured, err)
			continue
		}
		if got.Success != cb.Result.Success || got.Result != cb.Result.Result || !sameJSON(got.Data, cb.Result.Data) ||
			r.Text != cb.Result.Result || r.IsError == cb.Result.Success {
			t.Errorf("%s %s %s:\nMCP      isError %v text %q structured %s\ncallback %s", c.ID, c.Tool, r.Sent, r.IsError, r.Text, r.Structured, cb.Body)
		}
		compared++
		if strings.HasPrefix(cb.Result.Result, "Invalid arguments: ") {
			invalid++
		} else if cb.Result.Success {
			executed++
		}
	}
	if invalid == 0 || executed == 0 {
		t.Errorf("compared %d results: %d validation failures, %d executions; the corpus should give both", compared, invalid, executed)
	}
	if tooDeep > len(gatewayTools(contract.ModeSetup)) {
		t.Errorf("%d calls refused for their nesting depth; the corpus has one such case per tool", tooDeep)
	}
	t.Logf("MEASURE TypeScript SDK client: %d corpus cases compared with the callback route (%d validation failures, %d executions), 0 differences; %d refused by the SDK's nesting limit", compared, invalid, executed, tooDeep)
}
