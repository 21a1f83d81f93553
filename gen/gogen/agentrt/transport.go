package agentrt

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// RequestHash is the Invocation.RequestHash of a call of tool (its name, not
// an alias) with the JSON arguments args, exactly as the callback route
// computes it: two calls have the same hash when JSON.parse reads their
// args as deep-equal values (see requestHash). Another transport over the
// same Store (the MCP server, package agentmcp) uses it, so that a call made
// through one transport and retried through the other, with the same
// session and tool_call_id, is recognised as the same call and executed
// once. For args nested deeper than MaxArgsDepth, which the route refuses
// (400 invalid_body), it returns the route's message instead of a hash, so
// that the other transport refuses them too, in the same words; args that
// are not one JSON object are hashed as their bytes.
func RequestHash(tool string, args []byte) (hash, tooDeep string) {
	d := Decoder{data: args}
	if d.peek() == '{' {
		sum, msg := argsDigest(&d)
		if msg != "" {
			return "", msg
		}
		if d.End(); d.err == nil {
			return requestHash(tool, sum), ""
		}
	}
	return requestHash(tool, sha256.Sum256(args)), ""
}

// A Refusal is why a transport refuses a request before any tool runs: the
// HTTP status, and the code and message of its JSON error body.
type Refusal struct {
	Status        int
	Code, Message string
}

// Authenticate checks r's Authorization header as the callback route
// does: a bearer token that auth verifies, of source SourceSandbox, bound
// to no session but session (an empty session, which the MCP server then
// refuses as missing, is not compared). A 401 refusal sets its
// WWW-Authenticate challenge on w, naming the transport's realm; calls
// names what the token is for in a 403's message. A caller that leaves
// while auth verifies its token is refused with status 499 and code
// client_gone, which a transport observes and need not answer. Another
// transport (the MCP server, package agentmcp) authenticates with it, so
// both accept the same tokens.
func Authenticate(w http.ResponseWriter, r *http.Request, auth Authenticator,
	realm, calls, session string) (Claims, *Refusal) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`"`)
		return Claims{}, &Refusal{Status: http.StatusUnauthorized, Code: "unauthorized",
			Message: "a sandbox bearer token is required"}
	}
	claims, err := auth.VerifyToken(r.Context(), strings.TrimSpace(token))
	if err != nil && r.Context().Err() != nil {
		// The caller left while the token was checked: nothing was refused.
		return Claims{}, &Refusal{Status: 499, Code: "client_gone", Message: "the caller left"}
	}
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`", error="invalid_token"`)
		return Claims{}, &Refusal{Status: http.StatusUnauthorized, Code: "unauthorized",
			Message: "the bearer token is not valid"}
	}
	if claims.Source != SourceSandbox {
		return Claims{}, &Refusal{Status: http.StatusForbidden, Code: "forbidden",
			Message: fmt.Sprintf("%s need a token of source %q, not %q", calls, SourceSandbox, claims.Source)}
	}
	if session != "" && claims.SessionID != "" && claims.SessionID != session {
		return Claims{}, &Refusal{Status: http.StatusForbidden, Code: "forbidden", Message: "the token belongs to another session"}
	}
	return claims, nil
}

// ReadBody reads r's body, at most limit bytes, as the callback route
// does, for another transport (the MCP server, package agentmcp) to read
// its own alike. It refuses with 413 body_too_large for a longer body,
// 499 client_gone when the body could not be read because the caller
// left (net/http ends the request's context when the connection breaks: a
// body cut short by a dropped connection is no malformed body), and 400
// invalid_body when it could not be read otherwise.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *Refusal) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &Refusal{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
			Message: fmt.Sprintf("the request body exceeds %d bytes", tooBig.Limit)}
	case err != nil && r.Context().Err() != nil:
		return nil, &Refusal{Status: 499, Code: "client_gone", Message: "the caller left"}
	case err != nil:
		return nil, &Refusal{Status: http.StatusBadRequest, Code: "invalid_body", Message: "reading the request body: " + err.Error()}
	}
	return body, nil
}

// WriteError answers w with status and the callback route's JSON error
// body, {"error": msg, "code": code}; a caller that left (status 499,
// client_gone) is answered nothing.
func WriteError(w http.ResponseWriter, status int, code, msg string) {
	if status == 499 {
		return
	}
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}{msg, code})
	writeJSON(w, status, b)
}

// writeJSON answers w with status and the JSON b, which no cache may keep.
func writeJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// CheckSessionID returns what is wrong with a session id under the
// callback route's limits (1 to MaxSessionIDLength bytes of Unicode text
// without control characters), or "". Another transport checks its ids
// with it and CheckToolCallID before the Store sees them, so that both
// transports refuse the same ids whatever the Store.
func CheckSessionID(id string) string {
	return checkID("the session id", id, MaxSessionIDLength, "MaxSessionIDLength")
}

// CheckToolCallID returns what is wrong with a tool_call_id under the
// callback route's limits (1 to MaxToolCallIDLength bytes of Unicode text
// without control characters), or "".
func CheckToolCallID(id string) string {
	return checkID("tool_call_id", id, MaxToolCallIDLength, "MaxToolCallIDLength")
}

// JSString reads raw, one JSON string token, as the callback route reads a
// tool_call_id: as the JavaScript string JSON.parse makes of it. Escaped
// surrogate pairs become their code point, while a lone surrogate escape
// ("\ud800") becomes its three WTF-8 bytes and invalid UTF-8 stays as it
// is, so that CheckToolCallID refuses them where a decoder that makes them
// U+FFFD would make distinct ids one. ok is false when raw is not exactly
// one JSON string.
func JSString(raw []byte) (s string, ok bool) {
	d := Decoder{data: raw}
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	text, ok := d.readString(strLoneSurrogates | strInvalidBytes)
	if !ok || d.pos != len(raw) {
		return "", false
	}
	return string(text), true
}
