// Package conformance holds agentc's cross-language conformance suite: one
// corpus of argument inputs (testdata/corpus), run through three executors
// — the generated Go decoders (generated/go/contract), the generated zod
// schemas under node (testdata/zodrunner.js, one long-lived process), and
// CUE's own evaluation of the spec — with zero disagreements allowed on
// accept/reject and byte-identical issue lists between Go and zod. It also
// holds the differential fuzz target and the benchmarks against zod 4,
// encoding/json + jsonschema/v6, and CUE.
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
