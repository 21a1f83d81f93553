package proxygen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/fakemodel"
	"github.com/agentc-dev/agentc/gen/internal/opencodetest"
	"github.com/agentc-dev/agentc/gen/internal/procout"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
	"github.com/agentc-dev/agentc/gen/proxygen"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// The fake model stands in for the registry's claude-opus-4.6, whose
// OpenCode ID is anthropic/claude-opus-4-6, so the per-model layers apply.
const (
	providerID = "anthropic"
	modelID    = "claude-opus-4-6"
	repoName   = "acme/web"
)

// service is the generated Go handler (the example's, run by
// serveExample) behind a switch that can make it answer garbage or hang,
// counting the requests that reach it.
type service struct {
	behaviour atomic.Value // "serve", "malformed", "hang"
	stop      chan struct{}
	requests  atomic.Int32
	handler   http.Handler
	logs      *procout.SyncBuffer
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	switch s.behaviour.Load() {
	case "malformed":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"system": 42, "params": "hot"}`)
	case "hang":
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
	default:
		s.handler.ServeHTTP(w, r)
	}
}

// stalePlugin generates the plugin from the default spec with the
// example's settings, one coding sentence and the coding temperature
// changed: a plugin built from an
// older revision than the service, so the local defaults it falls back to
// are told apart from what the service serves.
func stalePlugin(t *testing.T) []byte {
	t.Helper()
	s := loadEdited(t, map[string][2]string{
		"modes.cue": {"Your goal is to implement the changes you are asked for.", "Your goal is to implement the changes you are asked for (local defaults)."},
		exampleFile: {"coding:     temperature: 0.5", "coding:     temperature: 0.9"},
	})
	// A budget a loaded machine keeps: with the spec's 500 ms, a served
	// answer read while the CPU is busy was cut off and taken for a
	// malformed one.
	s.Proxy.TimeoutMS = staleTimeoutMS
	return proxygen.Plugin(s)
}

// staleTimeoutMS is the stale plugin's wait for the service.
const staleTimeoutMS = 2000

// message sends one user message to a new session and waits for the
// answer; it returns the session ID and how long the turn took.
func message(t *testing.T, srv *opencodetest.Server, text string) (string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var sess struct {
		ID string `json:"id"`
	}
	post(ctx, t, srv.URL+"/session", map[string]string{"title": "proxy"}, &sess)
	began := time.Now()
	var answer struct {
		Info struct {
			Error json.RawMessage `json:"error"`
		} `json:"info"`
	}
	post(ctx, t, srv.URL+"/session/"+sess.ID+"/message", map[string]any{
		"model": map[string]string{"providerID": providerID, "modelID": modelID},
		"parts": []map[string]string{{"type": "text", "text": text}},
	}, &answer)
	took := time.Since(began)
	if len(answer.Info.Error) > 0 && string(answer.Info.Error) != "null" {
		t.Fatalf("the turn failed: %s", answer.Info.Error)
	}
	return sess.ID, took
}

func post(ctx context.Context, t *testing.T, url string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", url, resp.Status, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("POST %s: decoding %q: %v", url, data, err)
	}
}

// TestPromptProxyThroughOpenCode runs the real opencode serve with the
// generated plugin (from a stale revision of the spec) and the scripted
// model, against the generated Go service, both from the default spec with
// the example's settings: served answers reach the model;
// a malformed answer, a hanging service and a stopped one fall back to the
// plugin's local defaults within the timeout, and the chat goes on.
func TestPromptProxyThroughOpenCode(t *testing.T) {
	// Not parallel: it times the plugin's fallback against the wall clock,
	// which the package's CPU-bound tests would slow.
	plugin := stalePlugin(t)
	var turns []fakemodel.Turn
	for i := 0; i < 8; i++ {
		turns = append(turns, fakemodel.Turn{Name: fmt.Sprintf("answer %d", i+1), Reply: fakemodel.Say("Done.")})
	}
	fm := fakemodel.New(t, turns...)
	example := serveExample(t)
	target, err := url.Parse(example.URL)
	if err != nil {
		t.Fatal(err)
	}
	svc := &service{logs: example.logs, stop: make(chan struct{}), handler: httputil.NewSingleHostReverseProxy(target)}
	svc.behaviour.Store("serve")
	ts := httptest.NewServer(svc)
	defer func() {
		closeOnce(svc.stop)
		ts.Close()
	}()

	repo := t.TempDir()
	pluginDir := filepath.Join(repo, ".opencode", "plugin")
	if err := os.MkdirAll(pluginDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pluginDir, filepath.Base(opencodelayout.PluginFile)), plugin, 0o644); err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(map[string]string{"repoName": repoName})
	oc := opencodetest.Start(t, repo, opencodetest.Options{
		Config: fm.Config(fakemodel.ConfigOptions{ProviderID: providerID, ModelID: modelID}),
		Env:    []string{"AGENTC_PROMPT_PROXY_URL=" + ts.URL, "AGENTC_MODE=coding", "AGENTC_PROMPT_PARAMS=" + string(params)},
	})
	stale := loadEdited(t, map[string][2]string{
		exampleFile: {"coding:     temperature: 0.5", "coding:     temperature: 0.9"},
	})

	// lastRequest returns the model's request for the session's turn.
	lastRequest := func(t *testing.T) *fakemodel.Request {
		t.Helper()
		answered := fm.Answered()
		if len(answered) == 0 {
			t.Fatalf("the model was not asked: %s", fm)
		}
		return answered[len(answered)-1]
	}
	expectServed := func(t *testing.T, sessionID string) contract.PromptResponse {
		t.Helper()
		a := askExample(t, exampleQuery{Requests: []contract.PromptRequest{{
			SessionID: sessionID, Agent: "build",
			Metadata: contract.PromptMetadata{Mode: "coding", Model: providerID + "/" + modelID, Params: map[string]string{"repoName": repoName}},
		}}})
		if a.Errors[0] != "" {
			t.Fatal(a.Errors[0])
		}
		return a.Resolved[0]
	}
	checkLocal := func(t *testing.T, sessionID string) {
		t.Helper()
		r := lastRequest(t)
		sys := r.SystemText()
		if !strings.Contains(sys, "(local defaults)") || !strings.Contains(sys, repoName) {
			t.Errorf("the model's system prompt is not the plugin's local default:\n%s", sys)
		}
		want := localTemperature(stale, sessionID)
		if r.Messages.Temperature == nil || *r.Messages.Temperature != want {
			t.Errorf("temperature = %v, want the local default %v", ptrString(r.Messages.Temperature), want)
		}
	}

	t.Run("served", func(t *testing.T) {
		sid, took := message(t, oc, "Who are you?")
		t.Logf("turn with the service answering: %v", took)
		want := expectServed(t, sid)
		r := lastRequest(t)
		t.Logf("served: experiments %v, temperature %s; the model got temperature %s and a system prompt of %d bytes",
			want.Experiments, ptrString(want.Params.Temperature), ptrString(r.Messages.Temperature), len(r.SystemText()))
		if sys := r.SystemText(); !strings.HasSuffix(sys, want.System) || strings.Contains(sys, "(local defaults)") {
			t.Errorf("the model's system prompt does not end with the served one.\n got: %s\nwant suffix: %s", sys, want.System)
		}
		if r.Messages.Temperature == nil || want.Params.Temperature == nil || *r.Messages.Temperature != *want.Params.Temperature {
			t.Errorf("temperature = %v, want the served %v", ptrString(r.Messages.Temperature), ptrString(want.Params.Temperature))
		}
		// The service's log reaches us through its stderr, after its answer.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			logged := strings.Contains(svc.logs.String(), `"sessionID":"`+sid+`"`) && strings.Contains(svc.logs.String(), `"experimentID":"coding_focus=`)
			if logged {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the service did not log the request with sessionID and experimentID:\n%s", svc.logs.String())
				break
			}
		}
		// A second message of the session uses the cached answer.
		before := svc.requests.Load()
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		var out json.RawMessage
		post(ctx, t, oc.URL+"/session/"+sid+"/message", map[string]any{
			"model": map[string]string{"providerID": providerID, "modelID": modelID},
			"parts": []map[string]string{{"type": "text", "text": "And now?"}},
		}, &out)
		if n := svc.requests.Load() - before; n != 0 {
			t.Errorf("the second message of a session asked the service %d times; want the cached answer", n)
		}
		if r := lastRequest(t); r.Messages.Temperature == nil || *r.Messages.Temperature != *want.Params.Temperature {
			t.Errorf("second message: temperature = %v, want the cached %v", ptrString(r.Messages.Temperature), *want.Params.Temperature)
		}
	})

	t.Run("malformed", func(t *testing.T) {
		svc.behaviour.Store("malformed")
		sid, took := message(t, oc, "Who are you?")
		t.Logf("turn with a malformed answer: %v", took)
		checkLocal(t, sid)
		waitOutput(t, oc, "session "+sid+": using the local defaults", "malformed answer")
	})

	var hangTook time.Duration
	t.Run("timeout", func(t *testing.T) {
		svc.behaviour.Store("hang")
		sid, took := message(t, oc, "Who are you?")
		hangTook = took
		checkLocal(t, sid)
		line := waitOutput(t, oc, "session "+sid+": using the local defaults", "TimeoutError")
		ms := fallbackMillis(t, line)
		t.Logf("turn with a hanging service: %v; the plugin gave up after %d ms", took, ms)
		if ms < staleTimeoutMS-50 || ms > staleTimeoutMS+1000 {
			t.Errorf("the plugin waited %d ms for a hanging service; want about %d", ms, staleTimeoutMS)
		}
	})

	t.Run("stopped", func(t *testing.T) {
		closeOnce(svc.stop)
		ts.Close()
		sid, took := message(t, oc, "Who are you?")
		checkLocal(t, sid)
		line := waitOutput(t, oc, "session "+sid+": using the local defaults", "")
		ms := fallbackMillis(t, line)
		t.Logf("turn with the service stopped: %v; the plugin fell back after %d ms", took, ms)
		if ms > staleTimeoutMS+1000 {
			t.Errorf("falling back took %d ms with the service stopped", ms)
		}
		if hangTook > 0 && took > hangTook+5*time.Second {
			t.Errorf("a turn with the service stopped took %v", took)
		}
	})
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

var millis = regexp.MustCompile(`after (\d+) ms`)

func fallbackMillis(t *testing.T, line string) int {
	t.Helper()
	m := millis.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no duration in %q", line)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// waitOutput waits for a line of the server's output holding both strings.
func waitOutput(t *testing.T, oc *opencodetest.Server, a, b string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, line := range strings.Split(oc.Output(), "\n") {
			if strings.Contains(line, a) && strings.Contains(line, b) {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin logged no line with %q and %q; output:\n%s", a, b, oc.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func ptrString(f *float64) string {
	if f == nil {
		return "<nil>"
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}
