package agentrt

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// InvocationsTable is the table SQLStore uses: seed 001's
// session_tool_invocations (id, session_id, organization_id, tool_name,
// tool_call_id, status, created_at) plus the columns durable idempotency
// needs: request_hash, result (the answer's JSON, exactly as returned),
// lease_owner and lease_until (which claim executes the call, and until
// when its gateway has promised to finish or renew), updated_at, and a
// unique constraint on (session_id, tool_call_id).
const InvocationsTable = "session_tool_invocations"

// InvocationsMigration is one version of InvocationsTable's schema: the
// statements that bring the table from the version before to Version.
type InvocationsMigration struct {
	Version int
	// Why says what the version changes.
	Why        string
	Statements []string
}

// InvocationsMigrations is InvocationsTable's schema history, oldest first
// (PostgreSQL). A later column or index is a new version appended here:
// SQLStore.CreateTable runs the versions the database lacks, and
// InvocationsMigrationSQL prints them for a deployment that migrates by
// hand. Each statement is idempotent. Version 3 completes seed 001's table,
// whose session_id may be uuid: queries pass it as a parameter, never cast.
var InvocationsMigrations = []InvocationsMigration{
	{Version: 1, Why: "the table, its unique key and its first indexes", Statements: []string{
		`CREATE TABLE IF NOT EXISTS session_tool_invocations (
	id uuid PRIMARY KEY,
	session_id text NOT NULL,
	organization_id text NOT NULL,
	tool_name text NOT NULL,
	tool_call_id text NOT NULL,
	status text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	request_hash text NOT NULL,
	result text,
	lease_owner text,
	lease_until timestamptz,
	updated_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT session_tool_invocations_call_key UNIQUE (session_id, tool_call_id)
)`,
		`CREATE INDEX IF NOT EXISTS session_tool_invocations_session_idx ON session_tool_invocations (session_id)`,
		`CREATE INDEX IF NOT EXISTS session_tool_invocations_organization_idx ON session_tool_invocations (organization_id)`,
		`CREATE INDEX IF NOT EXISTS session_tool_invocations_status_idx ON session_tool_invocations (status)`,
	}},
	{Version: 2, Why: "drop session_idx (the unique key leads with session_id) and status_idx " +
		"(it made every status update non-HOT); index created_at for Purge", Statements: []string{
		`DROP INDEX IF EXISTS session_tool_invocations_session_idx`,
		`DROP INDEX IF EXISTS session_tool_invocations_status_idx`,
		`CREATE INDEX IF NOT EXISTS session_tool_invocations_created_idx ON session_tool_invocations (created_at)`,
	}},
	{Version: 3, Why: "complete seed 001's table, which version 1 kept (its rows get an empty request_hash)", Statements: []string{
		`ALTER TABLE session_tool_invocations ADD COLUMN IF NOT EXISTS request_hash text NOT NULL DEFAULT '',
	ADD COLUMN IF NOT EXISTS result text, ADD COLUMN IF NOT EXISTS lease_until timestamptz,
	ADD COLUMN IF NOT EXISTS lease_owner text, ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT now()`,
		`CREATE UNIQUE INDEX IF NOT EXISTS session_tool_invocations_call_key ON session_tool_invocations (session_id, tool_call_id)`,
	}},
}

// InvocationsMigrationSQL returns the SQL that brings InvocationsTable
// from version from (0: no table) to the newest, recording the version in
// agentc_schema_versions as SQLStore.CreateTable does, as one transaction.
func InvocationsMigrationSQL(from int) string {
	return "BEGIN;\n" + schemaVersionsDDL + ";\n" + strings.Join(migration(from), ";\n") + ";\nCOMMIT;\n"
}

// migration returns the statements that bring InvocationsTable from
// version from to the newest, each version's first headed by a comment
// saying what it changes, and then the one that records the newest
// version in agentc_schema_versions.
func migration(from int) []string {
	var stmts []string
	last := from
	for _, m := range InvocationsMigrations {
		if m.Version <= from {
			continue
		}
		head := fmt.Sprintf("-- version %d: %s\n", m.Version, m.Why)
		for _, stmt := range m.Statements {
			stmts = append(stmts, head+stmt)
			head = ""
		}
		last = m.Version
	}
	return append(stmts, fmt.Sprintf("INSERT INTO agentc_schema_versions (table_name, version) VALUES ('%s', %d)\n"+
		"\tON CONFLICT (table_name) DO UPDATE SET version = EXCLUDED.version, applied_at = now()", InvocationsTable, last))
}

// schemaVersionsDDL creates the table that records, per table, the newest
// InvocationsMigrations version applied.
const schemaVersionsDDL = `CREATE TABLE IF NOT EXISTS agentc_schema_versions (
	table_name text PRIMARY KEY,
	version integer NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

// The statuses SQLStore records.
const (
	// StatusRunning: claimed, executing under a lease.
	StatusRunning = "running"
	// StatusCompleted: executed, success true.
	StatusCompleted = "completed"
	// StatusFailed: executed, success false.
	StatusFailed = "failed"
	// StatusInterrupted: the gateway executing it stopped renewing its
	// lease (it died, or lost the database for a whole lease) before it
	// recorded a result; the outcome is unknown.
	StatusInterrupted = "interrupted"
)

// DefaultLease is SQLStore's lease when SQLStore.Lease is zero.
const DefaultLease = 30 * time.Second

// DefaultWriteTimeout is SQLStore's write deadline when
// SQLStore.WriteTimeout is zero.
const DefaultWriteTimeout = 5 * time.Second

// SQLStore is a durable Store on database/sql (PostgreSQL-compatible SQL):
// each call is a row of InvocationsTable, claimed by inserting it (the
// unique constraint decides which gateway executes), so idempotency holds
// across gateway restarts and between gateway instances. It also serves as
// the seed's audit trail.
//
// Semantics:
//   - Completed results are kept as long as their rows (the audit trail):
//     a repeated tool_call_id gets the stored result however late it comes.
//     Purge deletes the rows of old calls; run it on a schedule.
//   - Within one process, repeated calls wait for the executing one in
//     memory; a repeated call reaching another instance polls the row
//     until it completes.
//   - Writes are retried with backoff under WriteTimeout, a deadline of
//     their own (not the request's). A claim that cannot be written by
//     then fails (the route answers 503, retry it); when the database did
//     take it but its answer was lost, the retry recognises the row as this
//     instance's and executes the call once. A result that cannot be
//     recorded by then is answered all the same, kept in memory and
//     recorded when the database answers again; meanwhile retries wait for
//     it (in memory on this instance, polling the running row on others).
//     An SQLSTATE outside classes 08, 0A, 40, 53, 55, 57 and 58
//     (connection, pgx's cached plan after a schema change, serialization
//     failure or deadlock, too many clients, a lock not available, shutdown
//     or restart, system error) is the database refusing the statement
//     itself (a missing table or column, a constraint, a privilege): it is
//     not retried; the claim fails at once, and a result is not kept.
//   - At most once. The executing gateway renews its lease every Lease/3
//     until its result is recorded. When a gateway dies mid-execution (or
//     loses the database for a whole Lease), its lease runs out; the next
//     call with that tool_call_id marks the row "interrupted" and answers
//     {success: false} saying that the outcome is unknown — it never
//     executes the call a second time, since the first execution may have
//     taken effect. The model (or a person) checks and calls again with a
//     new tool_call_id. Should the first gateway come back and finish, its
//     result replaces "interrupted" in the row, for later retries and the
//     audit trail.
type SQLStore struct {
	// DB is the database; required. Give it a pool limit below the
	// server's max_connections (DB.SetMaxOpenConns, and SetMaxIdleConns
	// as many): a query beyond the limit then waits for a connection
	// within WriteTimeout. Without one, a burst of calls opens a
	// connection per call in flight, the server refuses those beyond its
	// max_connections ("too many clients", SQLSTATE 53300), and the calls
	// whose retries do not get one within WriteTimeout fail.
	DB *sql.DB
	// Lease is how long a claim holds without renewal; 0 means
	// DefaultLease. A call repeated while its executing gateway is gone
	// waits up to Lease before it is answered "interrupted".
	Lease time.Duration
	// WriteTimeout bounds a claim and the recording of a result, retries
	// and waits for a pooled connection included; 0 means
	// DefaultWriteTimeout. It bounds how long a
	// database that does not answer holds a caller's answer.
	WriteTimeout time.Duration

	mu sync.Mutex
	// local and owner, this instance's lease_owner prefix, are set by the
	// first Claim, under mu; claimRow runs after its Claim has locked mu.
	local map[invocationKey]*storeCall
	owner string
	// claims numbers the claims of this instance, under mu.
	claims uint64
}

// NewSQLStore returns a SQLStore on db.
func NewSQLStore(db *sql.DB) *SQLStore { return &SQLStore{DB: db} }

// CreateTable creates InvocationsTable or migrates it to the newest of
// InvocationsMigrations, in one transaction under an advisory lock (so
// gateways starting together migrate once), and records the version in
// agentc_schema_versions. On a large table, an index a migration creates
// locks writes while it builds: print InvocationsMigrationSQL and build it
// CONCURRENTLY by hand first.
func (s *SQLStore) CreateTable(ctx context.Context) error {
	wrap := func(err error) error { return fmt.Errorf("SQLStore: migrating %s: %w", InvocationsTable, err) }
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return wrap(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8301254961)`); err != nil {
		return wrap(err)
	}
	if _, err := tx.ExecContext(ctx, schemaVersionsDDL); err != nil {
		return wrap(err)
	}
	var version int
	err = tx.QueryRowContext(ctx, `SELECT version FROM agentc_schema_versions WHERE table_name = $1`,
		InvocationsTable).Scan(&version)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return wrap(err)
	}
	if version >= InvocationsMigrations[len(InvocationsMigrations)-1].Version {
		return nil
	}
	for _, stmt := range migration(version) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return wrap(fmt.Errorf("running %q: %w", stmt, err))
		}
	}
	if err := tx.Commit(); err != nil {
		return wrap(err)
	}
	return nil
}

// Purge deletes the rows of calls created more than olderThan ago that are
// no longer running (completed, failed or interrupted), in batches, and
// returns how many it deleted. A call repeated after its row is purged
// executes again, so olderThan should exceed the longest a sandbox retries
// (hours or days, not minutes). It uses the created_at index of version 2.
func (s *SQLStore) Purge(ctx context.Context, olderThan time.Duration) (int64, error) {
	var total int64
	for {
		r, err := s.DB.ExecContext(ctx, `DELETE FROM session_tool_invocations WHERE id IN (
	SELECT id FROM session_tool_invocations
	WHERE created_at < now() - CAST($1 AS interval) AND status <> 'running'
	LIMIT 10000)`, interval(olderThan))
		if err != nil {
			return total, fmt.Errorf("SQLStore: purging: %w", err)
		}
		n, err := r.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("SQLStore: purging: %w", err)
		}
		total += n
		if n < 10000 {
			return total, nil
		}
	}
}

// lease and writeTimeout are Lease and WriteTimeout, or their defaults
// for zero (or less).
func (s *SQLStore) lease() time.Duration { return cmp.Or(max(s.Lease, 0), DefaultLease) }

func (s *SQLStore) writeTimeout() time.Duration {
	return cmp.Or(max(s.WriteTimeout, 0), DefaultWriteTimeout)
}

// interval is d as a PostgreSQL interval literal.
func interval(d time.Duration) string { return fmt.Sprintf("%d milliseconds", d.Milliseconds()) }

// Claim implements Store.
func (s *SQLStore) Claim(ctx context.Context, inv Invocation) (Result, bool, error) {
	k := invocationKey{inv.SessionID, inv.ToolCallID}
	for {
		s.mu.Lock()
		if s.local == nil {
			s.local, s.owner = map[invocationKey]*storeCall{}, "gw-"+newUUID()
		}
		if c := s.local[k]; c != nil {
			s.mu.Unlock()
			if res, ok, err := c.wait(ctx, inv.RequestHash); err != nil || ok {
				return res, ok, err
			}
			continue // its claimer gave up (or lost the row): ask the database
		}
		s.claims++
		c := &storeCall{hash: inv.RequestHash, token: s.owner + "/" + strconv.FormatUint(s.claims, 10),
			done: make(chan struct{})}
		s.local[k] = c
		s.mu.Unlock()

		var uncertain bool
		res, done, err := s.claimRow(ctx, inv, c.token, &uncertain)
		if err == nil && !done {
			c.stop = make(chan struct{})
			go s.renew(inv, c)
			return Result{}, false, nil
		}
		if err != nil && uncertain {
			// The database may have taken the claim without answering:
			// remove the row (never executed) once it answers again.
			go s.persist("releasing an unexecuted claim", `DELETE FROM session_tool_invocations
	WHERE session_id = $1 AND tool_call_id = $2 AND lease_owner = $3 AND status = 'running'`,
				inv.SessionID, inv.ToolCallID, c.token)
		}
		s.forget(k)
		c.res, c.ok = res, done && err == nil
		close(c.done)
		return res, done, err
	}
}

// forget removes the call of k from the calls of this process.
func (s *SQLStore) forget(k invocationKey) {
	s.mu.Lock()
	delete(s.local, k)
	s.mu.Unlock()
}

// retrier paces the retries of a database operation: backoff from 10 ms to
// 500 ms, until a deadline that a success moves.
type retrier struct {
	wait     time.Duration
	deadline time.Time
}

func (s *SQLStore) newRetrier() *retrier {
	return &retrier{wait: 10 * time.Millisecond, deadline: time.Now().Add(s.writeTimeout())}
}

// attemptCtx bounds one attempt by the deadline; the attempt runs detached
// from ctx (a write that may have committed must be followed up whatever
// happens to the request).
func (r *retrier) attemptCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithDeadline(context.WithoutCancel(ctx), r.deadline)
}

// again sleeps before the next attempt after err, or returns err when it
// is permanent, the deadline has passed or ctx ended.
func (r *retrier) again(ctx context.Context, err error) error {
	noteStoreAttempt(ctx, err)
	if permanent(err) || !time.Now().Add(r.wait).Before(r.deadline) {
		return err
	}
	return r.sleep(ctx)
}

// permanent reports whether err is the database's refusal of the statement
// itself, which repeating it would not change: an SQLSTATE, as pgx's
// *pgconn.PgError and lib/pq's *pq.Error give it (the driver is the
// user's), of a class that SQLStore does not retry.
func permanent(err error) bool {
	var state interface{ SQLState() string }
	return errors.As(err, &state) && len(state.SQLState()) == 5 &&
		!slices.Contains([]string{"08", "0A", "40", "53", "55", "57", "58"}, state.SQLState()[:2])
}

// sleep waits the current backoff and doubles it.
func (r *retrier) sleep(ctx context.Context) error {
	t := time.NewTimer(r.wait)
	defer t.Stop()
	r.wait = min(2*r.wait, 500*time.Millisecond)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// claimRow claims the row of inv for token or returns its stored result,
// polling while another gateway executes it. It sets *uncertain when an
// insert failed, so that the database may hold a row of token.
func (s *SQLStore) claimRow(ctx context.Context, inv Invocation, token string, uncertain *bool) (Result, bool, error) {
	rt := s.newRetrier()
	poll := &retrier{wait: 10 * time.Millisecond}
	for {
		n, err := s.exec(ctx, rt, `INSERT INTO session_tool_invocations
	(id, session_id, organization_id, tool_name, tool_call_id, request_hash, status,
	 lease_owner, lease_until, created_at, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, now() + CAST($8 AS interval), now(), now())
	ON CONFLICT (session_id, tool_call_id) DO NOTHING`,
			newUUID(), inv.SessionID, inv.OrganizationID, inv.Tool, inv.ToolCallID, inv.RequestHash, token, interval(s.lease()))
		if err != nil {
			*uncertain = true
			if err := rt.again(ctx, fmt.Errorf("SQLStore: claiming: %w", err)); err != nil {
				return Result{}, false, err
			}
			continue
		}
		if n == 1 {
			return Result{}, false, nil
		}

		var hash, status string
		var result, owner sql.NullString
		var expired sql.NullBool
		actx, cancel := rt.attemptCtx(ctx)
		err = s.DB.QueryRowContext(actx, `SELECT request_hash, status, result, lease_owner, lease_until < now()
	FROM session_tool_invocations WHERE session_id = $1 AND tool_call_id = $2`,
			inv.SessionID, inv.ToolCallID).Scan(&hash, &status, &result, &owner, &expired)
		cancel()
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue // deleted since the insert: claim again
		case err != nil:
			if err := rt.again(ctx, fmt.Errorf("SQLStore: reading the call: %w", err)); err != nil {
				return Result{}, false, err
			}
			continue
		case hash != inv.RequestHash:
			return Result{}, false, ErrConflict
		case status == StatusRunning && strings.HasPrefix(owner.String, s.owner+"/"):
			// An earlier attempt of this claim, or an earlier claim of
			// this instance that then gave up, inserted the row and lost
			// the answer; it never executed (an executing claim stays in
			// s.local until its result is recorded, and this claim is the
			// key's entry there): take the row over.
			n, err := s.execRetried(ctx, rt, "taking over this instance's unexecuted claim", `UPDATE session_tool_invocations
	SET lease_owner = $4, lease_until = now() + CAST($5 AS interval), updated_at = now()
	WHERE session_id = $1 AND tool_call_id = $2 AND status = 'running' AND lease_owner IN ($3, $4)`,
				inv.SessionID, inv.ToolCallID, owner.String, token, interval(s.lease()))
			if err != nil || n == 1 {
				return Result{}, false, err
			}
			continue
		case status != StatusRunning:
			var res Result
			if err := json.Unmarshal([]byte(result.String), &res); err != nil {
				return Result{}, false, fmt.Errorf("SQLStore: the stored result of %s is not valid: %w", inv.ToolCallID, err)
			}
			return res, true, nil
		case expired.Valid && expired.Bool:
			// Its gateway stopped renewing the lease: the outcome is
			// unknown, and executing again might repeat its effect. The
			// row keeps lease_owner, so that the gateway, should it come
			// back and finish, still records its result.
			b, _ := json.Marshal(Result{Result: inv.Tool + " was interrupted: the gateway executing it stopped before it " +
				"finished, so whether it took effect is unknown. Check its effect before calling it again."})
			_, err := s.execRetried(ctx, rt, "marking an interrupted call", `UPDATE session_tool_invocations
	SET status = 'interrupted', result = $3, lease_until = NULL, updated_at = now()
	WHERE session_id = $1 AND tool_call_id = $2 AND status = 'running' AND lease_until < now()`,
				inv.SessionID, inv.ToolCallID, string(b))
			if err != nil {
				return Result{}, false, err
			}
			continue
		}
		// Another claim executes it: poll (ctx, the request, bounds this).
		if err := poll.sleep(ctx); err != nil {
			return Result{}, false, err
		}
	}
}

// renew extends the lease of a claimed call every Lease/3 until its result
// is recorded (c.stop closes).
func (s *SQLStore) renew(inv Invocation, c *storeCall) {
	t := time.NewTicker(s.lease() / 3)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.lease()/3)
		s.DB.ExecContext(ctx, `UPDATE session_tool_invocations
	SET lease_until = now() + CAST($4 AS interval), updated_at = now()
	WHERE session_id = $1 AND tool_call_id = $2 AND lease_owner = $3 AND status = 'running'`,
			inv.SessionID, inv.ToolCallID, c.token, interval(s.lease()))
		cancel()
	}
}

// recordResult writes a claimed call's result: $4 its status, $5 its JSON.
// The update is keyed by the claim's token ($3), so that repeating it after
// a lost answer is harmless, and it replaces "interrupted" should another
// gateway have given the claim up for dead. It affects no row when the
// claim was lost (its row was deleted).
const recordResult = `UPDATE session_tool_invocations
	SET status = $4, result = $5, lease_until = NULL, updated_at = now()
	WHERE session_id = $1 AND tool_call_id = $2 AND lease_owner = $3`

// Complete implements Store. The waiting calls of this process get res at
// once. Recording it is retried under WriteTimeout; when that does not
// suffice, Complete returns an error saying so, and the result is kept and
// recorded in the background when the database answers (until then the
// lease is renewed, and retries on this instance get res from memory). A
// permanent error (see SQLStore) is returned at once, the result not kept.
func (s *SQLStore) Complete(ctx context.Context, inv Invocation, res Result) error {
	k := invocationKey{inv.SessionID, inv.ToolCallID}
	s.mu.Lock()
	c := s.local[k]
	if c == nil || c.stop == nil || c.ok {
		s.mu.Unlock()
		return errors.New("SQLStore: completing a call that was not claimed")
	}
	c.res, c.ok = res, true
	close(c.done)
	s.mu.Unlock()

	status := StatusCompleted
	if !res.Success {
		status = StatusFailed
	}
	b, err := json.Marshal(res)
	if err != nil {
		s.finish(k, c)
		return fmt.Errorf("SQLStore: encoding the result: %w", err)
	}
	args := []any{inv.SessionID, inv.ToolCallID, c.token, status, string(b)}
	n, err := s.execRetried(ctx, s.newRetrier(), "recording the result", recordResult, args...)
	if err == nil || permanent(err) { // a permanent error: the database would refuse it again
		s.finish(k, c)
		if err == nil && n != 1 {
			return fmt.Errorf("SQLStore: recording the result of %s: the claim was lost (its row was deleted)", inv.ToolCallID)
		}
		return err
	}
	go func() {
		s.persist("recording the result", recordResult, args...)
		s.finish(k, c)
	}()
	return fmt.Errorf("SQLStore: recording the result of %s: the database did not take it within %v; "+
		"it is kept and recorded when the database answers: %w", inv.ToolCallID, s.writeTimeout(), err)
}

// finish ends a claimed call: its lease is no longer renewed and the
// process forgets it.
func (s *SQLStore) finish(k invocationKey, c *storeCall) {
	close(c.stop)
	s.forget(k)
}

// persist runs a statement, detached from any request, until the database
// takes it: rounds of retries under WriteTimeout, the first 100 ms after a
// failure.
func (s *SQLStore) persist(what, query string, args ...any) {
	rt := &retrier{wait: 100 * time.Millisecond}
	for {
		rt.deadline = time.Now().Add(s.writeTimeout())
		// A permanent error would be the answer to every round.
		if _, err := s.execRetried(context.Background(), rt, what, query, args...); err == nil || permanent(err) {
			return
		}
	}
}

// execRetried runs a statement under rt until an attempt succeeds or rt
// gives up; what names the operation in the error. It returns the rows the
// statement affected.
func (s *SQLStore) execRetried(ctx context.Context, rt *retrier, what, query string, args ...any) (int64, error) {
	for {
		n, err := s.exec(ctx, rt, query, args...)
		if err == nil {
			return n, nil
		}
		if err := rt.again(ctx, fmt.Errorf("SQLStore: %s: %w", what, err)); err != nil {
			return 0, err
		}
	}
}

// exec makes one attempt at a statement under rt's per-attempt deadline and
// returns the rows it affected; the caller decides whether to retry. A
// success is counted on ctx's call and moves rt's deadline: the next
// failure gets a full one.
func (s *SQLStore) exec(ctx context.Context, rt *retrier, query string, args ...any) (int64, error) {
	actx, cancel := rt.attemptCtx(ctx)
	defer cancel()
	r, err := s.DB.ExecContext(actx, query, args...)
	if err != nil {
		return 0, err
	}
	noteStoreAttempt(ctx, nil)
	rt.wait, rt.deadline = 10*time.Millisecond, time.Now().Add(s.writeTimeout())
	return r.RowsAffected()
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
