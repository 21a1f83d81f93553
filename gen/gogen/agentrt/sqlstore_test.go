package agentrt_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/pgtest"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
)

// openStore opens a *sql.DB on the server, creates the table and returns
// a SQLStore on it.
func openStore(t testing.TB, srv *pgtest.Server) (*agentrt.SQLStore, *sql.DB) {
	t.Helper()
	db, err := sql.Open("pgx", srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := agentrt.NewSQLStore(db)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	return store, db
}

// indexes returns the names of InvocationsTable's indexes, sorted.
func indexes(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, agentrt.InvocationsTable)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		out = append(out, n)
	}
	return out
}

func schemaVersion(t testing.TB, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow(`SELECT version FROM agentc_schema_versions WHERE table_name = $1`, agentrt.InvocationsTable).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// newDatabase creates a database on srv and opens it.
func newDatabase(t testing.TB, srv *pgtest.Server, admin *sql.DB, name string) *sql.DB {
	t.Helper()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", srv.DSNFor(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestSQLStoreMigrations: CreateTable brings a fresh database, and one at
// version 1 (the table as earlier releases created it, holding calls), to
// the newest version — the unique key, the organization and created_at
// indexes, none redundant — keeping the rows, and does nothing the second
// time; InvocationsMigrationSQL prints the same migration.
func TestSQLStoreMigrations(t *testing.T) {
	srv := pgtest.Start(t)
	_, admin := openStore(t, srv)
	ctx := context.Background()
	newest := agentrt.InvocationsMigrations[len(agentrt.InvocationsMigrations)-1].Version
	want := []string{"session_tool_invocations_call_key", "session_tool_invocations_created_idx", "session_tool_invocations_organization_idx", "session_tool_invocations_pkey"}

	fresh := newDatabase(t, srv, admin, "fresh")
	s := agentrt.NewSQLStore(fresh)
	for range 2 {
		if err := s.CreateTable(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := indexes(t, fresh); !slices.Equal(got, want) || schemaVersion(t, fresh) != newest {
		t.Errorf("a fresh database: indexes %v at version %d, want %v at %d", got, schemaVersion(t, fresh), want, newest)
	}

	old := newDatabase(t, srv, admin, "old")
	for _, stmt := range agentrt.InvocationsMigrations[0].Statements {
		if _, err := old.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.Exec(`INSERT INTO session_tool_invocations (id, session_id, organization_id, tool_name, tool_call_id, status, request_hash, result)
		VALUES (gen_random_uuid(), 's', 'o', 'save_snapshot', 'kept', 'completed', 'h', '{"success":true,"result":"kept"}')`); err != nil {
		t.Fatal(err)
	}
	if err := agentrt.NewSQLStore(old).CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexes(t, old); !slices.Equal(got, want) || schemaVersion(t, old) != newest {
		t.Errorf("a version-1 database: indexes %v at version %d, want %v", got, schemaVersion(t, old), want)
	}
	var kept string
	if err := old.QueryRow(`SELECT result FROM session_tool_invocations WHERE tool_call_id = 'kept'`).Scan(&kept); err != nil ||
		kept != `{"success":true,"result":"kept"}` {
		t.Errorf("the row after the migration: %q, %v", kept, err)
	}

	printed := newDatabase(t, srv, admin, "printed")
	script := agentrt.InvocationsMigrationSQL(0)
	if !strings.Contains(script, "-- version 2:") {
		t.Errorf("the printed migration lacks version 2:\n%s", script)
	}
	if _, err := printed.Exec(script); err != nil {
		t.Fatalf("running the printed migration: %v\n%s", err, script)
	}
	if got := indexes(t, printed); !slices.Equal(got, want) || schemaVersion(t, printed) != newest {
		t.Errorf("the printed migration: indexes %v at version %d", got, schemaVersion(t, printed))
	}
}

// TestSQLStoreAdoptsSeedTable: a deployment that has seed 001's
// session_tool_invocations (its seven columns, session_id a uuid, its own
// indexes, rows of earlier calls) is completed by CreateTable, so that the
// store works on it at once: a call executes once and its retry gets the
// stored result, and a retry of a call recorded before is refused as a
// conflict, never executed. (CreateTable used to record the newest version
// over the seed's table unchanged, and every call was then a store error.)
func TestSQLStoreAdoptsSeedTable(t *testing.T) {
	srv := pgtest.Start(t)
	_, admin := openStore(t, srv)
	ctx := context.Background()
	db := newDatabase(t, srv, admin, "seed")
	const session = "11111111-1111-4111-8111-111111111111"
	for _, stmt := range []string{
		`CREATE TABLE session_tool_invocations (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), session_id uuid NOT NULL,
	organization_id text NOT NULL, tool_name text NOT NULL, tool_call_id text NOT NULL, status text NOT NULL,
	created_at timestamp NOT NULL DEFAULT now())`,
		`CREATE INDEX idx_session_tool_invocations_session ON session_tool_invocations (session_id)`,
		`INSERT INTO session_tool_invocations (session_id, organization_id, tool_name, tool_call_id, status)
	VALUES ('` + session + `', 'org', 'save_snapshot', 'before', 'completed')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	store := agentrt.NewSQLStore(db)
	store.WriteTimeout = time.Second
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	inv := agentrt.Invocation{SessionID: session, OrganizationID: "org", Tool: "save_snapshot", ToolCallID: "after", RequestHash: "h"}
	if _, done, err := store.Claim(ctx, inv); err != nil || done {
		t.Fatalf("the first Claim on the seed's table: done %v, %v", done, err)
	}
	if err := store.Complete(ctx, inv, agentrt.Result{Success: true, Result: "saved"}); err != nil {
		t.Fatal(err)
	}
	if res, done, err := agentrt.NewSQLStore(db).Claim(ctx, inv); err != nil || !done || res.Result != "saved" {
		t.Errorf("a retry on another instance: %+v, done %v, %v; want the stored result", res, done, err)
	}
	inv.ToolCallID = "before"
	if _, _, err := store.Claim(ctx, inv); err != agentrt.ErrConflict {
		t.Errorf("a retry of a call recorded before the migration: %v, want ErrConflict", err)
	}
}

// TestSQLStoreHOTUpdates: with no index on the columns a call's updates
// change, recording results and renewing leases are heap-only updates.
func TestSQLStoreHOTUpdates(t *testing.T) {
	srv := pgtest.Start(t)
	store, db := openStore(t, srv)
	ctx := context.Background()
	const n = 300
	for i := range n {
		inv := agentrt.Invocation{SessionID: "s-full", OrganizationID: "org", Tool: "save_snapshot", ToolCallID: fmt.Sprintf("hot-%d", i), RequestHash: "h"}
		if _, _, err := store.Claim(ctx, inv); err != nil {
			t.Fatal(err)
		}
		if err := store.Complete(ctx, inv, agentrt.Result{Success: i%2 == 0, Result: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close() // a closing backend reports its statistics
	_, admin := openStore(t, srv)
	var upd, hot int64
	for deadline := time.Now().Add(10 * time.Second); upd < n && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err := admin.QueryRow(`SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = $1`, agentrt.InvocationsTable).Scan(&upd, &hot); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("MEASURE %d of %d updates of %s were HOT", hot, upd, agentrt.InvocationsTable)
	if upd < n || hot < upd/2 {
		t.Errorf("%d of %d updates were HOT, want most", hot, upd)
	}
}

// TestSQLStorePurge: Purge deletes the calls created before the cut that
// are no longer running, and only those; a purged call executes again.
func TestSQLStorePurge(t *testing.T) {
	srv := pgtest.Start(t)
	store, db := openStore(t, srv)
	ctx := context.Background()
	claim := func(id string) agentrt.Invocation {
		inv := agentrt.Invocation{SessionID: "s-full", OrganizationID: "org", Tool: "save_snapshot", ToolCallID: id, RequestHash: "h"}
		if _, done, err := store.Claim(ctx, inv); err != nil || done {
			t.Fatalf("%s: %v %v", id, done, err)
		}
		return inv
	}
	for _, id := range []string{"old-done", "old-failed", "new-done"} {
		store.Complete(ctx, claim(id), agentrt.Result{Success: id != "old-failed", Result: id})
	}
	running := claim("old-running")
	if _, err := db.Exec(`UPDATE session_tool_invocations SET created_at = now() - interval '2 hours' WHERE tool_call_id LIKE 'old-%'`); err != nil {
		t.Fatal(err)
	}
	n, err := store.Purge(ctx, time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("Purge: %d, %v; want 2", n, err)
	}
	var left []string
	rows, _ := db.Query(`SELECT tool_call_id FROM session_tool_invocations ORDER BY tool_call_id`)
	for rows.Next() {
		var id string
		rows.Scan(&id)
		left = append(left, id)
	}
	rows.Close()
	if !slices.Equal(left, []string{"new-done", "old-running"}) {
		t.Errorf("after Purge: %v", left)
	}
	store.Complete(ctx, running, agentrt.Result{Success: true, Result: "r"})
	if err := store.Complete(ctx, running, agentrt.Result{Result: "again"}); err == nil || !strings.Contains(err.Error(), "not claimed") {
		t.Errorf("completing a call twice: %v", err)
	}
	claim("old-done") // executes again
}

// TestSQLStoreInterrupted: a call whose executing gateway stopped renewing
// its lease is answered, once the lease has run out, {success: false}
// saying it was interrupted — never executed again — and the row says so;
// a call whose gateway still holds its lease is waited for; a reused id
// with another hash is ErrConflict.
func TestSQLStoreInterrupted(t *testing.T) {
	srv := pgtest.Start(t)
	store, db := openStore(t, srv)
	ctx := context.Background()
	for _, row := range []struct{ id, lease string }{{"dead", "-1 second"}, {"alive", "1 hour"}} {
		if _, err := db.Exec(`INSERT INTO session_tool_invocations
	(id, session_id, organization_id, tool_name, tool_call_id, request_hash, status, lease_owner, lease_until)
	VALUES (gen_random_uuid(), 's', 'org', 'save_snapshot', $1, 'h', 'running', 'gw-other/1', now() + CAST($2 AS interval))`,
			row.id, row.lease); err != nil {
			t.Fatal(err)
		}
	}
	inv := func(id, hash string) agentrt.Invocation {
		return agentrt.Invocation{SessionID: "s", OrganizationID: "org", Tool: "save_snapshot", ToolCallID: id, RequestHash: hash}
	}
	for range 2 { // the first marks the row, the second reads it
		res, done, err := store.Claim(ctx, inv("dead", "h"))
		if err != nil || !done || res.Success || !strings.HasPrefix(res.Result, "save_snapshot was interrupted") {
			t.Fatalf("Claim of an interrupted call = %+v, %v, %v", res, done, err)
		}
	}
	var status string
	if err := db.QueryRow(`SELECT status FROM session_tool_invocations WHERE tool_call_id = 'dead'`).Scan(&status); err != nil || status != agentrt.StatusInterrupted {
		t.Errorf("the interrupted call's row: %q, %v", status, err)
	}
	if _, _, err := store.Claim(ctx, inv("dead", "other")); err != agentrt.ErrConflict {
		t.Errorf("Claim with another hash: %v, want ErrConflict", err)
	}
	wait, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, done, err := store.Claim(wait, inv("alive", "h")); err != context.DeadlineExceeded || done {
		t.Errorf("Claim of a call another gateway executes = %v, %v; want it to wait until the deadline", done, err)
	}
}

// TestSQLStorePermanentErrors: an error the database gives for the
// statement itself is returned at once with its SQLSTATE, not retried for
// the whole WriteTimeout: a claim without the table (42P01), and a result
// whose column is missing (42703).
func TestSQLStorePermanentErrors(t *testing.T) {
	srv := pgtest.Start(t)
	store, db := openStore(t, srv)
	store.WriteTimeout = 5 * time.Second
	ctx := context.Background()
	inv := agentrt.Invocation{SessionID: "s", OrganizationID: "org", Tool: "save_snapshot", ToolCallID: "c1", RequestHash: "h"}
	if _, err := db.Exec(`ALTER TABLE session_tool_invocations DROP COLUMN result`); err != nil {
		t.Fatal(err)
	}
	if _, done, err := store.Claim(ctx, inv); err != nil || done {
		t.Fatalf("Claim = %v, %v", done, err)
	}
	start := time.Now()
	err := store.Complete(ctx, inv, agentrt.Result{Success: true, Result: "saved"})
	if took := time.Since(start); err == nil || !strings.Contains(err.Error(), "42703") || took > time.Second {
		t.Errorf("Complete without the result column: %v after %v, want SQLSTATE 42703 at once", err, took)
	}
	if _, err := db.Exec(`DROP TABLE session_tool_invocations`); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, _, err = store.Claim(ctx, inv)
	if took := time.Since(start); err == nil || !strings.Contains(err.Error(), "42P01") || took > time.Second {
		t.Errorf("Claim without the table: %v after %v, want SQLSTATE 42P01 at once", err, took)
	}
}

// TestSQLStoreRetriesLockTimeout: a statement that waits past lock_timeout
// for a lock another session holds (SQLSTATE 55P03) is a fault that passes,
// retried like a lost connection, not the database refusing the statement.
func TestSQLStoreRetriesLockTimeout(t *testing.T) {
	srv := pgtest.Start(t)
	_, db := openStore(t, srv)
	if _, err := db.Exec(`ALTER ROLE CURRENT_USER SET lock_timeout = '50ms'`); err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(0) // new connections read the role's lock_timeout
	store := agentrt.NewSQLStore(db)
	store.WriteTimeout = 5 * time.Second
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`LOCK TABLE session_tool_invocations IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(500*time.Millisecond, func() { tx.Rollback() })
	start := time.Now()
	inv := agentrt.Invocation{SessionID: "s", OrganizationID: "org", Tool: "save_snapshot", ToolCallID: "c1", RequestHash: "h"}
	if _, done, err := store.Claim(ctx, inv); err != nil || done {
		t.Fatalf("Claim while the table is locked past lock_timeout = %v, %v after %v; want it claimed once the lock is released", done, err, time.Since(start))
	}
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Errorf("Claim took %v: it did not wait for the lock", took)
	}
}
