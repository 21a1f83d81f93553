package serve

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// InvocationsTable is the table SQLStore uses: seed 001's
// session_tool_invocations (id, session_id, organization_id, tool_name,
// tool_call_id, status, created_at) plus the columns durable idempotency
// needs: request_hash, result (the answer's JSON, exactly as returned),
// lease_owner and lease_until (which gateway executes a running call, and
// until when it has promised to finish or renew), updated_at, and a unique
// constraint on (session_id, tool_call_id).
const InvocationsTable = "session_tool_invocations"

// InvocationsSchema creates InvocationsTable and its indexes (PostgreSQL);
// each statement is idempotent. A deployment whose table has the seed's
// columns only adds the others with ALTER TABLE … ADD COLUMN and the unique
// constraint; session_id may be uuid there (the queries pass it as a
// parameter and never cast it).
var InvocationsSchema = []string{
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
}

// The statuses SQLStore records.
const (
	// StatusRunning: claimed, executing under a lease.
	StatusRunning = "running"
	// StatusCompleted: executed, success true.
	StatusCompleted = "completed"
	// StatusFailed: executed, success false.
	StatusFailed = "failed"
	// StatusInterrupted: the gateway executing it stopped (its lease
	// expired) before it recorded a result; the outcome is unknown.
	StatusInterrupted = "interrupted"
)

// DefaultLease is SQLStore's lease when SQLStore.Lease is zero.
const DefaultLease = 30 * time.Second

// SQLStore is a durable Store on database/sql (PostgreSQL-compatible SQL):
// each call is a row of InvocationsTable, claimed by inserting it (the
// unique constraint decides which gateway executes), so idempotency holds
// across gateway restarts and between gateway instances. It also serves as
// the seed's audit trail.
//
// Semantics:
//   - Completed results are kept as long as their rows (the audit trail):
//     a repeated tool_call_id gets the stored result however late it comes.
//     Retention does not apply; deleting old rows is the deployment's
//     business.
//   - Within one process, repeated calls wait for the executing one in
//     memory; a repeated call reaching another instance polls the row
//     until it completes.
//   - At most once. The executing gateway renews its lease every Lease/3.
//     When a gateway dies mid-execution its lease runs out; the next call
//     with that tool_call_id marks the row "interrupted" and answers
//     {success: false} saying that the outcome is unknown — it never
//     executes the call a second time, since the first execution may have
//     taken effect. The model (or a person) checks and calls again with a
//     new tool_call_id.
type SQLStore struct {
	// DB is the database; required.
	DB *sql.DB
	// Lease is how long a claim holds without renewal; 0 means
	// DefaultLease. A call repeated while its executing gateway is gone
	// waits up to Lease before it is answered "interrupted".
	Lease time.Duration

	ownerOnce sync.Once
	owner     string
	mu        sync.Mutex
	local     map[invocationKey]*sqlCall
}

// sqlCall is a call this process is claiming, executing or waiting on.
type sqlCall struct {
	hash string
	done chan struct{}
	// res and ok are set before done closes: ok when res is the call's
	// result.
	res  Result
	ok   bool
	stop chan struct{}
}

// NewSQLStore returns a SQLStore on db.
func NewSQLStore(db *sql.DB) *SQLStore { return &SQLStore{DB: db} }

// CreateTable runs InvocationsSchema.
func (s *SQLStore) CreateTable(ctx context.Context) error {
	for _, stmt := range InvocationsSchema {
		if _, err := s.DB.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("SQLStore: creating %s: %w", InvocationsTable, err)
		}
	}
	return nil
}

func (s *SQLStore) lease() time.Duration {
	if s.Lease > 0 {
		return s.Lease
	}
	return DefaultLease
}

// interval is d as a PostgreSQL interval literal.
func interval(d time.Duration) string { return fmt.Sprintf("%d milliseconds", d.Milliseconds()) }

func (s *SQLStore) ownerID() string {
	s.ownerOnce.Do(func() { s.owner = "gw-" + newUUID() })
	return s.owner
}

// Claim implements Store.
func (s *SQLStore) Claim(ctx context.Context, inv Invocation) (Result, bool, error) {
	k := invocationKey{inv.SessionID, inv.ToolCallID}
	for {
		s.mu.Lock()
		if s.local == nil {
			s.local = map[invocationKey]*sqlCall{}
		}
		if c := s.local[k]; c != nil {
			s.mu.Unlock()
			if c.hash != inv.RequestHash {
				return Result{}, false, ErrConflict
			}
			select {
			case <-c.done:
			case <-ctx.Done():
				return Result{}, false, ctx.Err()
			}
			if c.ok {
				return c.res, true, nil
			}
			continue // its claimer gave up (or lost the row): ask the database
		}
		c := &sqlCall{hash: inv.RequestHash, done: make(chan struct{})}
		s.local[k] = c
		s.mu.Unlock()

		res, done, err := s.claimRow(ctx, inv)
		if err == nil && !done {
			c.stop = make(chan struct{})
			go s.renew(inv, c.stop)
			return Result{}, false, nil
		}
		s.mu.Lock()
		delete(s.local, k)
		s.mu.Unlock()
		c.res, c.ok = res, done && err == nil
		close(c.done)
		return res, done, err
	}
}

// claimRow claims the row of inv or returns its stored result, polling
// while another gateway executes it.
func (s *SQLStore) claimRow(ctx context.Context, inv Invocation) (Result, bool, error) {
	wait := 10 * time.Millisecond
	for {
		// The insert runs detached from ctx: once it has committed, the
		// call must be executed whatever happens to its request.
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.lease())
		r, err := s.DB.ExecContext(ictx, `INSERT INTO session_tool_invocations
	(id, session_id, organization_id, tool_name, tool_call_id, request_hash, status, lease_owner, lease_until, created_at, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, now() + CAST($8 AS interval), now(), now())
	ON CONFLICT (session_id, tool_call_id) DO NOTHING`,
			newUUID(), inv.SessionID, inv.OrganizationID, inv.Tool, inv.ToolCallID, inv.RequestHash, s.ownerID(), interval(s.lease()))
		cancel()
		if err != nil {
			return Result{}, false, fmt.Errorf("SQLStore: claiming: %w", err)
		}
		if n, err := r.RowsAffected(); err != nil {
			return Result{}, false, fmt.Errorf("SQLStore: claiming: %w", err)
		} else if n == 1 {
			return Result{}, false, nil
		}

		var hash, status string
		var result sql.NullString
		var expired sql.NullBool
		err = s.DB.QueryRowContext(ctx, `SELECT request_hash, status, result, lease_until < now()
	FROM session_tool_invocations WHERE session_id = $1 AND tool_call_id = $2`,
			inv.SessionID, inv.ToolCallID).Scan(&hash, &status, &result, &expired)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue // deleted since the insert: claim again
		case err != nil:
			return Result{}, false, fmt.Errorf("SQLStore: reading the call: %w", err)
		case hash != inv.RequestHash:
			return Result{}, false, ErrConflict
		case status != StatusRunning:
			var res Result
			if err := json.Unmarshal([]byte(result.String), &res); err != nil {
				return Result{}, false, fmt.Errorf("SQLStore: the stored result of %s is not valid: %w", inv.ToolCallID, err)
			}
			return res, true, nil
		case expired.Valid && expired.Bool:
			// Its gateway died mid-execution: the outcome is unknown, and
			// executing again might repeat its effect.
			b, _ := json.Marshal(interruptedResult(inv.Tool))
			if _, err := s.DB.ExecContext(ctx, `UPDATE session_tool_invocations
	SET status = 'interrupted', result = $3, lease_owner = NULL, lease_until = NULL, updated_at = now()
	WHERE session_id = $1 AND tool_call_id = $2 AND status = 'running' AND lease_until < now()`,
				inv.SessionID, inv.ToolCallID, string(b)); err != nil {
				return Result{}, false, fmt.Errorf("SQLStore: marking an interrupted call: %w", err)
			}
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Result{}, false, ctx.Err()
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// interruptedResult answers a call whose first execution was cut off.
func interruptedResult(tool string) Result {
	return Result{Result: tool + " was interrupted: the gateway executing it stopped before it finished, so whether it took effect is unknown. Check its effect before calling it again."}
}

// renew extends the lease of a claimed call every Lease/3 until stop closes.
func (s *SQLStore) renew(inv Invocation, stop chan struct{}) {
	t := time.NewTicker(s.lease() / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.lease()/3)
		s.DB.ExecContext(ctx, `UPDATE session_tool_invocations SET lease_until = now() + CAST($4 AS interval), updated_at = now()
	WHERE session_id = $1 AND tool_call_id = $2 AND lease_owner = $3 AND status = 'running'`,
			inv.SessionID, inv.ToolCallID, s.ownerID(), interval(s.lease()))
		cancel()
	}
}

// Complete implements Store. The waiting calls of this process get res even
// when recording it fails; those of other instances then find the row
// "interrupted" once the lease runs out.
func (s *SQLStore) Complete(ctx context.Context, inv Invocation, res Result) error {
	k := invocationKey{inv.SessionID, inv.ToolCallID}
	s.mu.Lock()
	c := s.local[k]
	delete(s.local, k)
	s.mu.Unlock()
	if c == nil || c.stop == nil {
		return errors.New("SQLStore: completing a call that was not claimed")
	}
	close(c.stop)
	c.res, c.ok = res, true
	close(c.done)

	status := StatusCompleted
	if !res.Success {
		status = StatusFailed
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("SQLStore: encoding the result: %w", err)
	}
	r, err := s.DB.ExecContext(ctx, `UPDATE session_tool_invocations
	SET status = $4, result = $5, lease_owner = NULL, lease_until = NULL, updated_at = now()
	WHERE session_id = $1 AND tool_call_id = $2 AND lease_owner = $3 AND status = 'running'`,
		inv.SessionID, inv.ToolCallID, s.ownerID(), status, string(b))
	if err != nil {
		return fmt.Errorf("SQLStore: recording the result: %w", err)
	}
	if n, err := r.RowsAffected(); err == nil && n != 1 {
		return fmt.Errorf("SQLStore: recording the result of %s: the claim was lost (the lease ran out and the call was marked interrupted)", inv.ToolCallID)
	}
	return nil
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
