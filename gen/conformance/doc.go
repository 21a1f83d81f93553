// Package conformance holds agentc's cross-language conformance suite: one
// corpus of argument inputs (testdata/corpus), run through three executors
// — the generated Go decoders (generated/go/contract), the generated zod
// schemas under node (testdata/zodrunner.js, one long-lived process), and
// CUE's own evaluation of the spec — with zero disagreements allowed on
// accept/reject and byte-identical issue lists between Go and zod. It also
// holds the differential fuzz target and the benchmarks against zod 4,
// encoding/json + jsonschema/v6, and CUE.
//
// A second corpus, testdata/corpus/coverage, runs the same three-way
// comparison on the coverage spec (gen/tsgen/testdata/coverage), which has
// what the default spec lacks: numbers and ints with inclusive and
// exclusive bounds, patterns RE2 and ECMAScript read differently, a named
// check with =~ and !~, enums, literals, defaults and quoted keys. Its Go
// decoders are generated in memory, built once into a small program in a
// temporary module and run as one long-lived process. Inputs on which the
// executors are known to differ are listed, with the reason, in
// knownDisagreements.
//
// Decoded data are compared after canonical JSON encoding; a negative zero
// is kept distinct from 0 (zodrunner.js marks it), except at integer
// positions, where Go's integers have no -0.
//
// Input normalisation for CUE (CUE has one arbitrary-precision number type
// and no Infinity): the JSON is first parsed as JavaScript parses it —
// numbers become the nearest double, duplicate keys keep the last value,
// lone surrogates become U+FFFD — and then a number that is an integer
// within ±(2^53−1) is given to CUE as an int, any other finite number as a
// float (so `int` rejects 1.5 and 1e20, as zod's .int() does), and a
// non-finite one (1e400) as null, which no argument type accepts (zod
// rejects Infinity). Unknown keys need no stripping: argument structs are
// open in CUE.
package conformance
