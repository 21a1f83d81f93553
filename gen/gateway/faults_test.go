package gateway_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/pgtest"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// The fault-injection suite: the route on SQLStore keeps its promises —
// each call executed at most once, every answer recorded, every retry
// answered the first answer, a caller answered within the store's
// WriteTimeout — while PostgreSQL restarts, its connections are killed, the
// network to it goes black, or an answer of it is lost, at each step of a
// call where that can land.

// proxiedStore returns a SQLStore whose connections go through a pgProxy
// (in the simple protocol, so that the proxy sees each statement's text),
// on a table created directly.
func proxiedStore(t *testing.T, srv *pgtest.Server, lease, writeTimeout time.Duration) (*agentrt.SQLStore, *pgProxy) {
	t.Helper()
	openStore(t, srv, lease)
	p := newPGProxy(t, fmt.Sprintf("%s:%d", srv.Host, srv.Port))
	dsn := strings.Replace(srv.DSN, fmt.Sprintf("%s:%d", srv.Host, srv.Port), p.addr(), 1) + "&default_query_exec_mode=simple_protocol"
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &agentrt.SQLStore{DB: db, Lease: lease, WriteTimeout: writeTimeout}, p
}

// tryPost is post for calls that may fail at the network level.
func tryPost(client *http.Client, url, token, body string) (response, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Body: b}
	if err == nil && res.StatusCode == http.StatusOK {
		err = json.Unmarshal(b, &out.Result)
	}
	return out, err
}

// callUntilAnswered posts a callback until it is answered 200, as a sandbox
// retries (the stub on network errors, the model on a 503), and returns
// the answer and how many 503s it met.
func callUntilAnswered(t testing.TB, client *http.Client, url, id string) (response, int) {
	var unavailable int
	deadline := time.Now().Add(90 * time.Second)
	for {
		r, err := tryPost(client, url, tokenFor(setupSession), body(id, snapshotArgs))
		if err == nil && r.Status == 200 {
			return r, unavailable
		}
		if err == nil && r.Status != http.StatusServiceUnavailable {
			t.Errorf("%s: %v", id, r)
			return r, unavailable
		}
		unavailable++
		if time.Now().After(deadline) {
			t.Errorf("%s: not answered within 90 s: %v %v", id, r, err)
			return r, unavailable
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitRecorded waits until no row of ids is running any more and returns
// the rows by tool_call_id.
func waitRecorded(t testing.TB, db *sql.DB, ids []string) map[string]invocation {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		rows := map[string]invocation{}
		running := 0
		for _, id := range ids {
			r := row(t, db, id)
			rows[id] = r
			if r.Status == agentrt.StatusRunning {
				running++
			}
		}
		if running == 0 || time.Now().After(deadline) {
			return rows
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkRecorded fails the test unless each id's row holds the answer its
// callers got, and each id executed exactly once.
func checkRecorded(t testing.TB, db *sql.DB, h *handler, answers map[string]response) {
	t.Helper()
	ids := make([]string, 0, len(answers))
	for id := range answers {
		ids = append(ids, id)
	}
	rows := waitRecorded(t, db, ids)
	unrecorded, double := 0, 0
	for id, a := range answers {
		if r := rows[id]; r.Result+"\n" != string(a.Body) {
			if unrecorded++; unrecorded <= 3 {
				t.Errorf("%s: answered %s but recorded %q (%s)", id, a.Body, r.Result, r.Status)
			}
		}
		if c := h.count(id); c != 1 {
			if double++; double <= 3 {
				t.Errorf("%s executed %d times", id, c)
			}
		}
	}
	if unrecorded+double > 0 {
		t.Errorf("%d of %d calls answered but not recorded, %d not executed exactly once", unrecorded, len(answers), double)
	}
}

// TestFaultRestartUnderLoad: PostgreSQL restarts (fast shutdown) twice
// during 200 calls, 20 in flight, each retried as soon as it is answered:
// every call executes once, every answer is recorded, every retry gets the
// first answer.
func TestFaultRestartUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const n, inFlight = 200, 20
	srv := pgtest.Start(t)
	store, db := openStore(t, srv, 20*time.Second)
	h := newHandler()
	var storeErrs atomic.Int64
	g := newGateway(t, h, gatewayOptions{store: store, quiet: true, observe: func(_ context.Context, ev agentrt.CallEvent) {
		if ev.StoreErr != nil {
			storeErrs.Add(1)
		}
	}})
	client := loopbackClient(inFlight)
	defer client.CloseIdleConnections()
	url := g.url(setupSession, "save_snapshot")

	var mu sync.Mutex
	answers := map[string]response{}
	var answered, unavailable, mismatched atomic.Int64
	ids := make(chan string)
	var wg sync.WaitGroup
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range ids {
				first, u1 := callUntilAnswered(t, client, url, id)
				again, u2 := callUntilAnswered(t, client, url, id)
				unavailable.Add(int64(u1 + u2))
				if string(again.Body) != string(first.Body) || again.Header.Get(agentrt.ReplayHeader) != "true" {
					if mismatched.Add(1) <= 3 {
						t.Errorf("%s: the retry got %v, the first call %v", id, again, first)
					}
				}
				mu.Lock()
				answers[id] = first
				mu.Unlock()
				answered.Add(1)
			}
		}()
	}
	go func() {
		for i := range n {
			ids <- fmt.Sprintf("restart-load-%03d", i)
		}
		close(ids)
	}()
	restarts := 0
	for _, at := range []int64{40, 120} {
		for answered.Load() < at && restarts < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		srv.Restart(t)
		restarts++
	}
	wg.Wait()
	if len(answers) != n || !t.Failed() && mismatched.Load() != 0 {
		t.Fatalf("%d answers, %d retries with another answer", len(answers), mismatched.Load())
	}
	checkRecorded(t, db, h, answers)
	if h.total.Load() != n {
		t.Errorf("%d executions, want %d", h.total.Load(), n)
	}
	// A second gateway (a fresh pool) answers every call from the table.
	store2, _ := openStore(t, srv, 0)
	h2 := newHandler()
	g2 := newGateway(t, h2, gatewayOptions{store: store2, quiet: true})
	for id, a := range answers {
		if r := post(t, g2.srv.Client(), g2.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body(id, snapshotArgs)); string(r.Body) != string(a.Body) {
			t.Fatalf("%s from the second gateway: %v, want %v", id, r, a)
		}
	}
	if h2.total.Load() != 0 {
		t.Errorf("the second gateway executed %d calls", h2.total.Load())
	}
	if storeErrs.Load() == 0 {
		t.Errorf("no call met a store error: the restarts did not land on calls in flight")
	}
	t.Logf("MEASURE %d calls (%d in flight, each retried once) across %d PostgreSQL restarts: %d requests met store errors (retried in the store), %d answered 503 and retried, 0 lost", n, inFlight, restarts, storeErrs.Load(), unavailable.Load())
}

// terminateBackends kills every other connection to the database.
func terminateBackends(t testing.TB, admin *sql.DB) int {
	t.Helper()
	var n int
	err := admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFaultTerminatedConnections: the store's connections are killed
// (pg_terminate_backend) while idle before a claim, between the claim and
// the recording of the result, and while the call executes; each call is
// recorded and answered once all the same.
func TestFaultTerminatedConnections(t *testing.T) {
	srv := pgtest.Start(t)
	store, db := openStore(t, srv, 10*time.Second)
	_, admin := openStore(t, srv, 0)
	admin.SetMaxOpenConns(1)
	ctx := context.Background()
	res := contract.Result{Success: true, Result: "done"}
	for _, step := range []string{"before the claim", "between the claim and complete"} {
		id := "kill-" + strings.ReplaceAll(step, " ", "-")
		inv := agentrt.Invocation{SessionID: setupSession, OrganizationID: orgID, Tool: "save_snapshot", ToolCallID: id, RequestHash: "h"}
		if err := db.Ping(); err != nil {
			t.Fatal(err)
		}
		if step == "before the claim" && terminateBackends(t, admin) == 0 {
			t.Fatal("no connection to kill")
		}
		if _, done, err := store.Claim(ctx, inv); err != nil || done {
			t.Fatalf("%s: claim: done %v, %v", step, done, err)
		}
		if step == "between the claim and complete" && terminateBackends(t, admin) == 0 {
			t.Fatal("no connection to kill")
		}
		if err := store.Complete(ctx, inv, res); err != nil {
			t.Errorf("%s: complete: %v", step, err)
		}
		if r := row(t, db, id); r.Status != agentrt.StatusCompleted || r.Result != `{"success":true,"result":"done"}` {
			t.Errorf("%s: row %+v", step, r)
		}
		if got, done, err := store.Claim(ctx, inv); err != nil || !done || got.Result != "done" {
			t.Errorf("%s: the retry: %v %v %v", step, got, done, err)
		}
	}

	h := newHandler()
	h.gate, h.started = make(chan struct{}), make(chan string, 1)
	g := newGateway(t, h, gatewayOptions{store: store})
	answer := make(chan response, 1)
	go func() {
		answer <- post(t, g.srv.Client(), g.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("kill-during", snapshotArgs))
	}()
	<-h.started
	terminateBackends(t, admin)
	close(h.gate)
	a := <-answer
	checkRecorded(t, db, h, map[string]response{"kill-during": a})
}

// TestFaultBlackhole: the network to PostgreSQL goes black (packets held,
// nothing answered). A call executing then is answered within the
// store's WriteTimeout, its result recorded once the network heals, and its
// retries — on this gateway and on another — get that answer; a call
// arriving then is answered 503 within WriteTimeout, and its retry after
// the heal executes it once.
func TestFaultBlackhole(t *testing.T) {
	const writeTimeout = time.Second
	srv := pgtest.Start(t)

	t.Run("during execution", func(t *testing.T) {
		store, proxy := proxiedStore(t, srv, 30*time.Second, writeTimeout)
		storeB, db := openStore(t, srv, 30*time.Second)
		var events []agentrt.CallEvent
		var mu sync.Mutex
		h := newHandler()
		h.gate, h.started = make(chan struct{}), make(chan string, 1)
		a := newGateway(t, h, gatewayOptions{store: store, observe: func(_ context.Context, ev agentrt.CallEvent) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}})
		hB := newHandler()
		b := newGateway(t, hB, gatewayOptions{store: storeB})
		url := a.url(setupSession, "save_snapshot")
		answer := make(chan response, 1)
		go func() {
			answer <- post(t, a.srv.Client(), url, tokenFor(setupSession), "", body("hole-exec", snapshotArgs))
		}()
		<-h.started
		proxy.Blackhole()
		// A store that waited for the database would hold the answer until
		// the heal: heal late rather than never.
		late := time.AfterFunc(20*time.Second, proxy.Heal)
		defer late.Stop()
		began := time.Now()
		close(h.gate)
		first := <-answer
		waited := time.Since(began)
		if first.Status != 200 || !first.Result.Success {
			t.Fatalf("answer: %v", first)
		}
		// Generous for a loaded machine, yet far below the unbounded wait
		// of a write without a deadline (the network heals only later).
		if waited > writeTimeout+5*time.Second {
			t.Errorf("the answer took %v with a write deadline of %v", waited, writeTimeout)
		}
		if again := post(t, a.srv.Client(), url, tokenFor(setupSession), "", body("hole-exec", snapshotArgs)); string(again.Body) != string(first.Body) {
			t.Errorf("the retry on the same gateway during the blackhole: %v, want %v", again, first)
		}
		other := make(chan response, 1)
		go func() {
			other <- post(t, b.srv.Client(), b.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("hole-exec", snapshotArgs))
		}()
		time.Sleep(500 * time.Millisecond) // the other gateway's retry polls the running row
		if r := row(t, db, "hole-exec"); r.Status != agentrt.StatusRunning {
			t.Errorf("during the blackhole the row is %s, want running", r.Status)
		}
		proxy.Heal()
		if o := <-other; string(o.Body) != string(first.Body) {
			t.Errorf("the retry on another gateway: %v, want %v", o, first)
		}
		checkRecorded(t, db, h, map[string]response{"hole-exec": first})
		if hB.total.Load() != 0 {
			t.Errorf("the other gateway executed the call")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(events) != 2 || events[0].Outcome != "executed" || events[0].StoreErr == nil || events[0].StoreAttempts < 2 ||
			events[1].Outcome != "replayed" || !events[1].Replay {
			t.Errorf("events %+v, want an execution with a store error after retries and a replay", events)
		}
		t.Logf("MEASURE blackholed database during execution: answered after %v (WriteTimeout %v), %d store attempts", waited, writeTimeout, events[0].StoreAttempts)
	})

	t.Run("at the claim", func(t *testing.T) {
		store, proxy := proxiedStore(t, srv, 30*time.Second, writeTimeout)
		_, db := openStore(t, srv, 0)
		h := newHandler()
		g := newGateway(t, h, gatewayOptions{store: store})
		url := g.url(setupSession, "save_snapshot")
		if err := store.DB.Ping(); err != nil {
			t.Fatal(err)
		}
		proxy.Blackhole()
		late := time.AfterFunc(20*time.Second, proxy.Heal)
		defer late.Stop()
		began := time.Now()
		r := post(t, g.srv.Client(), url, tokenFor(setupSession), "", body("hole-claim", snapshotArgs))
		waited := time.Since(began)
		if r.Status != http.StatusServiceUnavailable {
			t.Errorf("during the blackhole: %v, want 503", r)
		}
		if waited > writeTimeout+5*time.Second {
			t.Errorf("the 503 took %v with a write deadline of %v", waited, writeTimeout)
		}
		proxy.Heal()
		again, _ := callUntilAnswered(t, g.srv.Client(), url, "hole-claim")
		if again.Status != 200 || !again.Result.Success {
			t.Errorf("after the heal: %v", again)
		}
		checkRecorded(t, db, h, map[string]response{"hole-claim": again})
		t.Logf("MEASURE blackholed database at the claim: 503 after %v (WriteTimeout %v)", waited, writeTimeout)
	})
}

// TestFaultLostAnswer: PostgreSQL runs a statement of the store but its
// answer never reaches the gateway (the connection drops right after) — at
// the claim's insert, at the recording of the result, at a lease renewal —
// and, at the claim, also with the database then unreachable until the
// claim gives up: no call is told "interrupted" for an execution that never
// happened, each executes once and is recorded.
func TestFaultLostAnswer(t *testing.T) {
	const lease, writeTimeout = 600 * time.Millisecond, time.Second
	srv := pgtest.Start(t)
	steps := []struct {
		name      string
		statement []string
	}{
		{"claim", []string{"INSERT INTO session_tool_invocations"}},
		{"record", []string{"UPDATE session_tool_invocations", "'completed'"}},
		{"renewal", []string{"SET lease_until = now() +"}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			store, proxy := proxiedStore(t, srv, lease, writeTimeout)
			_, db := openStore(t, srv, 0)
			h := newHandler()
			if step.name == "renewal" {
				// The call runs over a renewal.
				h.gate, h.started = make(chan struct{}), make(chan string, 1)
				go func() { <-h.started; time.Sleep(2 * lease); close(h.gate) }()
			}
			g := newGateway(t, h, gatewayOptions{store: store})
			url := g.url(setupSession, "save_snapshot")
			id := "lost-" + step.name
			proxy.DropAnswer(step.statement...)
			first := post(t, g.srv.Client(), url, tokenFor(setupSession), "", body(id, snapshotArgs))
			if first.Status != 200 || !first.Result.Success || first.Result.Result != "Snapshot saved for call "+id {
				t.Errorf("answer: %v", first)
			}
			if proxy.dropped.Load() != 1 {
				t.Fatalf("%d answers dropped, want 1", proxy.dropped.Load())
			}
			if again := post(t, g.srv.Client(), url, tokenFor(setupSession), "", body(id, snapshotArgs)); string(again.Body) != string(first.Body) {
				t.Errorf("the retry: %v, want %v", again, first)
			}
			checkRecorded(t, db, h, map[string]response{id: first})
		})
	}

	// The claim's answer is lost and the database stays unreachable until
	// the claim gives up (503); the retry comes after the heal, to the
	// same gateway or to another one.
	for _, where := range []string{"same gateway", "other gateway"} {
		t.Run("claim, then unreachable, retry on the "+where, func(t *testing.T) {
			store, proxy := proxiedStore(t, srv, 30*time.Second, writeTimeout)
			storeB, db := openStore(t, srv, 30*time.Second)
			h, hB := newHandler(), newHandler()
			a := newGateway(t, h, gatewayOptions{store: store})
			b := newGateway(t, hB, gatewayOptions{store: storeB})
			id := "lost-then-hole-" + strings.ReplaceAll(where, " ", "-")
			proxy.holeAfterDrop.Store(true)
			proxy.DropAnswer("INSERT INTO session_tool_invocations")
			first := post(t, a.srv.Client(), a.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body(id, snapshotArgs))
			if first.Status != http.StatusServiceUnavailable || proxy.dropped.Load() != 1 {
				t.Fatalf("the call whose claim's answer was lost: %v (dropped %d), want 503", first, proxy.dropped.Load())
			}
			if r := row(t, db, id); r.Status != agentrt.StatusRunning {
				t.Fatalf("the claim's row: %+v, want running", r)
			}
			proxy.holeAfterDrop.Store(false)
			proxy.Heal()
			g := map[string]*gateway{"same gateway": a, "other gateway": b}[where]
			again, _ := callUntilAnswered(t, g.srv.Client(), g.url(setupSession, "save_snapshot"), id)
			if again.Status != 200 || !again.Result.Success || again.Result.Result != "Snapshot saved for call "+id {
				t.Errorf("the retry: %v, want the call executed", again)
			}
			both := newHandler()
			both.calls[id] = h.count(id) + hB.count(id)
			checkRecorded(t, db, both, map[string]response{id: again})
		})
	}
}

// TestFaultPausedExecutor: a call executes for 3× the lease on one gateway
// while its retry reaches another: the lease is renewed, so the retry waits
// and both callers get the one execution's answer.
func TestFaultPausedExecutor(t *testing.T) {
	const lease = 500 * time.Millisecond
	srv := pgtest.Start(t)
	storeA, db := openStore(t, srv, lease)
	storeB, _ := openStore(t, srv, lease)
	hA, hB := newHandler(), newHandler()
	hA.gate, hA.started = make(chan struct{}), make(chan string, 1)
	a := newGateway(t, hA, gatewayOptions{store: storeA})
	b := newGateway(t, hB, gatewayOptions{store: storeB})
	first := make(chan response, 1)
	go func() {
		first <- post(t, a.srv.Client(), a.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("paused", snapshotArgs))
	}()
	<-hA.started
	retry := make(chan response, 1)
	go func() {
		retry <- post(t, b.srv.Client(), b.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("paused", snapshotArgs))
	}()
	time.Sleep(3 * lease)
	close(hA.gate)
	f, r := <-first, <-retry
	if f.Status != 200 || !f.Result.Success || string(r.Body) != string(f.Body) {
		t.Errorf("the executing gateway answered %v, the retry on the other %v", f, r)
	}
	if hA.total.Load() != 1 || hB.total.Load() != 0 {
		t.Errorf("executions: %d and %d, want 1 and 0", hA.total.Load(), hB.total.Load())
	}
	checkRecorded(t, db, hA, map[string]response{"paused": f})
}
