package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
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
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x20 || c == 0x7f {
			return what + " must not hold control characters (U+0000-U+001F, U+007F)"
		}
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
	for i := 0; i < len(fp); i++ {
		if c := fp[i]; c <= 0x20 || c >= 0x7f {
			return fmt.Sprintf("the %s header must be printable ASCII", FingerprintHeader)
		}
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

// parseCallbackBody checks the body {tool_call_id, args}, read as
// JSON.parse reads it (keys case-sensitive, the last of a repeated key
// counting, other keys ignored), and returns tool_call_id, the text of
// args and args' canonical digest — or a message saying what is wrong.
func parseCallbackBody(body []byte) (toolCallID string, args []byte, argsSum [sha256.Size]byte, msg string) {
	e, err := decodeEnvelope(body, MaxArgsDepth)
	switch {
	case err != nil:
		return "", nil, argsSum, "the body is not valid JSON: " + err.Error()
	case e.kind != kindObject:
		return "", nil, argsSum, "the body must be a JSON object {tool_call_id, args}"
	case e.tooDeep:
		return "", nil, argsSum, fmt.Sprintf("args nests deeper than %d objects and arrays (MaxArgsDepth)", MaxArgsDepth)
	case e.idKind != kindString:
		return "", nil, argsSum, "tool_call_id must be a string"
	}
	if msg := CheckToolCallID(e.id); msg != "" {
		return clip(e.id), nil, argsSum, msg
	}
	if e.argsKind != kindObject {
		return e.id, nil, argsSum, "args must be a JSON object"
	}
	return e.id, e.args, e.argsSum, ""
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
