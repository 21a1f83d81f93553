package load

import (
	"cuelang.org/go/cue"

	"github.com/agentc-dev/agentc/gen/model"
)

// LoadWithoutEmitChecks is Load without the checks that mirror the
// emitters (for the test that proves each such broken case is one an
// emitter rejects).
func LoadWithoutEmitChecks(src *Source) (*model.Spec, error) {
	l := &loader{
		src:      src,
		clashed:  map[*model.Tool]bool{},
		exprMemo: map[cue.Value]exprResult{},
	}
	v, err := l.evaluate()
	if err != nil {
		return nil, err
	}
	s := l.build(v)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}
