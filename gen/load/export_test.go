package load

// SkipEmitChecks turns off the checks that mirror the emitters (for the
// test that proves each such broken case is one an emitter rejects).
func SkipEmitChecks(skip bool) { skipEmitChecks = skip }

// CrossCheck sets the hook each fast path reports its result to, together
// with what the general way finds (nil turns it off).
func CrossCheck(f func(what string, fast, slow any)) { crossCheck = f }
