package load

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agentc-dev/agentc/gen/jsonwrite"
	"github.com/agentc-dev/agentc/gen/model"
)

// fingerprint hashes the tool's wire contract: its name and argument schema
// without docs, positions or generated names.
//
// Each type is hashed as the JSON encoding/json gives a struct of its
// constraints (fingerprintSlow, which the generated code's fingerprints
// were first made with); appendTypeJSON writes the same bytes without
// reflection, the cost of every tool of a large spec. Under crossCheck the
// two are compared.
func fingerprint(t *model.Tool) string {
	fp, _ := appendFingerprint(nil, t)
	return fp
}

// appendFingerprint is fingerprint hashing the bytes it appends to buf,
// which it returns for the next tool: at a thousand tools, the buffer
// grown once for each was most of what fingerprints allocated.
func appendFingerprint(buf []byte, t *model.Tool) (string, []byte) {
	buf = append(buf, t.Name...)
	buf = append(buf, '\n')
	buf = appendTypeTree(buf, t.Args)
	sum := sha256.Sum256(buf)
	fp := hex.EncodeToString(sum[:8])
	if crossCheck != nil {
		crossCheck("fingerprint of "+t.Name, fp, fingerprintSlow(t))
	}
	return fp, buf
}

// appendTypeTree appends what fingerprints hash of t and the types below
// it.
func appendTypeTree(buf []byte, t *model.Type) []byte {
	if t == nil {
		return buf
	}
	buf = appendTypeJSON(buf, t)
	buf = appendTypeTree(buf, t.Items)
	for _, f := range t.Fields {
		buf = append(buf, '\n')
		buf = strconv.AppendQuote(buf, f.Name)
		buf = append(buf, ' ')
		buf = append(buf, f.Presence...)
		buf = append(buf, ' ')
		buf = append(buf, f.Default...)
		buf = append(buf, ':')
		buf = appendTypeTree(buf, f.Type)
	}
	return append(buf, '\n')
}

// fingerprintSlow is fingerprint by encoding/json and fmt.
func fingerprintSlow(t *model.Tool) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", t.Name)
	var enc func(t *model.Type)
	enc = func(t *model.Type) {
		if t == nil {
			return
		}
		h.Write(typeJSONSlow(t))
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

// typeJSONSlow is the JSON of t's constraints as fingerprints hash it;
// nil when encoding/json refuses it (a bound that is not a number).
func typeJSONSlow(t *model.Type) []byte {
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

// appendTypeJSON appends what typeJSONSlow returns for t.
func appendTypeJSON(buf []byte, t *model.Type) []byte {
	for _, b := range []*model.Bound{t.Minimum, t.Maximum} {
		if b != nil && !jsonwrite.ValidNumber(boundNumber(b)) {
			return buf // encoding/json fails, and nothing is hashed
		}
	}
	buf = append(buf, `{"K":`...)
	buf = appendJSONString(buf, string(t.Kind))
	buf = append(buf, `,"Min":`...)
	buf = appendIntPtr(buf, t.MinLength)
	buf = append(buf, `,"Max":`...)
	buf = appendIntPtr(buf, t.MaxLength)
	buf = append(buf, `,"P":`...)
	buf = appendPatterns(buf, t.Patterns)
	buf = append(buf, `,"C":`...)
	buf = appendCheckNames(buf, t.Checks)
	buf = append(buf, `,"Lo":`...)
	buf = appendBound(buf, t.Minimum)
	buf = append(buf, `,"Hi":`...)
	buf = appendBound(buf, t.Maximum)
	buf = append(buf, `,"E":`...)
	buf = appendJSONStrings(buf, t.Enum)
	buf = append(buf, `,"L":`...)
	buf = appendJSONString(buf, t.Literal)
	buf = append(buf, `,"MinI":`...)
	buf = appendIntPtr(buf, t.MinItems)
	buf = append(buf, `,"MaxI":`...)
	buf = appendIntPtr(buf, t.MaxItems)
	return append(buf, '}')
}

func appendIntPtr(buf []byte, n *int) []byte {
	if n == nil {
		return append(buf, "null"...)
	}
	return strconv.AppendInt(buf, int64(*n), 10)
}

func appendBound(buf []byte, b *model.Bound) []byte {
	if b == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, `{"Value":`...)
	buf = append(buf, boundNumber(b)...)
	buf = append(buf, `,"Exclusive":`...)
	buf = strconv.AppendBool(buf, b.Exclusive)
	return append(buf, '}')
}

// boundNumber is how encoding/json writes a bound's json.Number.
func boundNumber(b *model.Bound) string {
	if b.Value == "" {
		return "0"
	}
	return string(b.Value)
}

// appendJSONStrings appends ss as encoding/json writes a []string.
func appendJSONStrings(buf []byte, ss []string) []byte {
	if ss == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '[')
	for i, s := range ss {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, s)
	}
	return append(buf, ']')
}

// appendPatterns appends what appendJSONStrings does for patterns(ps).
func appendPatterns(buf []byte, ps []model.Pattern) []byte {
	if len(ps) == 0 {
		return append(buf, "null"...) // patterns returns nil
	}
	buf = append(buf, '[')
	for i, p := range ps {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, p.Regexp)
	}
	return append(buf, ']')
}

// appendCheckNames appends what appendJSONStrings does for checkNames(cs).
func appendCheckNames(buf []byte, cs []*model.Check) []byte {
	if len(cs) == 0 {
		return append(buf, "null"...) // checkNames returns nil
	}
	buf = append(buf, '[')
	var name []byte
	for i, c := range cs {
		if i > 0 {
			buf = append(buf, ',')
		}
		name = append(name[:0], c.Name...)
		name = append(name, ':')
		name = appendJoined(name, c.Reject)
		name = append(name, ':')
		name = appendJoined(name, c.Match)
		buf = appendJSONString(buf, string(name))
	}
	return append(buf, ']')
}

// appendJoined appends the patterns' regular expressions joined by commas.
func appendJoined(buf []byte, ps []model.Pattern) []byte {
	for i, p := range ps {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, p.Regexp...)
	}
	return buf
}

// appendJSONString appends s as encoding/json writes a string: as it is,
// quoted, when no byte of it needs an escape, and by encoding/json
// otherwise.
func appendJSONString(buf []byte, s string) []byte {
	if !jsonwrite.MarshalsAsIs(s) {
		b, _ := json.Marshal(s)
		return append(buf, b...)
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}
