package agentrt_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/pgtest"
)

// TestSQLStoreBurst: a burst of distinct calls, several times more than
// PostgreSQL's max_connections, through the route on a SQLStore with the
// README's wiring (a pool limit below max_connections) all execute once
// and are answered 200 within the store's write deadline: a call beyond
// the pool waits for a connection instead of being refused by the server
// ("too many clients") and answered 503.
func TestSQLStoreBurst(t *testing.T) {
	const maxConnections, pool, calls = 20, 10, 100
	srv := pgtest.Start(t, pgtest.MaxConnections(maxConnections))
	db, err := sql.Open("pgx", srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// The README's wiring.
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	store := agentrt.NewSQLStore(db)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}

	h := newEchoer()
	// Every execution waits until all calls have claimed theirs, so the
	// claims come together and the results are recorded together.
	h.gate = make(chan struct{})
	route, _ := newRoute(t, h, store)
	answers := make([]answer, calls)
	var wg sync.WaitGroup
	began := time.Now()
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = serve(route, request{path: "/cb/s-full/tools/echo", token: "sbx",
				body: fmt.Sprintf(`{"tool_call_id":"burst-%d","args":{"text":"t%d"}}`, i, i)})
		}()
	}
	for deadline := time.Now().Add(agentrt.DefaultWriteTimeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM session_tool_invocations`).Scan(&n); err == nil && n == calls {
			break
		}
	}
	close(h.gate)
	wg.Wait()
	elapsed := time.Since(began)

	refused := 0
	for i, a := range answers {
		if a.status != 200 || !a.success || a.result != fmt.Sprintf("echoed t%d", i) {
			if refused++; refused <= 5 {
				t.Errorf("call burst-%d: %+v", i, a)
			}
		}
		if n := h.count(fmt.Sprintf("burst-%d", i)); n != 1 {
			t.Errorf("call burst-%d executed %d times, want once", i, n)
		}
	}
	if refused > 0 {
		t.Errorf("%d of %d calls were not answered 200", refused, calls)
	}
	if limit := 2 * agentrt.DefaultWriteTimeout; elapsed > limit {
		t.Errorf("the burst took %v, more than the two write deadlines (claim, result) of %v", elapsed, limit)
	}
	var completed int
	if err := db.QueryRow(`SELECT count(*) FROM session_tool_invocations WHERE status = 'completed'`).Scan(&completed); err != nil || completed != calls {
		t.Errorf("%d completed rows (%v), want %d", completed, err, calls)
	}
	t.Logf("MEASURE %d distinct calls, pool %d, max_connections %d: %v", calls, pool, maxConnections, elapsed)
}
