package load

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentc-dev/agentc/gen/model"
)

// fingerprint hashes the tool's wire contract: its name and argument schema
// without docs, positions or generated names. Each type is hashed as the
// JSON encoding/json gives a struct of its constraints.
func fingerprint(t *model.Tool) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", t.Name)
	var enc func(t *model.Type)
	enc = func(t *model.Type) {
		if t == nil {
			return
		}
		h.Write(typeJSON(t))
		enc(t.Items)
		for _, f := range t.Fields {
			fmt.Fprintf(h, "\n%q %s %s:", f.Name, f.Presence, f.Default)
			enc(f.Type)
		}
		h.Write([]byte{'\n'})
	}
	enc(t.Args)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// typeJSON is the JSON of t's constraints as fingerprints hash it; nil when
// encoding/json refuses it (a bound that is not a number).
func typeJSON(t *model.Type) []byte {
	b, _ := json.Marshal(struct {
		K          model.Kind
		Min, Max   *int
		P          []string
		C          []string
		Lo, Hi     *model.Bound
		E          []string
		L          string
		MinI, MaxI *int
	}{t.Kind, t.MinLength, t.MaxLength, patterns(t.Patterns), checkNames(t.Checks), t.Minimum, t.Maximum, t.Enum, t.Literal, t.MinItems, t.MaxItems})
	return b
}

func patterns(ps []model.Pattern) []string {
	return each(ps, func(p model.Pattern) string { return p.Regexp })
}

func checkNames(cs []*model.Check) []string {
	return each(cs, func(c *model.Check) string {
		return c.Name + ":" + strings.Join(patterns(c.Reject), ",") + ":" + strings.Join(patterns(c.Match), ",")
	})
}
