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

// argsSum returns the canonical digest of args in a callback's body.
func argsSum(t *testing.T, args string) [32]byte {
	t.Helper()
	_, got, sum, msg := parseCallbackBody([]byte(`{"tool_call_id":"a","args":` + args + `}`))
	if msg != "" || string(got) != strings.TrimSpace(args) {
		t.Fatalf("parseCallbackBody(args %s) = args %s, %q", args, got, msg)
	}
	return sum
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

// TestParseCallbackBody: keys are case-sensitive and decoded, the last of
// a repeated key counts, an id holding a lone surrogate or invalid UTF-8
// is refused, nesting beyond MaxArgsDepth is reported, and a number that
// breaks JSON's grammar inside args is a syntax error.
func TestParseCallbackBody(t *testing.T) {
	const notJSON, noID, noArgs = "the body is not valid JSON: ", "tool_call_id must be a string", "args must be a JSON object"
	// objects is n objects nested in one another.
	objects := func(n int) string { return strings.Repeat(`{"b":`, n) + `1` + strings.Repeat(`}`, n) }
	for _, tc := range []struct {
		in, id, args, msg string
	}{
		{in: `{"tool_call_id":"a","args":{"x":1}}`, id: "a", args: `{"x":1}`},
		{in: `{"TOOL_CALL_ID":"a","args":{}}`, msg: noID},
		{in: `{"tool_call_id":"a","ARGS":{}}`, id: "a", msg: noArgs},
		{in: `{"tool\u005fcall_id":"a","\u0061rgs":{}}`, id: "a", args: `{}`},
		{in: `{"tool_call_id":"a","args":{"v":1},"tool_call_id":"b","args":{"v":2}}`, id: "b", args: `{"v":2}`},
		{in: `{"tool_call_id":"a","tool_call_id":7,"args":{}}`, msg: noID},
		{in: `{"tool_call_id":"a","args":{},"args":[]}`, id: "a", msg: noArgs},
		{in: `{"tool_call_id":"\ud83d\ude00","other":[[[{}]]],"args":{}}`, id: "😀", args: `{}`},
		{in: `{"tool_call_id":"\ud800-x","args":{}}`, id: `"\xed\xa0\x80-x"`, msg: "tool_call_id must be Unicode text"},
		{in: "{\"tool_call_id\":\"\xff-x\",\"args\":{}}", id: `"\xff-x"`, msg: "tool_call_id must be Unicode text"},
		{in: ` [1] `, msg: "the body must be a JSON object"},
		{in: `{"tool_call_id":"a","args":` + objects(MaxArgsDepth) + `}`, id: "a", args: objects(MaxArgsDepth)},
		{in: `{"tool_call_id":"a","args":` + objects(MaxArgsDepth+1) + `}`, msg: "args nests deeper than 512"},
		{in: `{"tool_call_id":"a","args":{"a":` + strings.Repeat(`[`, MaxArgsDepth) + strings.Repeat(`]`, MaxArgsDepth) + `}}`,
			msg: "args nests deeper than 512"},
	} {
		id, args, _, msg := parseCallbackBody([]byte(tc.in))
		if id != tc.id || string(args) != tc.args || !strings.HasPrefix(msg, tc.msg) || (tc.msg == "") != (msg == "") {
			t.Errorf("%.80s: got id %q, args %.40s, %q", tc.in, id, args, msg)
		}
	}
	for _, in := range []string{``, `{`, `{"args":{}`, `{"args":{}}x`, `{"tool_call_id":"a,"args":{}}`, `{"args":{"a":01}}`,
		`{"args":{"a" 1}}`, `{"args":{1:1}}`, `{"args":{"a":-}}`, `{"args":{"a":1.}}`, `{"args":{"a":1e+}}`} {
		if _, _, _, msg := parseCallbackBody([]byte(in)); !strings.HasPrefix(msg, notJSON) {
			t.Errorf("%q: %q, want a syntax error", in, msg)
		}
	}
}

// BenchmarkEnvelope measures parseCallbackBody (one pass: the envelope, the
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
		if _, args, _, msg := parseCallbackBody(body); msg != "" || args == nil {
			b.Fatal("parseCallbackBody failed:", msg)
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

// FuzzEnvelope: parseCallbackBody never panics and accepts exactly the
// JSON that encoding/json accepts; and a JSON object, as args, has the
// digest of its re-encoding by encoding/json (a map: keys sorted, the last
// repeated key kept; numbers as doubles; escapes rewritten) — except where
// encoding/json reads a string otherwise than JSON.parse: a lone surrogate
// escape, and invalid UTF-8 (one U+FFFD per byte, where a UTF-8 decoder
// makes one per maximal subpart).
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"tool_call_id":"a","args":{"b":1,"a":[1.0,{"y":null,"x":"\u00e9"}]}}`,
		`{"a":1,"a":2,"b":{"c":-0,"d":1e400}}`,
		`{"k":"\ud83d\ude00","l":"<&>","m":[[],{}],"n":true,"o":false}`,
		"{\"\xff\":\"\xe0\x80\"}",
		`{"TOOL_CALL_ID":1,"args":[]}`, `[1,2]`, `"x"`, `{"args":{"a":}}`,
	} {
		f.Add([]byte(s))
	}
	// sum is the digest of args, false when the route refuses them.
	sum := func(args []byte) ([32]byte, bool) {
		_, _, s, msg := parseCallbackBody(append(append([]byte(`{"tool_call_id":"a","args":`), args...), '}'))
		return s, msg == ""
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _, _, msg := parseCallbackBody(body)
		notJSON := strings.HasPrefix(msg, "the body is not valid JSON")
		if notJSON == json.Valid(body) && !strings.HasPrefix(msg, "args nests deeper") {
			t.Fatalf("parseCallbackBody: %q, json.Valid %v", msg, json.Valid(body))
		}
		digest, ok := sum(body)
		if !ok || surrogateEscape.Match(body) || !utf8.Valid(body) {
			return
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return // a number beyond the double range
		}
		again, err := json.Marshal(v)
		if err != nil {
			return // an infinite number
		}
		if d2, ok := sum(again); !ok || d2 != digest {
			t.Fatalf("args %s and their re-encoding %s have different digests", body, again)
		}
	})
}

// TestRequestHash: another transport's RequestHash is the callback
// route's hash of the same call (so a retry through either transport is
// the same call), ignores what JSON.parse ignores, and hashes args that
// are not one JSON object as their bytes; args nested deeper than
// MaxArgsDepth get the route's message for them and no hash.
func TestRequestHash(t *testing.T) {
	args := `{"b":[1,{"c":"\u00e9"}],"a":null}`
	_, _, sum, msg := parseCallbackBody([]byte(`{"tool_call_id":"x","args":` + args + `}`))
	if msg != "" {
		t.Fatal(msg)
	}
	h, _ := RequestHash("save_snapshot", []byte(args))
	if want := requestHash("save_snapshot", sum); h != want {
		t.Errorf("RequestHash = %s, the route's hash %s", h, want)
	}
	if again, _ := RequestHash("save_snapshot", []byte(` {"a":null, "b":[1.0,{"c":"é"}]} `)); again != h {
		t.Errorf("RequestHash of the same args respelled = %s, want %s", again, h)
	}
	if other, _ := RequestHash("verify", []byte(args)); other == h {
		t.Error("RequestHash of another tool's call is the same")
	}
	deep := strings.Repeat("[", MaxArgsDepth) + strings.Repeat("]", MaxArgsDepth)
	for _, raw := range []string{`[1]`, `"x"`, `{"a":1`, `{"a":1}x`, `[` + deep + `]`} {
		if got, msg := RequestHash("verify", []byte(raw)); got != requestHash("verify", sha256.Sum256([]byte(raw))) || msg != "" {
			t.Errorf("RequestHash(%.40s) = %s, %q; want the hash of its bytes", raw, got, msg)
		}
	}
	_, _, _, routeMsg := parseCallbackBody([]byte(`{"tool_call_id":"x","args":{"a":` + deep + `}}`))
	if got, msg := RequestHash("verify", []byte(`{"a":`+deep+`}`)); got != "" || msg != routeMsg || msg == "" {
		t.Errorf("RequestHash of args too deep = %s, %q; want the route's message %q", got, msg, routeMsg)
	}
}
