package gateway_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/pgtest"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// TestLoadOneID: 1000 concurrent calls with one tool_call_id, over
// loopback, execute once and all get that execution's answer — with the
// in-memory store and with the durable one.
func TestLoadOneID(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	t.Run("memory", func(t *testing.T) { loadOneID(t, nil) })
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		store, _ := openStore(t, srv, 0)
		loadOneID(t, store)
	})
}

func loadOneID(t *testing.T, store agentrt.Store) {
	const n = 1000
	h := newHandler()
	// The first execution is held until every call has been sent, so all
	// of them are in flight at the gateway together.
	h.gate = make(chan struct{})
	var arrived atomic.Int64
	g := newGateway(t, h, gatewayOptions{store: store, quiet: true, arrivals: &arrived})
	client := loopbackClient(n)
	defer client.CloseIdleConnections()
	url := g.url(setupSession, "save_snapshot")

	var sent sync.WaitGroup
	var wg sync.WaitGroup
	results := make([]response, n)
	began := time.Now()
	for i := range n {
		sent.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent.Done()
			results[i] = post(t, client, url, tokenFor(setupSession), "", body("same-id", snapshotArgs))
		}()
	}
	sent.Wait()
	for deadline := time.Now().Add(30 * time.Second); arrived.Load() < n && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if arrived.Load() != n {
		t.Errorf("only %d of %d calls reached the gateway while the first one executed", arrived.Load(), n)
	}
	time.Sleep(50 * time.Millisecond) // and reached the store
	close(h.gate)
	wg.Wait()
	elapsed := time.Since(began)
	replays := 0
	for i, r := range results {
		if r.Status != 200 || r.Result.Result != "Snapshot saved for call same-id" || string(r.Body) != string(results[0].Body) {
			t.Fatalf("answer %d: %v", i, r)
		}
		if r.Header.Get(agentrt.ReplayHeader) == "true" {
			replays++
		}
	}
	if got := h.total.Load(); got != 1 {
		t.Errorf("%d concurrent calls with one tool_call_id executed %d times, want once", n, got)
	}
	if replays != n-1 {
		t.Errorf("%d replays, want %d", replays, n-1)
	}
	t.Logf("MEASURE %d concurrent calls, one tool_call_id: executed %d time(s), %d replays, %v (all in flight together)", n, h.total.Load(), replays, elapsed)
}

// TestLoadDistinct: 10,000 distinct calls over loopback, 64 at a time, lose
// nothing: each executes exactly once and gets its own answer.
func TestLoadDistinct(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const n, workers = 10000, 64
	h := newHandler()
	store := contract.NewMemoryStore()
	g := newGateway(t, h, gatewayOptions{store: store, quiet: true})
	client := loopbackClient(workers)
	defer client.CloseIdleConnections()
	url := g.url(setupSession, "save_snapshot")

	ids := make(chan int)
	var bad atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ids {
				id := fmt.Sprintf("call-%05d", i)
				r := post(t, client, url, tokenFor(setupSession), "", body(id, fmt.Sprintf(`{"message":"m%d"}`, i)))
				if r.Status != 200 || !r.Result.Success || r.Result.Result != "Snapshot saved for call "+id {
					if bad.Add(1) <= 5 {
						t.Errorf("%s: %v", id, r)
					}
				}
			}
		}()
	}
	for i := range n {
		ids <- i
	}
	close(ids)
	wg.Wait()
	elapsed := time.Since(began)
	if bad.Load() != 0 {
		t.Errorf("%d of %d calls got a wrong answer", bad.Load(), n)
	}
	if got := h.total.Load(); got != n {
		t.Errorf("%d executions, want %d", got, n)
	}
	for i := range n {
		if c := h.count(fmt.Sprintf("call-%05d", i)); c != 1 {
			t.Fatalf("call-%05d executed %d times", i, c)
		}
	}
	// The store keeps every result: a claim of each call gets it back.
	for i := range n {
		id := fmt.Sprintf("call-%05d", i)
		hash, _ := agentrt.RequestHash("save_snapshot", []byte(fmt.Sprintf(`{"message":"m%d"}`, i)))
		inv := agentrt.Invocation{SessionID: setupSession, Tool: "save_snapshot", ToolCallID: id, RequestHash: hash}
		if res, done, err := store.Claim(context.Background(), inv); !done || err != nil || res.Result != "Snapshot saved for call "+id {
			t.Fatalf("%s: the store holds %+v, %v, %v; want its result", id, res, done, err)
		}
	}
	t.Logf("MEASURE %d distinct calls, %d concurrent: %v, %.0f calls/s", n, workers, elapsed, float64(n)/elapsed.Seconds())
}

// bareHandler is the baseline of BenchmarkRoute/memory: a plain net/http
// handler that reads and decodes the same body and answers a fixed result.
func bareHandler(w http.ResponseWriter, r *http.Request) {
	if id, ok := bareToolCallID(w, r); ok {
		bareAnswer(w, id)
	}
}

// bareToolCallID reads and decodes the body of a bare handler's request and
// returns its tool_call_id, or answers 400 and returns false.
func bareToolCallID(w http.ResponseWriter, r *http.Request) (string, bool) {
	var req struct {
		ToolCallID string          `json:"tool_call_id"`
		Args       json.RawMessage `json:"args"`
	}
	b, _ := io.ReadAll(r.Body)
	if json.Unmarshal(b, &req) != nil || req.ToolCallID == "" {
		http.Error(w, "bad", http.StatusBadRequest)
		return "", false
	}
	return req.ToolCallID, true
}

// bareResult is the fixed result a bare handler answers for call id.
func bareResult(id string) string {
	return `{"success":true,"result":"Snapshot saved for call ` + id + `"}`
}

// bareAnswer answers the fixed result for call id.
func bareAnswer(w http.ResponseWriter, id string) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(bareResult(id) + "\n"))
}

// bareSQLHandler is the baseline of BenchmarkRoute/postgres: bareHandler
// plus the least the exactly-once guarantee needs of the database, on the
// same table — one INSERT … ON CONFLICT to claim the call and one UPDATE to
// record its result.
func bareSQLHandler(db *sql.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := bareToolCallID(w, r)
		if !ok {
			return
		}
		if _, err := db.ExecContext(r.Context(), `INSERT INTO session_tool_invocations
	(id, session_id, organization_id, tool_name, tool_call_id, request_hash, status)
	VALUES (gen_random_uuid(), $1, $2, 'save_snapshot', $3, 'h', 'running')
	ON CONFLICT (session_id, tool_call_id) DO NOTHING`, "bare", orgID, id); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if _, err := db.ExecContext(r.Context(), `UPDATE session_tool_invocations SET status = 'completed', result = $3, updated_at = now()
	WHERE session_id = $1 AND tool_call_id = $2`, "bare", id, bareResult(id)); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		bareAnswer(w, id)
	}
}

// BenchmarkRoute measures, in one run, the throughput of the generated
// route (auth, body checks, session lookup, idempotency store, Dispatch
// with validation, handler, JSON answer, a log record to a discarding
// logger) against a bare net/http handler, both over loopback with 8
// concurrent clients and distinct tool_call_ids, alternating in rounds,
// and reports their ratio (route/bare-throughput: 1 = as fast as the bare
// handler). memory: the route on MemoryStore against bareHandler.
// postgres: the route on SQLStore against bareSQLHandler, which does the
// two statements the guarantee needs on the same table, each with its own
// pool of the same size.
func BenchmarkRoute(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		g := newGateway(b, newHandler(), gatewayOptions{quiet: true})
		bare := httptest.NewServer(http.HandlerFunc(bareHandler))
		defer bare.Close()
		compareThroughput(b, g.url(setupSession, "save_snapshot"), bare.URL+"/proliferate/s/tools/save_snapshot")
	})
	srv := pgtest.Start(b)
	pool := func() *sql.DB {
		_, db := openStore(b, srv, 0)
		db.SetMaxOpenConns(benchClients)
		db.SetMaxIdleConns(benchClients)
		return db
	}
	storeDB, bareDB := pool(), pool()
	b.Run("postgres", func(b *testing.B) {
		g := newGateway(b, newHandler(), gatewayOptions{store: agentrt.NewSQLStore(storeDB), quiet: true})
		bare := httptest.NewServer(bareSQLHandler(bareDB))
		defer bare.Close()
		compareThroughput(b, g.url(setupSession, "save_snapshot"), bare.URL+"/proliferate/s/tools/save_snapshot")
	})
}

// benchClients is the number of concurrent clients of BenchmarkRoute.
const benchClients = 8

// compareThroughput runs b.N calls against routeURL and against bareURL,
// alternating in rounds, and reports their throughputs and ratio.
func compareThroughput(b *testing.B, routeURL, bareURL string) {
	run := func(url, prefix string, n int) time.Duration {
		client := loopbackClient(benchClients)
		defer client.CloseIdleConnections()
		var next atomic.Int64
		var wg sync.WaitGroup
		began := time.Now()
		for range benchClients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1)
					if i > int64(n) {
						return
					}
					req, _ := http.NewRequest("POST", url, strings.NewReader(body(fmt.Sprintf("%s-%d", prefix, i), snapshotArgs)))
					req.Header.Set("Authorization", "Bearer "+tokenFor(setupSession))
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						b.Errorf("status %d", res.StatusCode)
						return
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(began)
	}
	b.ResetTimer()
	bareTime, routeTime := alternate(b.N,
		func(prefix string, n int) time.Duration { return run(bareURL, prefix, n) },
		func(prefix string, n int) time.Duration { return run(routeURL, prefix, n) })
	b.StopTimer()
	b.ReportMetric(float64(bareTime.Nanoseconds())/float64(b.N), "bare-ns/call")
	b.ReportMetric(float64(routeTime.Nanoseconds())/float64(b.N), "route-ns/call")
	b.ReportMetric(float64(b.N)/routeTime.Seconds(), "route-calls/s")
	b.ReportMetric(bareTime.Seconds()/routeTime.Seconds(), "route/bare-throughput")
}
