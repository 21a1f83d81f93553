// Package emitbench measures the registered emitters on synthetic specs
// (BenchmarkEmitters): each emitter alone, the non-Go emitters together
// as one gen runs them, and all of them through emit.Generate. It holds
// no code of its own; it exists so that the benchmark's test binary
// registers exactly the emitters agentc ships.
package emitbench
