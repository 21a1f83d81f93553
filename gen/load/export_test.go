package load

// SkipEmitChecks turns off the checks that mirror the emitters (for the
// test that proves each such broken case is one an emitter rejects).
func SkipEmitChecks(skip bool) { skipEmitChecks = skip }
