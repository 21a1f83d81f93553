package jsonschemagen

import (
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/agentc-dev/agentc/gen/model"
)

// A Consumer is an emitter that writes tools' JSON Schemas: each one's
// schema is computed once for both in a generation (SharedSchema).
type Consumer int

// The consumers of SharedSchema.
const (
	// ForJSONSchema is this package's emitter, "jsonschema".
	ForJSONSchema Consumer = iota
	// ForMCP is emitter "mcp", whose tools.go embeds each gateway tool's
	// schema.
	ForMCP
	consumers
)

// shared holds, per spec still in memory, the schemas one consumer
// computed that the other has not read yet. Emitters run concurrently, so
// the first consumer to ask for a tool's schema computes it and the other
// waits for it; once both have read it, it is dropped. A consumer that asks
// again (the next generation from the same spec) computes it afresh, so a
// schema is never reused across two runs of one emitter, and a spec's
// entries go when the spec is collected (gen --watch loads a new spec, with
// new tools, on every save).
var shared struct {
	sync.Mutex
	specs map[weak.Pointer[model.Spec]]map[*model.Tool]*sharedSchema
}

// sharedSchema is one tool's schema, computed by one consumer.
type sharedSchema struct {
	done chan struct{} // closed once data and err are set
	data []byte
	err  error
	read [consumers]bool
}

// SharedSchema returns Schema(t), t being a tool of s, for consumer c: the
// schema the other consumer computed from the same s for its current run,
// if it did and has not handed it to c already, else one c computes (and
// leaves for the other). The result must not be modified.
func SharedSchema(s *model.Spec, t *model.Tool, c Consumer) ([]byte, error) {
	e, compute := claim(s, t, c)
	if compute {
		defer close(e.done) // even if Schema panics, the other consumer is not left waiting
		e.data, e.err = Schema(t)
	} else {
		<-e.done
	}
	return e.data, e.err
}

// claim returns t's entry for consumer c, and whether c must compute it.
func claim(s *model.Spec, t *model.Tool, c Consumer) (*sharedSchema, bool) {
	shared.Lock()
	defer shared.Unlock()
	key := weak.Make(s)
	tools := shared.specs[key]
	if tools == nil {
		if shared.specs == nil {
			shared.specs = map[weak.Pointer[model.Spec]]map[*model.Tool]*sharedSchema{}
		}
		tools = map[*model.Tool]*sharedSchema{}
		shared.specs[key] = tools
		runtime.AddCleanup(s, forget, key)
	}
	if e := tools[t]; e != nil && !e.read[c] {
		e.read[c] = true
		if !slices.Contains(e.read[:], false) {
			delete(tools, t)
		}
		return e, false
	}
	e := &sharedSchema{done: make(chan struct{})}
	e.read[c] = true
	tools[t] = e
	return e, true
}

// forget drops a collected spec's entries.
func forget(key weak.Pointer[model.Spec]) {
	shared.Lock()
	defer shared.Unlock()
	delete(shared.specs, key)
}
