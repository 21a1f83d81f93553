package load

import "github.com/agentc-dev/agentc/gen/model"

// LoadWithoutEmitChecks is Load without the checks that mirror the
// emitters (for the test that proves each such broken case is one an
// emitter rejects).
func LoadWithoutEmitChecks(src *Source) (*model.Spec, error) { return load(src, false) }

// FirstDifference is firstDifference, the first line where two files
// differ (for the test that the metaschema is as cue fmt formats it).
func FirstDifference(a, b []byte) int { return firstDifference(a, b) }
