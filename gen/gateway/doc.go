// Package gateway holds the tests of the generated gateway callback route
// (generated/go/contract: Route, MemoryStore, SQLStore): its answers, its
// idempotency in memory and in PostgreSQL across restarts, version drift
// between sandbox stubs and the gateway, behaviour under load, a benchmark
// against a bare net/http handler, and a tool call end to end through the
// real `opencode serve`.
package gateway
