package agentrt

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The callback route's limits on what a caller sends, besides
// MaxToolCallIDLength and RouteConfig.MaxBodyBytes. Each is checked before
// the Store (or Sessions) is asked anything, so that a request that can
// never succeed is answered 400 with a message naming the limit, the same
// whatever the Store — never a 5xx that invites a retry.
const (
	// MaxSessionIDLength bounds the session id of the path, in bytes after
	// unescaping. With MaxToolCallIDLength it keeps an SQLStore key well
	// under PostgreSQL's btree entry limit (2,704 bytes).
	MaxSessionIDLength = 512
	// MaxFingerprintLength bounds the value of FingerprintHeader, in
	// bytes; it must also be printable ASCII. A fingerprint that differs
	// from the gateway's is quoted in the call's result, and stored with it.
	MaxFingerprintLength = 128
	// MaxArgsDepth bounds the nesting of args, in objects and arrays (args
	// itself is one).
	MaxArgsDepth = 512
)

// checkID returns what is wrong with a session id or tool_call_id, or "".
// An id must be 1 to max bytes of Unicode text without control characters.
// Ids compare byte for byte, which is as JavaScript compares them for
// exactly such text; a lone surrogate escape ("\ud800") or invalid UTF-8
// is rejected rather than read as U+FFFD, which would make distinct ids
// equal.
func checkID(what, id string, max int, limit string) string {
	switch {
	case id == "":
		return what + " must not be empty"
	case len(id) > max:
		return fmt.Sprintf("%s is longer than %d bytes (%s)", what, max, limit)
	case !utf8.ValidString(id):
		return what + " must be Unicode text: it holds a lone surrogate (\\ud800-\\udfff) or invalid UTF-8"
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return what + " must not hold control characters (U+0000-U+001F, U+007F)"
	}
	return ""
}

// checkFingerprint returns what is wrong with FingerprintHeader's value,
// or "". An absent header is fine.
func checkFingerprint(fp string) string {
	if len(fp) > MaxFingerprintLength {
		return fmt.Sprintf("the %s header is longer than %d bytes (MaxFingerprintLength)",
			FingerprintHeader, MaxFingerprintLength)
	}
	if strings.ContainsFunc(fp, func(r rune) bool { return r <= 0x20 || r >= 0x7f }) { // U+FFFD for invalid UTF-8
		return fmt.Sprintf("the %s header must be printable ASCII", FingerprintHeader)
	}
	return ""
}

// clip shortens a rejected id for the log record.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.QuoteToASCII(s[:max]) + "..."
	}
	return strconv.QuoteToASCII(s)
}

// parseCallbackBody reads the body {tool_call_id, args} in one pass, as
// JSON.parse reads it: keys are case-sensitive (after their escapes are
// decoded), the last of a repeated key counts, and other keys are ignored.
// It returns tool_call_id, the text of args and args' canonical digest
// (see canonizer) — or a message saying what is wrong. The id is read with
// a lone surrogate escape kept as its WTF-8 bytes and invalid UTF-8 as it
// is, so that CheckToolCallID refuses both.
func parseCallbackBody(body []byte) (toolCallID string, args []byte, argsSum [sha256.Size]byte, msg string) {
	d := Decoder{data: body}
	idIsString := false
	_, isObject := d.Object([]string{"tool_call_id", "args"}, nil, func(i int) {
		if i == 0 {
			toolCallID, idIsString = "", d.peek() == '"'
			if idIsString {
				id, _ := d.readString(strLoneSurrogates | strInvalidBytes)
				toolCallID = string(id)
			} else {
				d.skip()
			}
			return
		}
		args = nil
		if d.peek() != '{' {
			d.skip()
			return
		}
		start := d.pos
		if argsSum, msg = argsDigest(&d); msg == "" {
			args = body[start:d.pos]
		}
	})
	if msg != "" {
		return "", nil, argsSum, msg
	}
	d.End() // a syntax error for data after the body; its one issue, a body not an object, is told below
	switch {
	case d.err != nil:
		return "", nil, argsSum, "the body is not valid JSON: " + d.err.Error()
	case !isObject:
		return "", nil, argsSum, "the body must be a JSON object {tool_call_id, args}"
	case !idIsString:
		return "", nil, argsSum, "tool_call_id must be a string"
	}
	if msg := CheckToolCallID(toolCallID); msg != "" {
		return clip(toolCallID), nil, argsSum, msg
	}
	if args == nil {
		return toolCallID, nil, argsSum, "args must be a JSON object"
	}
	return toolCallID, args, argsSum, ""
}

// requestHash identifies a call's content, so that a tool_call_id reused
// for another call is detected: the tool's name and the canonical digest
// of its args. Two calls have the same arguments when JSON.parse reads
// them as deep-equal JavaScript values: key order, whitespace, escapes,
// number spelling (1, 1.0, 1e0) and an overwritten repeated key do not
// count; every key, known to the tool's schema or not, does. The hash does
// not depend on the schema, so that it stays valid across deployments.
func requestHash(tool string, argsSum [sha256.Size]byte) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(argsSum[:])
	return hex.EncodeToString(h.Sum(nil))
}

// argsDigest reads the object at d's position (which holds '{') with a
// canonizer: its digest, or the message for an object nested deeper than
// MaxArgsDepth.
func argsDigest(d *Decoder) (sum [sha256.Size]byte, tooDeep string) {
	c := canonizer{d: d, h: sha256.New()}
	if c.value(0); c.tooDeep {
		return sum, fmt.Sprintf("args nests deeper than %d objects and arrays (MaxArgsDepth)", MaxArgsDepth)
	}
	if d.err == nil {
		copy(sum[:], c.buf[1:]) // the object's encoding: '{' and its digest
	}
	return sum, ""
}

// canonizer writes a canonical encoding of a JSON value: two JSON texts
// get the same encoding exactly when JSON.parse reads them (after the
// bytes are decoded as UTF-8, invalid sequences as U+FFFD) as deep-equal
// JavaScript values. Object members are compared as a set keyed by name,
// the last of a repeated name counting; strings by their UTF-16 code
// units; numbers by their double value (1, 1.0 and 1e0 are one number, -0
// is 0, numbers beyond the double range are ±Infinity); whitespace and
// escapes do not count. Each object is replaced, when it ends, by the
// SHA-256 digest of its sorted members, so the work is linear in the input
// at any nesting.
type canonizer struct {
	d *Decoder
	// tooDeep is set, and decoding stops with a syntax error, at an
	// object or array nested deeper than MaxArgsDepth.
	tooDeep bool
	// buf holds the encoding of the values being read; members the spans
	// of the open objects' members in buf, innermost last.
	buf     []byte
	members []canonMember
	h       hash.Hash
}

// canonMember is an object member's encoding in buf: its name at
// buf[key:val], then its value up to end.
type canonMember struct{ key, val, end int }

// value appends the encoding of the value at pos, at the given nesting
// depth, to buf. After a syntax error (d.err), what it appended is not an
// encoding; d.next then ends every open container's loop.
func (c *canonizer) value(depth int) {
	d := c.d
	start := len(c.buf)
	switch ch := d.peek(); ch {
	case '{', '[':
		if depth >= MaxArgsDepth {
			c.tooDeep = true
			d.fail("args nested too deep")
			return
		}
		if ch == '[' {
			more, _ := d.open('[', kindArray)
			c.buf = append(c.buf, '[')
			for more {
				c.value(depth + 1)
				more = d.next(']')
			}
			c.buf = append(c.buf, ']')
			return
		}
		more, _ := d.open('{', kindObject)
		first := len(c.members)
		for more {
			m := canonMember{key: len(c.buf)}
			c.str(d.key(strLoneSurrogates))
			m.val = len(c.buf)
			c.value(depth + 1)
			m.end = len(c.buf)
			c.members = append(c.members, m)
			more = d.next('}')
		}
		if d.err != nil {
			return
		}
		ms := c.members[first:]
		buf := c.buf
		// The last of a repeated name counts, as in JSON.parse.
		slices.SortStableFunc(ms, func(a, b canonMember) int { return bytes.Compare(buf[a.key:a.val], buf[b.key:b.val]) })
		c.h.Reset()
		c.h.Write([]byte{'{'})
		for i, m := range ms {
			if i+1 < len(ms) && bytes.Equal(buf[m.key:m.val], buf[ms[i+1].key:ms[i+1].val]) {
				continue
			}
			c.h.Write(buf[m.key:m.end])
		}
		c.members = c.members[:first]
		c.buf = append(c.buf[:start], '{')
		c.buf = c.h.Sum(c.buf)
	case '"':
		s, _ := d.readString(strLoneSurrogates)
		c.str(s)
	case 't', 'f', 'n':
		d.literal(ch)
		c.buf = append(c.buf, ch)
	default:
		if ch != '-' && (ch < '0' || ch > '9') {
			d.fail("unexpected character")
			return
		}
		f, _ := d.number()
		if f == 0 {
			f = 0 // -0 is 0
		}
		c.buf = binary.BigEndian.AppendUint64(append(c.buf, '0'), math.Float64bits(f))
	}
}

// str appends the encoding of a string's text, read with lone surrogates
// kept (strLoneSurrogates): its length, then the text.
func (c *canonizer) str(s []byte) {
	c.buf = binary.AppendUvarint(append(c.buf, '"'), uint64(len(s)))
	c.buf = append(c.buf, s...)
}
