package gateway_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/pgtest"
)

// openStore opens a fresh *sql.DB on the server (as a starting gateway
// does), creates the table and returns a SQLStore on it.
func openStore(t testing.TB, srv *pgtest.Server, lease time.Duration) (*agentrt.SQLStore, *sql.DB) {
	t.Helper()
	db, err := sql.Open("pgx", srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := &agentrt.SQLStore{DB: db, Lease: lease}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	return store, db
}

// invocation is a row of session_tool_invocations.
type invocation struct {
	ID, SessionID, OrganizationID, ToolName, ToolCallID, Status, Result string
	CreatedAt                                                           time.Time
}

func row(t testing.TB, db *sql.DB, toolCallID string) invocation {
	t.Helper()
	var r invocation
	var result sql.NullString
	err := db.QueryRow(`SELECT id::text, session_id, organization_id, tool_name, tool_call_id, status, result, created_at
		FROM session_tool_invocations WHERE tool_call_id = $1`, toolCallID).
		Scan(&r.ID, &r.SessionID, &r.OrganizationID, &r.ToolName, &r.ToolCallID, &r.Status, &result, &r.CreatedAt)
	if err != nil {
		t.Fatalf("row %s: %v", toolCallID, err)
	}
	r.Result = result.String
	return r
}

// TestSQLStoreAcrossRestart: a completed call survives a restart of the
// gateway and of PostgreSQL; its retry is answered from the table without
// executing again, and the table is the seed's audit trail.
func TestSQLStoreAcrossRestart(t *testing.T) {
	srv := pgtest.Start(t)
	storeA, dbA := openStore(t, srv, 0)
	hA := newHandler()
	a := newGateway(t, hA, gatewayOptions{store: storeA})
	url := a.url(setupSession, "save_snapshot")
	first := post(t, a.srv.Client(), url, tokenFor(setupSession), "", body("restart-1", snapshotArgs))
	invalid := post(t, a.srv.Client(), a.url(setupSession, "save_service_commands"), tokenFor(setupSession), "", body("restart-2", `{"commands":[]}`))
	if first.Status != 200 || !first.Result.Success || invalid.Status != 200 || invalid.Result.Success {
		t.Fatalf("first calls: %v; %v", first, invalid)
	}
	r := row(t, dbA, "restart-1")
	if r.SessionID != setupSession || r.OrganizationID != orgID || r.ToolName != "save_snapshot" || r.Status != agentrt.StatusCompleted ||
		len(r.ID) != 36 || time.Since(r.CreatedAt) > time.Minute || r.Result+"\n" != string(first.Body) {
		t.Errorf("row %+v", r)
	}
	if r := row(t, dbA, "restart-2"); r.Status != agentrt.StatusFailed || r.ToolName != "save_service_commands" {
		t.Errorf("row of the invalid call: %+v", r)
	}

	// The gateway stops, PostgreSQL restarts, a new gateway starts.
	a.srv.Close()
	dbA.Close()
	srv.Restart(t)
	storeB, _ := openStore(t, srv, 0)
	hB := newHandler()
	b := newGateway(t, hB, gatewayOptions{store: storeB})
	url = b.url(setupSession, "save_snapshot")
	again := post(t, b.srv.Client(), url, tokenFor(setupSession), "", body("restart-1", snapshotArgs))
	if string(again.Body) != string(first.Body) || again.Header.Get(agentrt.ReplayHeader) != "true" {
		t.Errorf("after the restart: %v, want the stored %v", again, first)
	}
	if again := post(t, b.srv.Client(), b.url(setupSession, "save_service_commands"), tokenFor(setupSession), "", body("restart-2", `{"commands":[]}`)); string(again.Body) != string(invalid.Body) {
		t.Errorf("the failed call after the restart: %v, want %v", again, invalid)
	}
	if conflict := post(t, b.srv.Client(), url, tokenFor(setupSession), "", body("restart-1", `{"message":"other"}`)); conflict.Status != 409 {
		t.Errorf("the id reused with other arguments after the restart: %v", conflict)
	}
	if hA.total.Load() != 1 || hB.total.Load() != 0 {
		t.Errorf("executions: before the restart %d, after %d; want 1 and 0", hA.total.Load(), hB.total.Load())
	}
}

// TestSQLStoreTwoGateways: while one gateway executes a call, its retry
// reaching a second gateway waits for it and gets its result.
func TestSQLStoreTwoGateways(t *testing.T) {
	srv := pgtest.Start(t)
	storeA, _ := openStore(t, srv, 0)
	storeB, _ := openStore(t, srv, 0)
	hA, hB := newHandler(), newHandler()
	hA.gate, hA.started = make(chan struct{}), make(chan string, 1)
	a := newGateway(t, hA, gatewayOptions{store: storeA})
	b := newGateway(t, hB, gatewayOptions{store: storeB})

	var wg sync.WaitGroup
	results := make([]response, 21)
	wg.Add(1)
	go func() {
		defer wg.Done()
		results[0] = post(t, a.srv.Client(), a.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("two-1", snapshotArgs))
	}()
	<-hA.started
	for i := 1; i < len(results); i++ {
		g := []*gateway{a, b}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = post(t, g.srv.Client(), g.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("two-1", snapshotArgs))
		}()
	}
	time.Sleep(300 * time.Millisecond) // the retries poll or wait
	close(hA.gate)
	wg.Wait()
	for i, r := range results {
		if r.Status != 200 || r.Result.Result != "Snapshot saved for call two-1" || string(r.Body) != string(results[0].Body) {
			t.Errorf("answer %d: %v", i, r)
		}
	}
	if hA.total.Load() != 1 || hB.total.Load() != 0 {
		t.Errorf("executions: gateway A %d, gateway B %d; want 1 and 0", hA.total.Load(), hB.total.Load())
	}
}

// TestSQLStoreInterrupted: a gateway dies while executing a call (its
// database connections go, PostgreSQL restarts, its lease runs out). The
// retry on another gateway does not execute the call again: it is answered
// that the outcome is unknown, and so is every later retry.
func TestSQLStoreInterrupted(t *testing.T) {
	const lease = time.Second
	srv := pgtest.Start(t)
	storeA, dbA := openStore(t, srv, lease)
	hA := newHandler()
	hA.gate, hA.started = make(chan struct{}), make(chan string, 1)
	a := newGateway(t, hA, gatewayOptions{store: storeA})
	done := make(chan response, 1)
	go func() {
		done <- post(t, a.srv.Client(), a.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("cut-1", snapshotArgs))
	}()
	<-hA.started
	// Gateway A dies: it can no longer reach the database.
	dbA.Close()
	srv.Restart(t)

	storeB, dbB := openStore(t, srv, lease)
	hB := newHandler()
	b := newGateway(t, hB, gatewayOptions{store: storeB})
	began := time.Now()
	retry := post(t, b.srv.Client(), b.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("cut-1", snapshotArgs))
	waited := time.Since(began)
	want := "save_snapshot was interrupted: the gateway executing it stopped before it finished, so whether it took effect is unknown. Check its effect before calling it again."
	if retry.Status != 200 || retry.Result.Success || retry.Result.Result != want {
		t.Errorf("retry: %v, want the interrupted answer", retry)
	}
	if waited > 10*lease {
		t.Errorf("the retry waited %v for a lease of %v", waited, lease)
	}
	t.Logf("MEASURE the retry of an interrupted call waited %v (lease %v)", waited, lease)
	if r := row(t, dbB, "cut-1"); r.Status != agentrt.StatusInterrupted {
		t.Errorf("row %+v", r)
	}
	// Gateway A's execution finishes after all: its own caller gets its
	// result, the record stays "interrupted", and nothing runs again.
	close(hA.gate)
	if r := <-done; !r.Result.Success {
		t.Errorf("gateway A's answer: %v", r)
	}
	later := post(t, b.srv.Client(), b.url(setupSession, "save_snapshot"), tokenFor(setupSession), "", body("cut-1", snapshotArgs))
	if later.Result.Result != want || !strings.Contains(later.Header.Get(agentrt.ReplayHeader), "true") {
		t.Errorf("a later retry: %v", later)
	}
	if hA.total.Load() != 1 || hB.total.Load() != 0 {
		t.Errorf("executions: gateway A %d, gateway B %d; want 1 and 0", hA.total.Load(), hB.total.Load())
	}
}
