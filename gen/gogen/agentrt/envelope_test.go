package agentrt

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// argsSum returns the canonical digest of the args of {"args": args}.
func argsSum(t *testing.T, args string) [32]byte {
	t.Helper()
	e, err := decodeEnvelope([]byte(`{"args":`+args+`}`), 64)
	if err != nil || e.argsKind != kindObject || e.tooDeep {
		t.Fatalf("decodeEnvelope(args %s) = %+v, %v", args, e, err)
	}
	return e.argsSum
}

// TestCanonicalArgs: args that JSON.parse reads as deep-equal JavaScript
// values have one digest; any difference in value gives another.
func TestCanonicalArgs(t *testing.T) {
	same := [][2]string{
		{`{"a":1,"b":"x"}`, `{"b":"x","a":1}`},
		{`{"a":1}`, " {\n\t\"a\" : 1 } "},
		{`{"a":1}`, `{"a":1.0}`},
		{`{"a":100}`, `{"a":1e2}`},
		{`{"a":0}`, `{"a":-0}`},
		{`{"a":1e400}`, `{"a":2e400}`},
		{`{"a":0.1}`, `{"a":0.10000000000000000001}`},
		{`{"a":2,"a":1}`, `{"a":1}`},
		{`{"a":{"c":[1,{"e":null,"d":true}]}}`, `{"a":{"c":[1,{"d":true,"e":null}]}}`},
		{`{"a":"é\n"}`, `{"\u0061":"\u00e9\u000a"}`},
		{`{"a":"😀"}`, `{"a":"\ud83d\ude00"}`},
		{"{\"a\":\"\xff\"}", `{"a":"\ufffd"}`}, // JSON.parse sees the bytes as UTF-8 decodes them
		{"{\"a\":\"\xff\"}", "{\"a\":\"\xfe\"}"},
		{`{}`, `{ }`},
	}
	for _, p := range same {
		if argsSum(t, p[0]) != argsSum(t, p[1]) {
			t.Errorf("%s and %s have different digests", p[0], p[1])
		}
	}
	differ := [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`{"a":1}`, `{"a":"1"}`},
		{`{"a":1}`, `{"a":1,"b":1}`},
		{`{"a":1}`, `{"A":1}`},
		{`{"a":1,"a":2}`, `{"a":1}`},
		{`{"a":[1,2]}`, `{"a":[2,1]}`},
		{`{"a":[[1],2]}`, `{"a":[1,[2]]}`},
		{`{"a":[]}`, `{"a":{}}`},
		{`{"a":null}`, `{"a":false}`},
		{`{"a":{}}`, `{"a":{"b":{}}}`},
		{`{"a":"x"}`, `{"a":"x "}`},
		{`{"a":"\ud800"}`, `{"a":"\udbff"}`},
		{`{"a":"\ud800"}`, `{"a":"\ufffd"}`},
		{`{"ab":"c"}`, `{"a":"bc"}`},
		{`{"a":"","b":""}`, `{"a":"\"b\":"}`},
	}
	for _, p := range differ {
		if argsSum(t, p[0]) == argsSum(t, p[1]) {
			t.Errorf("%s and %s have the same digest", p[0], p[1])
		}
	}
}

// TestDecodeEnvelope: keys are case-sensitive and decoded, the last of a
// repeated key counts, ids keep lone surrogates and invalid UTF-8 apart,
// and nesting beyond the limit is reported.
func TestDecodeEnvelope(t *testing.T) {
	for _, tc := range []struct {
		in               string
		kind, idKind, id string
		argsKind, args   string
		tooDeep          bool
	}{
		{in: `{"tool_call_id":"a","args":{"x":1}}`, kind: kindObject, idKind: kindString, id: "a", argsKind: kindObject, args: `{"x":1}`},
		{in: `{"TOOL_CALL_ID":"a","ARGS":{}}`, kind: kindObject, idKind: kindUndefined, argsKind: kindUndefined},
		{in: `{"Tool_Call_Id":"a","args":{}}`, kind: kindObject, idKind: kindUndefined, argsKind: kindObject, args: `{}`},
		{in: `{"tool\u005fcall_id":"a","args":{}}`, kind: kindObject, idKind: kindString, id: "a", argsKind: kindObject, args: `{}`},
		{in: `{"tool_call_id":"a","args":{"v":1},"tool_call_id":"b","args":{"v":2}}`, kind: kindObject, idKind: kindString, id: "b", argsKind: kindObject, args: `{"v":2}`},
		{in: `{"tool_call_id":"a","tool_call_id":7,"args":{},"args":[]}`, kind: kindObject, idKind: kindNumber, argsKind: kindArray},
		{in: `{"tool_call_id":"\ud800-x","args":{}}`, kind: kindObject, idKind: kindString, id: "\xed\xa0\x80-x", argsKind: kindObject, args: `{}`},
		{in: `{"tool_call_id":"\udbff-x","args":{}}`, kind: kindObject, idKind: kindString, id: "\xed\xaf\xbf-x", argsKind: kindObject, args: `{}`},
		{in: "{\"tool_call_id\":\"\xff-x\",\"args\":{}}", kind: kindObject, idKind: kindString, id: "\xff-x", argsKind: kindObject, args: `{}`},
		{in: `{"tool_call_id":"\ud83d\ude00","other":[[[{}]]],"args":{}}`, kind: kindObject, idKind: kindString, id: "😀", argsKind: kindObject, args: `{}`},
		{in: ` [1] `, kind: kindArray, idKind: kindUndefined, argsKind: kindUndefined},
		{in: `{"args":` + strings.Repeat(`{"a":`, 8) + `1` + strings.Repeat(`}`, 8) + `}`, kind: kindObject, idKind: kindUndefined, argsKind: kindObject, args: strings.Repeat(`{"a":`, 8) + `1` + strings.Repeat(`}`, 8)},
		{in: `{"args":` + strings.Repeat(`{"a":`, 9) + `1` + strings.Repeat(`}`, 9) + `}`, kind: kindObject, idKind: kindUndefined, argsKind: kindObject, tooDeep: true},
		{in: `{"args":{"a":` + strings.Repeat(`[`, 8) + strings.Repeat(`]`, 8) + `}}`, kind: kindObject, idKind: kindUndefined, argsKind: kindObject, tooDeep: true},
	} {
		e, err := decodeEnvelope([]byte(tc.in), 8)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if e.kind != tc.kind || e.idKind != tc.idKind || e.id != tc.id || e.argsKind != tc.argsKind || string(e.args) != tc.args || e.tooDeep != tc.tooDeep {
			t.Errorf("%s: got %+v", tc.in, e)
		}
	}
	for _, in := range []string{``, `{`, `{"args":{}`, `{"args":{}}x`, `{"tool_call_id":"a,"args":{}}`, `{"args":{"a":01}}`, `{"args":{"a" 1}}`, `{"args":{1:1}}`} {
		if _, err := decodeEnvelope([]byte(in), 8); err == nil {
			t.Errorf("%q: no syntax error", in)
		}
	}
}

// BenchmarkEnvelope measures decodeEnvelope (one pass: the envelope, the
// id and the canonical digest of args) against what the route did before
// with encoding/json (Unmarshal into RawMessages, the id, Compact of
// args, SHA-256), on the same body in one run, and reports the ratio
// (envelope/encoding-json-throughput: above 1 = faster).
func BenchmarkEnvelope(b *testing.B) {
	body := []byte(`{"tool_call_id":"toolu_01A09q90qw90lq917835lq9","args":{"commands":[{"name":"web","command":"npm run dev","cwd":"app"},{"name":"worker","command":"npm run worker"}],"note":"café \u00e9 ok"}}`)
	old := func() {
		var raw struct {
			ToolCallID json.RawMessage `json:"tool_call_id"`
			Args       json.RawMessage `json:"args"`
		}
		var id string
		if json.Unmarshal(body, &raw) != nil || json.Unmarshal(raw.ToolCallID, &id) != nil {
			b.Fatal("encoding/json failed")
		}
		var buf bytes.Buffer
		json.Compact(&buf, raw.Args)
		sha256.Sum256(buf.Bytes())
	}
	cur := func() {
		if e, err := decodeEnvelope(body, 512); err != nil || e.argsKind != kindObject {
			b.Fatal("decodeEnvelope failed")
		}
	}
	var tOld, tCur time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i += 1000 {
		n := min(1000, b.N-i)
		t0 := time.Now()
		for range n {
			old()
		}
		t1 := time.Now()
		for range n {
			cur()
		}
		tOld += t1.Sub(t0)
		tCur += time.Since(t1)
	}
	b.ReportMetric(float64(tCur.Nanoseconds())/float64(b.N), "envelope-ns/op")
	b.ReportMetric(float64(tOld.Nanoseconds())/float64(b.N), "encoding-json-ns/op")
	b.ReportMetric(tOld.Seconds()/tCur.Seconds(), "envelope/encoding-json-throughput")
}

var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// FuzzEnvelope: decodeEnvelope never panics, accepts exactly the JSON
// that encoding/json accepts, and gives args the digest of their
// re-encoding by encoding/json (a map: keys sorted, the last repeated key
// kept; numbers as doubles; escapes rewritten) — except where encoding/json
// reads a string otherwise than JSON.parse: a lone surrogate escape, and
// invalid UTF-8 (one U+FFFD per byte, where a UTF-8 decoder makes one per
// maximal subpart).
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"tool_call_id":"a","args":{"b":1,"a":[1.0,{"y":null,"x":"\u00e9"}]}}`,
		`{"args":{"a":1,"a":2,"b":{"c":-0,"d":1e400}}}`,
		`{"args":{"k":"\ud83d\ude00","l":"<&>","m":[[],{}],"n":true,"o":false}}`,
		"{\"args\":{\"\xff\":\"\xe0\x80\"}}",
		`{"TOOL_CALL_ID":1,"args":[]}`, `[1,2]`, `"x"`, `{"args":{"a":}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := decodeEnvelope(body, 64)
		if e.tooDeep {
			return
		}
		if (err == nil) != json.Valid(body) {
			t.Fatalf("decodeEnvelope error %v, json.Valid %v", err, json.Valid(body))
		}
		if err != nil || e.argsKind != kindObject || surrogateEscape.Match(body) || !utf8.Valid(body) {
			return
		}
		var v any
		if err := json.Unmarshal(e.args, &v); err != nil {
			return // a number beyond the double range
		}
		again, err := json.Marshal(v)
		if err != nil {
			return // an infinite number
		}
		e2, err := decodeEnvelope(append(append([]byte(`{"args":`), again...), '}'), 64)
		if err != nil || e2.argsSum != e.argsSum {
			t.Fatalf("args %s and their re-encoding %s have different digests (%v)", e.args, again, err)
		}
	})
}

// TestRequestHash: another transport's RequestHash is the callback
// route's hash of the same call (so a retry through either transport is
// the same call), ignores what JSON.parse ignores, and hashes args that
// are not one JSON object within MaxArgsDepth as their bytes.
func TestRequestHash(t *testing.T) {
	args := `{"b":[1,{"c":"\u00e9"}],"a":null}`
	_, _, sum, msg := parseCallbackBody([]byte(`{"tool_call_id":"x","args":` + args + `}`))
	if msg != "" {
		t.Fatal(msg)
	}
	h := RequestHash("save_snapshot", []byte(args))
	if want := requestHash("save_snapshot", sum); h != want {
		t.Errorf("RequestHash = %s, the route's hash %s", h, want)
	}
	if again := RequestHash("save_snapshot", []byte(` {"a":null, "b":[1.0,{"c":"é"}]} `)); again != h {
		t.Errorf("RequestHash of the same args respelled = %s, want %s", again, h)
	}
	if other := RequestHash("verify", []byte(args)); other == h {
		t.Error("RequestHash of another tool's call is the same")
	}
	deep := strings.Repeat("[", MaxArgsDepth) + strings.Repeat("]", MaxArgsDepth)
	for _, raw := range []string{`[1]`, `"x"`, `{"a":1`, `{"a":1}x`, `{"a":` + deep + `}`} {
		if got, want := RequestHash("verify", []byte(raw)), requestHash("verify", sha256.Sum256([]byte(raw))); got != want {
			t.Errorf("RequestHash(%.40s) = %s, want the hash of its bytes %s", raw, got, want)
		}
	}
}
