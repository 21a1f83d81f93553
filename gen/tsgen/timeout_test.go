package tsgen_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// The callback settings of the timeout tests' spec: an attempt times out
// after timeoutMS, and maxRetries retries follow, backoffMS apart at first.
// timeoutMS is short to keep the test fast, long enough that an answer on
// loopback always beats it, even on a loaded machine.
const (
	timeoutMS  = 300
	maxRetries = 2
	backoffMS  = 10
)

// timeoutSpec is the default spec with the callback settings above and
// retryOn, a CUE list, as its callback.retry_on: the spec author's text
// edited, so that the loader reads it as it reads any spec.
func timeoutSpec(t *testing.T, retryOn string) *generated {
	t.Helper()
	src := load.Default()
	const old = `retry_on: ["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "fetch failed", "terminated", "AbortError", "TimeoutError"]`
	text := string(src.Files["contract.cue"])
	if strings.Count(text, old) != 1 {
		t.Fatalf("spec/contract.cue no longer holds %s once: update the test", old)
	}
	src.Files["contract.cue"] = []byte(strings.Replace(text, old, fmt.Sprintf(
		"retry_on: %s\n\ttimeout_ms: %d\n\tmax_retries: %d\n\tbackoff_base_ms: %d", retryOn, timeoutMS, maxRetries, backoffMS), 1))
	s, err := load.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if cb := s.Callback; cb.TimeoutMS != timeoutMS || cb.MaxRetries != maxRetries || cb.BackoffBaseMS != backoffMS {
		t.Fatalf("the spec variant's callback is %+v", cb)
	}
	return generateOnly(t, s, "opencode")
}

// stallingGateway answers callbacks as fakeGateway does, except that it
// leaves the first attempts of a call unanswered until the sandbox gives
// up on them (or for 3 s). The message id, the tool_call_id's part before
// ":", says how: "late<n>…" leaves the first n attempts without an
// answer, "body<n>…" sends their status line and headers but no body.
type stallingGateway struct {
	mu       sync.Mutex
	attempts map[string][]string // message id → tool_call_id of each attempt
}

func (g *stallingGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req gatewayRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	msg, _, _ := strings.Cut(req.ToolCallID, ":")
	g.mu.Lock()
	g.attempts[msg] = append(g.attempts[msg], req.ToolCallID)
	n := len(g.attempts[msg])
	g.mu.Unlock()
	how, stalled := msg[:min(4, len(msg))], 0
	fmt.Sscanf(msg[len(how):], "%d", &stalled)
	if (how == "late" || how == "body") && n <= stalled {
		if how == "body" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done(): // the sandbox closed the connection
			return
		case <-time.After(3 * time.Second):
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"success": true, "result": "done " + req.ToolCallID})
}

// TestCallbackTimeoutUnderNode runs generated stubs under node against a
// gateway that answers slower than callback.timeout_ms: a timed-out
// attempt is retried with the same tool_call_id (seed 001's Snapshot
// TCP-Drop Retry Trap: the gateway may have executed the call whose answer
// never came), the retries stop after callback.max_retries with an error
// naming the tool, the attempts and the cause, and a spec whose retry_on
// leaves out "TimeoutError" makes one attempt only. The tools of both
// specs run in one node process, to start node (and typescript) once.
func TestCallbackTimeoutUnderNode(t *testing.T) {
	t.Parallel()
	modules := nodetool.Dir(t)
	const (
		retried    = `["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "fetch failed", "terminated", "AbortError", "TimeoutError"]`
		notRetried = `["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "fetch failed", "terminated", "AbortError"]`
		timedOut   = "The operation was aborted due to timeout" // fetch's TimeoutError, Node 20
	)
	calls := []struct {
		// RetryOn is the spec's callback.retry_on.
		RetryOn string
		// MessageID tells the gateway what to do (see stallingGateway);
		// OpenCode passes no callID, so the stub makes up the
		// tool_call_id's second half, once per call.
		MessageID string
		// WantOutput or WantError is the outcome; Attempts the number of
		// requests the gateway must have seen, all with one tool_call_id.
		WantOutput, WantError string
		Attempts              int
	}{
		// No answer to the first attempt: the second, with the same
		// tool_call_id, completes the call.
		{RetryOn: retried, MessageID: "late1", WantOutput: "done late1:*", Attempts: 2},
		// The status line came but the body did not: the same.
		{RetryOn: retried, MessageID: "body1", WantOutput: "done body1:*", Attempts: 2},
		// Never an answer in time: 1 + max_retries attempts, then an error
		// that says which callback failed, how often and why.
		{RetryOn: retried, MessageID: "late99", Attempts: 1 + maxRetries, WantError: fmt.Sprintf(
			"agentc: the gateway callback of save_snapshot failed after %d attempt(s): %s", 1+maxRetries, timedOut)},
		// A spec whose retry_on leaves timeouts out: the first timeout
		// ends the call.
		{RetryOn: notRetried, MessageID: "late1-not-retried", Attempts: 1,
			WantError: "agentc: the gateway callback of save_snapshot failed after 1 attempt(s): " + timedOut},
	}

	gw := &stallingGateway{attempts: map[string][]string{}}
	srv := httptest.NewServer(gw) // listens on 127.0.0.1
	defer srv.Close()
	drv := newDriver(t)
	// Each spec's tool folder, as TestExecuteUnderNode lays it out.
	toolDirs := map[string]string{}
	var env []string
	for _, retryOn := range []string{retried, notRetried} {
		g := timeoutSpec(t, retryOn)
		root := t.TempDir()
		g.writeUnder(t, g.spec.Codegen.OpenCodeDir, root)
		toolDirs[retryOn] = filepath.Join(root, opencodelayout.ToolSubdir)
		if err := os.Symlink(modules, filepath.Join(toolDirs[retryOn], "node_modules")); err != nil {
			t.Fatal(err)
		}
		cb := g.spec.Callback
		env = []string{cb.EnvGatewayURL + "=" + srv.URL, cb.EnvSessionID + "=sess-1", cb.EnvAuthToken + "=tok-1"}
	}
	var input []driverCall
	for _, c := range calls {
		input = append(input, driverCall{
			Module: filepath.Join(toolDirs[c.RetryOn], "save_snapshot.ts"),
			Args:   json.RawMessage("{}"),
			Ctx:    map[string]string{"messageID": c.MessageID},
		})
	}
	results := runTools(t, drv, drv, env, input)
	gw.mu.Lock()
	defer gw.mu.Unlock()
	for i, c := range calls {
		r := results[i]
		switch {
		case c.WantError != "":
			if r.OK || r.Error != c.WantError {
				t.Errorf("%s:\n got %+v\nwant error %q", c.MessageID, r, c.WantError)
			}
		case !r.OK || !matchID(c.WantOutput, r.Output):
			t.Errorf("%s:\n got %+v\nwant output %q", c.MessageID, r, c.WantOutput)
		}
		ids := gw.attempts[c.MessageID]
		if len(ids) != c.Attempts {
			t.Errorf("%s: the gateway got %d attempts, want %d: %q", c.MessageID, len(ids), c.Attempts, ids)
		}
		for j, id := range ids {
			if !matchID(c.MessageID+":*", id) || id != ids[0] {
				t.Errorf("%s: attempt %d used tool_call_id %q, the first %q", c.MessageID, j+1, id, ids[0])
			}
		}
	}
}
