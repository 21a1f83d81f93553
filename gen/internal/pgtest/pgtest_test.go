package pgtest_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"

	"github.com/agentc-dev/agentc/gen/internal/pgtest"
)

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestRestartKeepsData(t *testing.T) {
	began := time.Now()
	srv := pgtest.Start(t)
	t.Logf("MEASURE postgres: Start %v (server start %v)", time.Since(began), srv.StartupTime)

	if !strings.HasPrefix(srv.DSN, "postgres://postgres@127.0.0.1:") {
		t.Errorf("DSN = %q", srv.DSN)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	db := open(t, srv.DSN)
	if _, err := db.ExecContext(ctx, `CREATE TABLE session_tool_invocations (
		id bigserial PRIMARY KEY,
		tool_call_id text NOT NULL UNIQUE,
		status text NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO session_tool_invocations (tool_call_id, status) VALUES ($1, $2), ($3, $4)`,
		"toolu_1", "completed", "toolu_2", "failed"); err != nil {
		t.Fatal(err)
	}
	// The server listens on loopback TCP only.
	var addr string
	if err := db.QueryRowContext(ctx, `SHOW listen_addresses`).Scan(&addr); err != nil {
		t.Fatal(err)
	}
	if addr != "127.0.0.1" {
		t.Errorf("listen_addresses = %q", addr)
	}

	// A gateway restart: the old pool goes away with the process, the
	// database restarts too, a new pool reads what the old one wrote.
	db.Close()
	began = time.Now()
	srv.Restart(t)
	t.Logf("MEASURE postgres Restart %v (start %v)", time.Since(began), srv.StartupTime)
	db = open(t, srv.DSN)

	rows, err := db.QueryContext(ctx, `SELECT tool_call_id, status FROM session_tool_invocations ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			t.Fatal(err)
		}
		got = append(got, id+"="+status)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "toolu_1=completed,toolu_2=failed" {
		t.Errorf("after Restart: %v", got)
	}

	// The unique key still holds: idempotency across a restart rests on it.
	_, err = db.ExecContext(ctx, `INSERT INTO session_tool_invocations (tool_call_id, status) VALUES ($1, $2)`, "toolu_1", "completed")
	if err == nil || !strings.Contains(err.Error(), "23505") {
		t.Errorf("duplicate tool_call_id insert: err = %v, want a unique violation (23505)", err)
	}
}

func TestServersAreIndependent(t *testing.T) {
	a, b := pgtest.Start(t), pgtest.Start(t)
	if a.Port == b.Port || a.DataDir == b.DataDir {
		t.Fatalf("two servers share a port or a data directory: %d %d %s %s", a.Port, b.Port, a.DataDir, b.DataDir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := open(t, a.DSN).ExecContext(ctx, `CREATE TABLE only_in_a (x int)`); err != nil {
		t.Fatal(err)
	}
	_, err := open(t, b.DSN).ExecContext(ctx, `SELECT * FROM only_in_a`)
	if err == nil || !strings.Contains(err.Error(), "42P01") {
		t.Errorf("the table of server a is visible in server b: %v", errors.Unwrap(err))
	}
}
