package agentrt

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// DefaultMaxBodyBytes bounds a callback's request body when
// RouteConfig.MaxBodyBytes is zero; a larger body is answered 413.
const DefaultMaxBodyBytes = 1 << 20

// MaxToolCallIDLength bounds tool_call_id, in bytes.
const MaxToolCallIDLength = 512

// SourceSandbox is the only token source the callback route accepts.
const SourceSandbox = "sandbox"

// ReplayHeader is set to "true" on an answer that repeats the stored result
// of an earlier execution instead of executing the call.
const ReplayHeader = "X-Agentc-Replay"

// Claims is what a verified bearer token says about its holder.
type Claims struct {
	// Source is who the token was issued to; the route requires
	// SourceSandbox and answers 403 otherwise.
	Source string
	// SessionID, when not empty, is the only session the token may call
	// back for; a call for another session is answered 403.
	SessionID string
	// OrganizationID is recorded with each invocation.
	OrganizationID string
}

// Authenticator verifies the bearer token of a callback (the sandbox's HMAC
// token, seed 001 §6.5). The gateway implements it.
type Authenticator interface {
	// VerifyToken returns the token's claims, or an error when the token is
	// not valid (the route answers 401 without the error's text).
	VerifyToken(ctx context.Context, token string) (Claims, error)
}

// AuthenticatorFunc is an Authenticator made of a function.
type AuthenticatorFunc func(ctx context.Context, token string) (Claims, error)

// VerifyToken calls f.
func (f AuthenticatorFunc) VerifyToken(ctx context.Context, token string) (Claims, error) {
	return f(ctx, token)
}

// ErrUnknownSession is what Sessions.SessionMode returns for a session the
// gateway does not know; the route answers 404.
var ErrUnknownSession = errors.New("unknown session")

// Sessions tells the route about the gateway's sessions; M is the
// generated Mode type. The gateway implements it.
type Sessions[M ~string] interface {
	// SessionMode returns the session's mode (the generated SelectMode of
	// its attributes), or ErrUnknownSession.
	SessionMode(ctx context.Context, sessionID string) (M, error)
}

// SessionsFunc is a Sessions made of a function.
type SessionsFunc[M ~string] func(ctx context.Context, sessionID string) (M, error)

// SessionMode calls f.
func (f SessionsFunc[M]) SessionMode(ctx context.Context, sessionID string) (M, error) {
	return f(ctx, sessionID)
}

// LookupMode asks sessions for the mode of session, as both transports do
// before any tool runs; a refusal is the transport's answer. It refuses
// with 404 unknown_session for ErrUnknownSession; 499 client_gone when the
// caller left while sessions looked the session up; 503
// session_lookup_failed when sessions fails otherwise; and 500
// invalid_session_mode for a mode that is not one of c.Modes: the
// gateway's Sessions is wrong, not the call, which the mode gate would
// otherwise refuse as a tool the session lacks. The last two are logged to
// logger at level Error, the message headed by transport.
func (c *Contract[H, M]) LookupMode(r *http.Request, sessions Sessions[M], session string, logger *slog.Logger,
	transport string) (M, *Refusal) {
	mode, err := sessions.SessionMode(r.Context(), session)
	switch {
	case errors.Is(err, ErrUnknownSession):
		return mode, &Refusal{Status: http.StatusNotFound, Code: "unknown_session", Message: "unknown session " + session}
	case err != nil && r.Context().Err() != nil:
		return mode, &Refusal{Status: 499, Code: "client_gone", Message: "the caller left"}
	case err != nil:
		logger.ErrorContext(r.Context(), transport+": session lookup failed", "session_id", session, "error", err)
		return mode, &Refusal{Status: http.StatusServiceUnavailable, Code: "session_lookup_failed",
			Message: "the gateway could not look the session up"}
	case !slices.Contains(c.Modes, mode):
		logger.ErrorContext(r.Context(), transport+": Sessions gave a mode that is not one of the contract's",
			"session_id", session, "mode", string(mode))
		return mode, &Refusal{Status: http.StatusInternalServerError, Code: "invalid_session_mode",
			Message: fmt.Sprintf("the gateway is misconfigured: it gave session %s the mode %q, which contract %s lacks",
				session, mode, c.Name)}
	}
	return mode, nil
}

// RouteConfig configures NewRoute; H is the generated Handler interface
// and M the generated Mode type. Handler, Auth and Sessions are required.
type RouteConfig[H any, M ~string] struct {
	// Handler executes the tools.
	Handler H
	// Auth verifies bearer tokens.
	Auth Authenticator
	// Sessions gives each session's mode.
	Sessions Sessions[M]
	// Store makes calls idempotent by tool_call_id; nil means a new
	// MemoryStore keeping results for the contract's Retention.
	Store Store
	// Logger receives each request's record after its answer (see
	// CallEvent.Log) and, besides it, Error records of a failed or wrong
	// session lookup, a failed Store and a handler's panic, and a Warn
	// record of a stub with another fingerprint; nil means slog.Default().
	Logger *slog.Logger
	// MaxBodyBytes bounds the request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Observe, when not nil, is called once per request, after it is
	// answered, with what the route saw; it must be safe for concurrent
	// use and should not block.
	Observe func(ctx context.Context, ev CallEvent)
}

// Route is the http.Handler of the gateway callback route: POST the
// contract's CallbackPath with a bearer token and the body {tool_call_id,
// args}, answered 200 {success, result, data?} (seed 001 §6.5).
//
// In order, it answers (status and code): 404 not_found for a path that
// is not the CallbackPath; 405 method_not_allowed for a method other than
// POST; 401 unauthorized for a missing or invalid bearer token; 403
// forbidden for a token whose source is not "sandbox" or that belongs to
// another session; 400 invalid_session_id and 400 invalid_fingerprint for
// a session id or FingerprintHeader over its limit (MaxSessionIDLength,
// MaxFingerprintLength); 404 unknown_tool for an unknown tool
// or one that runs in the sandbox; 413 body_too_large for a body over the
// limit (a body the caller left before sending whole is answered nothing:
// 499 client_gone); 400 invalid_body for a body that is not {tool_call_id: string,
// args: object} as JSON.parse reads it (keys case-sensitive, the last of a
// repeated key counting), for a tool_call_id that is empty, longer than
// MaxToolCallIDLength, not Unicode text (a lone surrogate, invalid UTF-8)
// or holding control characters, and for args nested deeper than
// MaxArgsDepth; 404 unknown_session for an unknown session, 503
// session_lookup_failed when Sessions fails otherwise (unless the caller
// left meanwhile: it is answered nothing), and 500 invalid_session_mode
// when Sessions gives a mode the contract lacks (see LookupMode); 409
// tool_call_id_conflict when the tool_call_id was used before with
// another tool or other arguments (see RequestHash: key order, whitespace
// and number spelling do not make other arguments); 503 store_failed when
// the Store cannot claim the call (nothing executed: retry it); and 200
// with the tool's result otherwise. Errors are JSON: {"error": message,
// "code": code}, the code as above. Every 400 comes before the Store is
// asked anything, so both stores accept and reject the same requests.
//
// A tool the session's mode does not inject is answered 200 {success:
// false} without executing (the contract's Dispatch words it). Arguments
// are validated by Dispatch; a call whose stub sent a fingerprint
// (FingerprintHeader) that differs from the gateway's is executed when its
// arguments validate under the gateway's schema, and otherwise fails with
// a message saying that the sandbox's stub is out of date.
//
// Every other call goes through the Store: the first call with a
// (session, tool_call_id) executes; a repeated one waits for it while it
// runs and then gets its stored result without executing again (the answer
// carries ReplayHeader: true).
type Route[H any, M ~string] struct {
	c                *Contract[H, M]
	cfg              RouteConfig[H, M]
	tools            map[string]int // the index in c.Tools of each name and alias
	segs             []string
	sessIdx, toolIdx int
}

// NewRoute returns the callback route of contract c (a generated package's
// NewRoute passes its own).
func NewRoute[H any, M ~string](c *Contract[H, M], cfg RouteConfig[H, M]) (*Route[H, M], error) {
	if any(cfg.Handler) == nil || cfg.Auth == nil || cfg.Sessions == nil {
		return nil, errors.New("NewRoute: Handler, Auth and Sessions are required")
	}
	if cfg.Store == nil {
		cfg.Store = &MemoryStore{Retention: c.Retention}
	}
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	cfg.MaxBodyBytes = cmp.Or(max(cfg.MaxBodyBytes, 0), DefaultMaxBodyBytes)
	rt := &Route[H, M]{c: c, cfg: cfg, tools: make(map[string]int, len(c.Tools)), segs: strings.Split(c.CallbackPath, "/")}
	for i, t := range c.Tools {
		rt.tools[t.Name] = i
		for _, a := range t.Aliases {
			rt.tools[a] = i
		}
	}
	rt.sessIdx, rt.toolIdx = slices.Index(rt.segs, "{sessionId}"), slices.Index(rt.segs, "{toolName}")
	if rt.sessIdx < 0 || rt.toolIdx < 0 {
		return nil, fmt.Errorf("NewRoute: callback path %q lacks {sessionId} or {toolName}", c.CallbackPath)
	}
	return rt, nil
}

// Pattern is the route's http.ServeMux pattern: the subtree of the
// CallbackPath's literal prefix ("/proliferate/"), for every method, so
// that the route answers every request under the prefix itself, in its
// JSON error shape: 404 for another path (a trailing slash, a missing
// segment), 405 with Allow for another method (GET, "post"). A more
// specific pattern on the same mux still wins for its own paths. ServeMux
// itself redirects a path with "." or ".." segments or repeated slashes
// before any handler sees it.
func (rt *Route[H, M]) Pattern() string {
	prefix, _, _ := strings.Cut(rt.c.CallbackPath, "{")
	return prefix[:strings.LastIndex(prefix, "/")+1]
}

// match returns the session and tool of path, unescaped.
func (rt *Route[H, M]) match(escapedPath string) (session, tool string, ok bool) {
	parts := strings.Split(escapedPath, "/")
	if len(parts) != len(rt.segs) {
		return "", "", false
	}
	for i, p := range parts {
		if i != rt.sessIdx && i != rt.toolIdx && p != rt.segs[i] {
			return "", "", false
		}
	}
	session, err := url.PathUnescape(parts[rt.sessIdx])
	tool, err2 := url.PathUnescape(parts[rt.toolIdx])
	if err != nil || err2 != nil || session == "" || tool == "" {
		return "", "", false
	}
	return session, tool, true
}

// CallEvent describes one request to the route, for RouteConfig.Observe:
// what a gateway turns into metrics or trace spans (see the README for a
// Prometheus adaptor).
type CallEvent struct {
	// Tool is the tool's name as the path gave it; SessionID and
	// ToolCallID are as the request gave them (empty when it did not get
	// that far).
	Tool, SessionID, ToolCallID string
	// Outcome is "executed", "invalid_arguments" (executed, but the
	// arguments failed validation and no handler ran: the model's malformed
	// call, not the tool's failure), "panicked" (the handler panicked: the
	// gateway's bug, whose stack Execute logs; with Status 500 on the route,
	// Auth, Sessions or the Store did), "replayed" (answered with
	// the stored result of an earlier execution), "rejected" (a tool the
	// session's mode lacks), "client_gone" (the caller left while Auth,
	// Sessions or the Store kept it waiting, or before its body arrived), or the error code of a
	// non-200 answer ("unauthorized", "store_failed", …: Route lists them).
	Outcome string
	// Status is the HTTP status answered (499 when the caller left).
	Status int
	// Success is the answered result's success (200 answers only).
	Success bool
	// Replay is true for an answer that repeats an earlier execution's.
	Replay bool
	// Duration is the time from the request's arrival to its answer.
	Duration time.Duration
	// StoreAttempts counts the store operations the call's Claim and
	// Complete tried, retries included (as MemoryStore and SQLStore count
	// them; 0 for a call that did not reach the store).
	StoreAttempts int
	// StoreErr is the last store error the call met, retried or not: nil
	// when the store worked at the first try. With Status 200 and Outcome
	// "executed" or "invalid_arguments" it means the result was answered but not yet recorded.
	StoreErr error
}

// ServeHTTP serves one callback.
func (rt *Route[H, M]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	// What ServeHTTP learns, for the log record and Observe. Until it learns it, a panic of
	// Auth, Sessions or the Store (net/http logs its stack, drops the connection) is a 500.
	c := &CallEvent{Status: http.StatusInternalServerError, Outcome: "panicked"}
	defer func() {
		c.Duration = time.Since(start)
		c.Log(r.Context(), rt.cfg.Logger, "agentc tool callback", rt.cfg.Observe)
	}()

	session, toolName, ok := rt.match(r.URL.EscapedPath())
	c.SessionID, c.Tool = session, toolName
	if !ok {
		rt.fail(w, c, http.StatusNotFound, "not_found", "no callback route at "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		rt.fail(w, c, http.StatusMethodNotAllowed, "method_not_allowed", "the callback route accepts POST only")
		return
	}
	claims, refused := Authenticate(w, r, rt.cfg.Auth, "agentc-callback", "tool callbacks", session)
	if refused != nil {
		rt.fail(w, c, refused.Status, refused.Code, refused.Message)
		return
	}
	if msg := CheckSessionID(session); msg != "" {
		c.SessionID = clip(session)
		rt.fail(w, c, http.StatusBadRequest, "invalid_session_id", msg)
		return
	}
	stub := r.Header.Get(FingerprintHeader)
	if msg := checkFingerprint(stub); msg != "" {
		rt.fail(w, c, http.StatusBadRequest, "invalid_fingerprint", msg)
		return
	}
	ti, ok := rt.tools[toolName]
	if !ok {
		msg := "unknown tool " + toolName
		if stub != "" {
			msg += " (the sandbox's tool files do not match the gateway's contract: " +
				"regenerate them with agentc gen and restart the sandbox)"
		}
		rt.fail(w, c, http.StatusNotFound, "unknown_tool", msg)
		return
	}
	tool := &rt.c.Tools[ti]
	if !tool.Gateway {
		rt.fail(w, c, http.StatusNotFound, "unknown_tool",
			"tool "+tool.Name+" runs in the sandbox; the gateway does not execute it")
		return
	}
	w.Header().Set(FingerprintHeader, tool.Fingerprint)

	body, refused := ReadBody(w, r, rt.cfg.MaxBodyBytes)
	if refused != nil {
		rt.fail(w, c, refused.Status, refused.Code, refused.Message)
		return
	}
	toolCallID, args, argsSum, msg := parseCallbackBody(body)
	c.ToolCallID = toolCallID
	if msg != "" {
		rt.fail(w, c, http.StatusBadRequest, "invalid_body", msg)
		return
	}

	mode, refused := rt.c.LookupMode(r, rt.cfg.Sessions, session, rt.cfg.Logger, "agentc callback")
	if refused != nil {
		rt.fail(w, c, refused.Status, refused.Code, refused.Message)
		return
	}
	call := Call[M]{Tool: toolName, Mode: mode, SessionID: session, ToolCallID: toolCallID, Fingerprint: stub}
	if stub != "" && stub != tool.Fingerprint {
		rt.cfg.Logger.WarnContext(r.Context(), "agentc callback: the sandbox's stub has another schema fingerprint",
			"tool", tool.Name, "session_id", session, "stub_fingerprint", stub, "gateway_fingerprint", tool.Fingerprint)
	}
	res, refused := rt.c.Execute(r.Context(), rt.cfg.Handler, rt.cfg.Store, ti, call, args,
		requestHash(tool.Name, argsSum), claims.OrganizationID, rt.cfg.Logger, "agentc callback", c)
	if refused != nil {
		rt.fail(w, c, refused.Status, refused.Code, refused.Message)
		return
	}
	c.Status, c.Success = http.StatusOK, res.Success
	b, err := json.Marshal(res)
	if err != nil {
		b, _ = json.Marshal(Result{Result: "the gateway could not encode the result: " + err.Error()})
		c.Success = false
	}
	if c.Replay {
		w.Header().Set(ReplayHeader, "true")
	}
	writeJSON(w, http.StatusOK, b)
}

// Execute runs call, of the tool ti (its index in c.Tools), that passed
// every check, with handler h and args, as both transports do, and notes
// on ev its outcome and its store operations. Its Invocation for store is
// keyed by the call's session and tool_call_id, under the tool's name
// (whatever alias the caller used), with the call's RequestHash hash and
// the token's OrganizationID org.
// A tool the call's mode does not inject is answered by Dispatch with
// outcome "rejected", neither executed nor recorded. A call with a
// ToolCallID goes through store: the first with its key is executed by
// Dispatch and its result recorded, both detached from ctx's end, so that
// a dropped connection (the snapshot TCP-drop trap) cancels neither and
// its retry gets this result; a result the store could not record yet is
// answered all the same (the store says whether it keeps it to record
// later). A repeated call gets the stored result, with outcome "replayed".
// A call without a ToolCallID (an MCP call without the _meta id) has no
// identity a retry could repeat, and is executed. A handler's panic is
// logged to logger at level Error with its stack.
//
// It refuses with 409 tool_call_id_conflict for a key reused with another
// RequestHash, 499 client_gone when ctx ends while the store keeps the
// caller waiting, and 503 store_failed when the store cannot claim the
// call (logged at level Error; nothing was executed: retry it). Log
// records are headed by transport.
func (c *Contract[H, M]) Execute(ctx context.Context, h H, store Store, ti int, call Call[M], args []byte,
	hash, org string, logger *slog.Logger, transport string, ev *CallEvent) (Result, *Refusal) {
	if !c.Injects(call.Mode, ti) {
		// Not executed, not recorded: the mode gate is a pure function of
		// the session, and a forged call should not consume the id.
		ev.Outcome = "rejected"
		return c.Dispatch(ctx, h, call, args), nil
	}
	// MemoryStore and SQLStore count the operations made with ctx (or a
	// context derived from it) on counter.
	counter := &storeCounter{}
	ctx = context.WithValue(ctx, storeCounterKey{}, counter)
	defer func() {
		ev.StoreAttempts = int(counter.attempts.Load())
		if err := counter.err.Load(); err != nil {
			ev.StoreErr = *err // the last store error counted or noted
		}
	}()
	inv := Invocation{SessionID: call.SessionID, OrganizationID: org, Tool: c.Tools[ti].Name, ToolCallID: call.ToolCallID,
		RequestHash: hash}
	// logError logs a failure of the call at level Error; the attributes
	// are made only then.
	logError := func(msg, key string, value any) {
		logger.ErrorContext(ctx, transport+msg, "tool", inv.Tool, "tool_call_id", inv.ToolCallID,
			"session_id", inv.SessionID, key, value)
	}
	if inv.ToolCallID != "" {
		prev, done, err := store.Claim(ctx, inv)
		switch {
		case errors.Is(err, ErrConflict):
			return Result{}, &Refusal{Status: http.StatusConflict, Code: "tool_call_id_conflict", Message: "tool_call_id " +
				inv.ToolCallID + " was already used for another call (a different tool or different arguments)"}
		case err != nil && ctx.Err() != nil:
			return Result{}, &Refusal{Status: 499, Code: "client_gone", Message: "the caller left"}
		case err != nil:
			counter.note(err) // noted here too, for a Store that does not count its own operations
			logError(": idempotency store failed", "error", err)
			return Result{}, &Refusal{Status: http.StatusServiceUnavailable, Code: "store_failed",
				Message: "the gateway could not record the call; retry it"}
		case done:
			ev.Outcome, ev.Replay = "replayed", true
			return prev, nil
		}
	}
	res := c.Dispatch(context.WithoutCancel(ctx), h, call, args)
	if inv.ToolCallID != "" {
		if err := store.Complete(context.WithoutCancel(ctx), inv, res); err != nil {
			counter.note(err)
			logError(": recording the result failed", "error", err)
		}
	}
	// The outcome tells a model's malformed call and the gateway's bug
	// from the tool's own failure, for a metric.
	ev.Outcome = "executed"
	switch {
	case res.invalid:
		ev.Outcome = "invalid_arguments"
	case res.panicked != "":
		ev.Outcome = "panicked"
		logError(": the handler panicked", "panic", res.panicked)
	}
	return res, nil
}

// fail answers a request the route refuses, noting it for the log.
func (rt *Route[H, M]) fail(w http.ResponseWriter, c *CallEvent, status int, code, msg string) {
	c.Status, c.Outcome = status, code
	WriteError(w, status, code, msg)
}

// Log writes ev's record, under msg, to logger: at level Info for a 200,
// Warn for a 4xx and Error for a 5xx. Then it hands ev to observe, unless
// observe is nil. Both transports log and observe every request with it,
// after its answer.
func (ev CallEvent) Log(ctx context.Context, logger *slog.Logger, msg string,
	observe func(context.Context, CallEvent)) {
	level := slog.LevelInfo
	switch {
	case ev.Status >= 500:
		level = slog.LevelError
	case ev.Status >= 400:
		level = slog.LevelWarn
	}
	logger.LogAttrs(ctx, level, msg,
		slog.String("tool", ev.Tool),
		slog.String("tool_call_id", ev.ToolCallID),
		slog.String("session_id", ev.SessionID),
		slog.Int("status", ev.Status),
		slog.String("outcome", ev.Outcome),
		slog.Bool("success", ev.Success),
		slog.Duration("duration", ev.Duration),
	)
	if observe != nil {
		observe(ctx, ev)
	}
}
