package gateway_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/mcpgen/agentmcp"
)

// BenchmarkMCP measures, in one run, the throughput of the MCP route
// (contractmcp.Server: auth, session lookup, the SDK's stateless Streamable
// HTTP transport and JSON-RPC, Store, Dispatch with validation, handler)
// and of the callback route beside it on the same mux, with the same
// handler and store: 8 concurrent clients over loopback, distinct
// tool_call_ids (in _meta for MCP), alternating in rounds. It reports
// mcp/callback-throughput (1 = as fast as the callback route). The MCP
// requests are raw JSON-RPC tools/call POSTs, as a stateless client sends
// them, so that the number is the server's, not a client library's.
func BenchmarkMCP(b *testing.B) {
	const clients = 8
	g := newBothGateway(b, newHandler(), nil)
	client := loopbackClient(clients)
	defer client.CloseIdleConnections()
	callback := func(id string) *http.Request {
		req, _ := http.NewRequest("POST", g.callbackURL(setupSession, "save_snapshot"), bytes.NewReader([]byte(body(id, snapshotArgs))))
		req.Header.Set("Authorization", "Bearer "+tokenFor(setupSession))
		return req
	}
	viaMCP := func(id string) *http.Request {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save_snapshot","arguments":%s,"_meta":{%q:%q}}}`,
			snapshotArgs, agentmcp.ToolCallIDMeta, id)
		req, _ := http.NewRequest("POST", g.srv.URL+agentmcp.Path, bytes.NewReader([]byte(msg)))
		req.Header.Set("Authorization", "Bearer "+tokenFor(setupSession))
		req.Header.Set(agentmcp.SessionHeader, setupSession)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		return req
	}
	// Each answer is checked: a 200 with the call's result.
	run := func(newReq func(string) *http.Request, prefix string, n int) time.Duration {
		var next atomic.Int64
		var wg sync.WaitGroup
		began := time.Now()
		for range clients {
			wg.Go(func() {
				for i := next.Add(1); i <= int64(n); i = next.Add(1) {
					id := fmt.Sprintf("%s-%d", prefix, i)
					res, err := client.Do(newReq(id))
					if err != nil {
						b.Error(err)
						return
					}
					out, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != 200 || !bytes.Contains(out, []byte("Snapshot saved for call "+id)) {
						b.Errorf("%d %s", res.StatusCode, out)
						return
					}
				}
			})
		}
		wg.Wait()
		return time.Since(began)
	}
	b.ResetTimer()
	cbTime, mcpTime := alternate(b.N,
		func(prefix string, n int) time.Duration { return run(callback, "cb-"+prefix, n) },
		func(prefix string, n int) time.Duration { return run(viaMCP, "mcp-"+prefix, n) })
	b.StopTimer()
	b.ReportMetric(float64(cbTime.Nanoseconds())/float64(b.N), "callback-ns/call")
	b.ReportMetric(float64(mcpTime.Nanoseconds())/float64(b.N), "mcp-ns/call")
	b.ReportMetric(float64(b.N)/mcpTime.Seconds(), "mcp-calls/s")
	b.ReportMetric(cbTime.Seconds()/mcpTime.Seconds(), "mcp/callback-throughput")
}

// alternate runs n calls of two peers in 16 short rounds, alternating
// which goes first, so that a burst of load from other processes on the
// machine affects both alike; each run gets a fresh id prefix and its
// share of n. It returns each peer's total time.
func alternate(n int, a, b func(prefix string, n int) time.Duration) (ta, tb time.Duration) {
	const rounds = 16
	for r := range rounds {
		k := n / rounds
		if r == rounds-1 {
			k = n - (rounds-1)*(n/rounds)
		}
		prefix := fmt.Sprintf("r%d-%d", r, time.Now().UnixNano())
		if r%2 == 0 {
			ta += a(prefix, k)
			tb += b(prefix, k)
		} else {
			tb += b(prefix, k)
			ta += a(prefix, k)
		}
	}
	return ta, tb
}
