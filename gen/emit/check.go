package emit

import (
	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/model"
)

// CheckFunc reports, each at its position in the spec, what an emitter
// would reject. The loader runs every registered check once the model is
// built, so that `agentc vet` finds everything `agentc gen` would fail on;
// the emitter keeps failing on the same findings as a backstop.
type CheckFunc func(s *model.Spec) diag.List

var checks []CheckFunc

// RegisterCheck adds an emitter's check. Emitter packages call it from
// init, next to Register.
func RegisterCheck(c CheckFunc) { checks = append(checks, c) }

// Check runs every registered check on s and returns their findings.
func Check(s *model.Spec) diag.List {
	var out diag.List
	for _, c := range checks {
		out = append(out, c(s)...)
	}
	return out
}
