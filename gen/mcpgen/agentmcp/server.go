// Package agentmcp serves a generated contract's gateway-executed tools
// over the Model Context Protocol, on the official Go SDK: the MCP
// transport beside the callback route of package agentrt, from the same
// Handler, decoders, mode gating, authentication and idempotency Store.
// Like the route, it is written against the contract's descriptor
// (agentrt.Contract); the generated MCP package adds each tool's
// description and JSON Schema (Tool) and instantiates the generic types
// with the contract's Handler and Mode.
//
// agentc writes a copy of this package's files beside every generated MCP
// package (<codegen.mcp.dir>/agentmcp) unless codegen.mcp.runtime names one
// to import instead; only the MCP package imports the SDK, so a gateway
// that serves the callback route alone never builds it.
package agentmcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
)

// The versions of this package's API, oldest and newest, as agentrt's: a
// generated MCP package checks at compile time that its agentmcp serves
// the version it was generated against.
const (
	MinVersion = 1
	MaxVersion = 1
)

// EnforceVersion is agentrt's: generated code converts a difference of
// versions to it, which fails to compile when it is negative.
type EnforceVersion = agentrt.EnforceVersion

// Path is the URL path at which the gateway mounts the MCP server, beside
// the callback route.
const Path = "/mcp"

// SessionHeader carries the session's id with every MCP request. A header
// rather than a path segment: OpenCode fills it from the environment
// ({env:…}) verbatim, where a path segment would need percent-encoding that
// a config substitution cannot do, and the server stays one fixed mount.
const SessionHeader = "X-Agentc-Session"

// ToolCallIDMeta is the tools/call _meta key under which a client sends the
// call's durable id: the same tool_call_id a callback stub sends. A call
// carrying it goes through the Store keyed by (session, tool_call_id) with
// the callback route's request hash, so a call retried through either
// transport executes once. JSON-RPC's own request id is not used: it is
// only unique within one connection (a stateless client restarts it), so
// keying on it would answer one call with another's result. Neither is
// _meta.progressToken, which OpenCode 1.18.33 sends as the same
// per-connection counter (and no call id: its calls execute each time; a
// client that knows the model's tool_use id should send it here). The id
// has the callback route's limits (agentrt.CheckToolCallID), read as the
// JavaScript string it is: a call whose id breaks them (not a string,
// empty, a control character, a lone surrogate, invalid UTF-8, more than
// agentrt.MaxToolCallIDLength bytes) is refused as invalid params before
// the Store is asked.
const ToolCallIDMeta = "dev.agentc/tool_call_id"

// ReplayMeta is set to true in the _meta of a result that repeats the
// stored result of an earlier execution (agentrt.ReplayHeader's meaning).
const ReplayMeta = "dev.agentc/replay"

// Config configures New; H is the generated Handler interface and M the
// generated Mode type. Handler, Auth and Sessions are required: they are
// the callback route's (agentrt.RouteConfig), so one implementation serves
// both transports.
type Config[H any, M ~string] struct {
	// Handler executes the tools.
	Handler H
	// Auth verifies bearer tokens.
	Auth agentrt.Authenticator
	// Sessions gives each session's mode.
	Sessions agentrt.Sessions[M]
	// Store makes calls that carry ToolCallIDMeta idempotent; share the
	// callback route's Store so that the two transports agree. nil means a
	// new agentrt.MemoryStore keeping results for the contract's Retention.
	Store agentrt.Store
	// Observe, when set, is called once per tools/call after its answer,
	// and once per request refused before MCP, with the callback route's
	// agentrt.CallEvent, so one adaptor serves both transports' metrics.
	// Status is the HTTP status: 200 for every tools/call (MCP answers
	// inside JSON-RPC) but an "invalid_params" one from protocol
	// 2026-07-28 (400), and the refusal's (401, 403, 400, 413, 404, 503, 500), whose
	// Tool is "" (the tool is named inside the JSON-RPC body). Outcome is
	// as on the route ("executed", "invalid_arguments", "replayed",
	// "rejected", …), plus "invalid_params" for a refused _meta
	// tool_call_id or arguments nested too deep. SessionID is set once the session header has passed
	// the route's limits.
	Observe func(context.Context, agentrt.CallEvent)
	// Logger receives one record per tool call and per request refused
	// before MCP, at the callback route's levels (agentrt.CallEvent.Log),
	// and besides them the route's Error records (agentrt.RouteConfig's
	// Logger): a failed or wrong session lookup, a Store that cannot claim
	// or record a call, a handler's panic. nil means slog.Default().
	Logger *slog.Logger
	// MaxBodyBytes bounds the request body, a JSON-RPC message; 0 means
	// agentrt.DefaultMaxBodyBytes, as on the callback route
	// (agentrt.RouteConfig.MaxBodyBytes): a larger body is answered 413.
	MaxBodyBytes int64
	// AllowedOrigins lists the web origins ("https://console.example.com",
	// scheme://host[:port], compared case-insensitively) whose browser
	// pages may call the server besides its own (see Server). A request
	// without an Origin header (OpenCode, any client that is not a browser)
	// needs no entry.
	AllowedOrigins []string
}

// Server is the MCP server of the contract's gateway-executed tools, an
// http.Handler for the Streamable HTTP transport (stateless, JSON
// responses).
//
// Every request needs a bearer token (agentrt.Authenticator, source
// agentrt.SourceSandbox) and the session's id in SessionHeader; a token
// bound to another session is refused. The session's mode picks the tools:
// tools/list shows exactly the gateway tools the mode injects (with
// cacheScope "private", so no intermediary serves the list to another
// caller); tools/call
// of another gateway tool is a result with isError true and the callback
// route's text ("Tool X is not available in coding sessions"), without
// executing or recording it, and of a name that is no gateway tool a
// JSON-RPC error. Arguments nested deeper than agentrt.MaxArgsDepth are
// an invalid-params error with the callback route's message for them (a
// 400 there). Arguments are decoded and validated by the contract's
// Dispatch: a validation failure is a tool result with isError true and
// the callback route's text ("Invalid arguments: commands.0.name: …"),
// which the model can act on.
//
// A result's content is one text block (the callback's "result") and its
// structuredContent is the callback route's body {success, result, data?};
// isError is !success.
//
// The Streamable HTTP transport requires a server to validate Origin, so
// that a web page cannot make a visitor's browser call it (DNS rebinding
// included). A request without an Origin header is no browser's and
// passes; one with an Origin passes when it is listed in
// Config.AllowedOrigins, or when its host[:port] is the request's Host —
// the server's own pages — unless the request reached a loopback address
// under a Host that is not loopback (localhost, 127.0.0.1, [::1]): that
// is a foreign name rebound to this machine. Any other Origin is refused
// with 403 "origin_not_allowed" before the token is checked. An allowed
// Origin is answered under CORS (Access-Control-Allow-Origin), and its
// preflight (OPTIONS) with 204 and the headers it asks for.
//
// Errors before MCP starts are JSON {"error", "code"} with the callback
// route's statuses and codes: 403 origin_not_allowed (see above), 401
// unauthorized (no token, or one Auth refuses), 403 forbidden (a token of
// another source, or bound to another session), 400 missing_session (no
// SessionHeader), 400 invalid_session_id (a session id beyond the route's
// limits), 413 body_too_large (a body over Config.MaxBodyBytes), 404
// unknown_session, 503 session_lookup_failed (Sessions failed otherwise)
// and 500 invalid_session_mode (Sessions gave a mode the contract lacks:
// see agentrt.Contract.LookupMode). A caller that leaves while its token
// or its session is looked up, or before its body arrived, is observed as
// 499 client_gone and answered nothing.
type Server[H any, M ~string] struct {
	c     *agentrt.Contract[H, M]
	tools []Tool
	cfg   Config[H, M]
	http  *mcp.StreamableHTTPHandler

	// origins are Config.AllowedOrigins, lower-cased.
	origins map[string]bool
	// modes holds the MCP server of each of the contract's modes.
	modes map[M]*mcp.Server
}

// Tool is one gateway-executed tool as the MCP server shows it; the
// generated MCP package lists them.
type Tool struct {
	// Tool is the tool's index in the contract's Tools.
	Tool int
	// Description is what the model reads about the tool.
	Description string
	// Schema is the tool's JSON Schema (the emitter "jsonschema" file),
	// indented as that file is, to read and review.
	Schema string
}

// New returns the MCP server of contract c's tools (a generated MCP
// package's New passes its contract's and its table of them).
func New[H any, M ~string](c *agentrt.Contract[H, M], tools []Tool, cfg Config[H, M]) (*Server[H, M], error) {
	if any(cfg.Handler) == nil || cfg.Auth == nil || cfg.Sessions == nil {
		return nil, errors.New("agentmcp.New: Handler, Auth and Sessions are required")
	}
	for _, t := range tools {
		if t.Tool < 0 || t.Tool >= len(c.Tools) || !c.Tools[t.Tool].Gateway {
			return nil, fmt.Errorf("agentmcp.New: tool %d is not a gateway-executed tool of contract %s", t.Tool, c.Name)
		}
	}
	if cfg.Store == nil {
		cfg.Store = &agentrt.MemoryStore{Retention: c.Retention}
	}
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	cfg.MaxBodyBytes = cmp.Or(max(cfg.MaxBodyBytes, 0), agentrt.DefaultMaxBodyBytes)
	s := &Server[H, M]{c: c, tools: tools, cfg: cfg, modes: map[M]*mcp.Server{}, origins: map[string]bool{}}
	for _, o := range cfg.AllowedOrigins {
		u, err := url.Parse(o)
		bare := u != nil && u.User == nil && (u.Path == "" || u.Path == "/") && u.RawQuery == ""
		if err != nil || u.Scheme == "" || u.Host == "" || !bare {
			return nil, fmt.Errorf("agentmcp.New: AllowedOrigins: %q is not an origin (scheme://host[:port])", o)
		}
		s.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	for _, m := range c.Modes {
		s.modes[m] = s.newServer(m)
	}
	// Only ServeHTTP hands requests to the transport, each with its caller,
	// whose mode LookupMode found among the contract's.
	serverFor := func(r *http.Request) *mcp.Server {
		return s.modes[r.Context().Value(callerKey{}).(*caller[M]).mode]
	}
	s.http = mcp.NewStreamableHTTPHandler(serverFor, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// ServeHTTP validates Origin itself (see Server): the SDK's
		// protection refuses any non-loopback Host on a loopback address,
		// which would refuse a reverse proxy on the same machine that
		// keeps the public Host.
		DisableLocalhostProtection: true,
		// ServeHTTP reads the body under Config.MaxBodyBytes.
		MaxRequestBodyBytes: -1,
	})
	return s, nil
}

// Pattern is the server's http.ServeMux pattern: Path (every method; the
// transport answers GET and DELETE with 405).
func (s *Server[H, M]) Pattern() string { return Path }

// caller is what ServeHTTP learned about a request, for the tool handlers.
type caller[M ~string] struct {
	session string
	claims  agentrt.Claims
	mode    M
	// body is the request's body, for rawMetaString.
	body []byte
	// request is the HTTP request's context, which ends when the caller
	// leaves; the SDK runs a tool's handler in a context that does not.
	request context.Context
}

type callerKey struct{}

// ServeHTTP authenticates the request, finds the session's mode and hands
// the request to the MCP transport.
func (s *Server[H, M]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var checked string // the session id, once within the limits
	fail := func(status int, code, msg string) {
		agentrt.WriteError(w, status, code, msg)
		ev := agentrt.CallEvent{SessionID: checked, Outcome: code, Status: status, Duration: time.Since(start)}
		ev.Log(r.Context(), s.cfg.Logger, "agentc mcp request refused", s.cfg.Observe)
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if !s.allowedOrigin(r, origin) {
			fail(http.StatusForbidden, "origin_not_allowed", "requests from web origin "+strconv.Quote(origin)+
				" are not allowed (list it in the MCP server's AllowedOrigins)")
			return
		}
		// A page of another origin reads the answer only under CORS, and
		// first asks (a preflight, without the token) to send its headers.
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			w.Header().Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	session := r.Header.Get(SessionHeader)
	claims, refused := agentrt.Authenticate(w, r, s.cfg.Auth, "agentc-mcp", "tool calls", session)
	if refused != nil {
		fail(refused.Status, refused.Code, refused.Message)
		return
	}
	if session == "" {
		fail(http.StatusBadRequest, "missing_session", "the session's id is required in the "+SessionHeader+" header")
		return
	}
	if msg := agentrt.CheckSessionID(session); msg != "" {
		fail(http.StatusBadRequest, "invalid_session_id", msg)
		return
	}
	checked = session
	body, refused := agentrt.ReadBody(w, r, s.cfg.MaxBodyBytes)
	if refused != nil {
		fail(refused.Status, refused.Code, refused.Message)
		return
	}
	mode, refused := s.c.LookupMode(r, s.cfg.Sessions, session, s.cfg.Logger, "agentc mcp")
	if refused != nil {
		fail(refused.Status, refused.Code, refused.Message)
		return
	}
	c := &caller[M]{session: session, claims: claims, mode: mode, body: body, request: r.Context()}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.http.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
}

// allowedOrigin reports whether a request carrying the Origin header
// origin may be served (see Server).
func (s *Server[H, M]) allowedOrigin(r *http.Request, origin string) bool {
	if s.origins[strings.ToLower(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
		return false
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local == nil || !loopback(local.String()) || loopback(r.Host)
}

// loopback reports whether hostport (host or host:port) names this
// machine's loopback interface.
func loopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newServer returns the MCP server of mode: it holds exactly the gateway
// tools the mode injects.
func (s *Server[H, M]) newServer(mode M) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: s.c.Name, Version: s.c.Revision}, &mcp.ServerOptions{
		Instructions: "Gateway tools of agent contract " + s.c.Name + " for " + string(mode) + " sessions.",
		// The tools listed are the session's mode's, for its token: no
		// intermediary may serve them to another caller (the SDK's
		// default scope is "public").
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope = "private" },
		// Tools alone, whose list never changes for a mode: the SDK's
		// default (logging, tools.listChanged) promises notifications a
		// stateless server never sends.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	unlisted := map[string]mcp.ToolHandler{}
	for _, t := range s.tools {
		h := s.handler(t.Tool)
		for _, alias := range s.c.Tools[t.Tool].Aliases {
			unlisted[alias] = h
		}
		if !s.c.Injects(mode, t.Tool) {
			unlisted[s.c.Tools[t.Tool].Name] = h
			continue
		}
		srv.AddTool(&mcp.Tool{
			Name:        s.c.Tools[t.Tool].Name,
			Description: t.Description,
			// Indented as generated: encoding/json compacts a RawMessage
			// when the SDK answers tools/list.
			InputSchema: json.RawMessage(t.Schema),
		}, h)
	}
	srv.AddReceivingMiddleware(callUnlisted(unlisted))
	return srv
}

// callUnlisted hands a tools/call of a name tools/list does not show
// (one of unlisted) to its tool's handler: a gateway tool the mode does not
// inject, which the handler refuses in the callback route's words (without
// it the SDK would answer "unknown tool", and a model could not tell a
// tool its session lacks from a misspelt one), or an alias, a tool's name
// before it was renamed, which a client that listed the tools before the
// gateway was deployed still calls: the callback route serves aliases too.
func callUnlisted(unlisted map[string]mcp.ToolHandler) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				if h, ok := unlisted[call.Params.Name]; ok {
					return h(ctx, call)
				}
			}
			return next(ctx, method, req)
		}
	}
}

// handler returns the tools/call handler of the tool ti (its index in the
// contract's Tools). As on the callback route, the call, its event and its
// log record carry the name the caller used (the tool's, or an alias).
func (s *Server[H, M]) handler(ti int) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		// The stateless transport connects a session per request with the
		// request's context, which carries the caller ServeHTTP added.
		c := ctx.Value(callerKey{}).(*caller[M])
		ev := agentrt.CallEvent{Tool: req.Params.Name, SessionID: c.session, Status: http.StatusOK}
		defer func() {
			ev.Duration = time.Since(start)
			ev.Log(ctx, s.cfg.Logger, "agentc mcp tool call", s.cfg.Observe)
		}()
		// A caller that leaves ends the wait for the store, as on the
		// callback route.
		callCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(c.request, cancel)()
		args := []byte(req.Params.Arguments)
		if len(args) == 0 {
			args = []byte("{}")
		}
		invalid := func(msg string) (*mcp.CallToolResult, error) {
			ev.Outcome = "invalid_params"
			// From protocol 2026-07-28 the SDK answers it with HTTP 400
			// (SEP-2575), deciding by this header as here.
			if req.Extra != nil && req.Extra.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
				ev.Status = http.StatusBadRequest
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
		}
		// Without the _meta id the call simply executes; with one, the id
		// must be what the callback route accepts as a tool_call_id.
		if meta, present := req.Params.Meta[ToolCallIDMeta]; present {
			id, isString := meta.(string)
			if strings.ContainsRune(id, utf8.RuneError) {
				id = rawMetaString(c.body, ToolCallIDMeta, id)
			}
			msg := "tool_call_id must be a string"
			if isString {
				msg = agentrt.CheckToolCallID(id)
			}
			if msg != "" {
				return invalid(fmt.Sprintf("_meta %q: %s", ToolCallIDMeta, msg))
			}
			ev.ToolCallID = id
		}
		// Arguments the callback route refuses as nested too deep are
		// refused here too, whether the call has an id or not.
		hash, tooDeep := agentrt.RequestHash(s.c.Tools[ti].Name, args)
		if tooDeep != "" {
			return invalid(tooDeep)
		}
		call := agentrt.Call[M]{Tool: ev.Tool, Mode: c.mode, SessionID: c.session, ToolCallID: ev.ToolCallID}
		res, refused := s.c.Execute(callCtx, s.cfg.Handler, s.cfg.Store, ti, call, args, hash, c.claims.OrganizationID,
			s.cfg.Logger, "agentc mcp", &ev)
		switch {
		case refused == nil:
		case refused.Code == "tool_call_id_conflict": // the model's to act on, as the route's 409 text
			res, ev.Outcome = agentrt.Result{Result: refused.Message}, refused.Code
		case refused.Code == "client_gone":
			ev.Outcome, ev.Status = refused.Code, refused.Status
			return nil, errors.New(refused.Message)
		default: // store_failed
			ev.Outcome = refused.Code
			return nil, errors.New(refused.Message)
		}
		ev.Success = res.Success
		out := &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: res.Result}},
			StructuredContent: res,
			IsError:           !res.Success,
		}
		if ev.Replay {
			out.Meta = mcp.Meta{ReplayMeta: true}
		}
		return out, nil
	}
}

// rawMetaString returns the string under key in the _meta of body, a
// tools/call message, as the JavaScript string it is, given decoded: the
// SDK's decoding of it. The SDK's decoder turns a lone surrogate escape
// ("\ud800") and invalid UTF-8 into U+FFFD, which would make distinct ids
// one; the callback route compares ids as JavaScript strings and refuses
// those (agentrt.CheckToolCallID). Here a lone surrogate becomes its
// WTF-8 bytes and invalid UTF-8 stays as it is, so that CheckToolCallID
// refuses them too. In a JSON-RPC batch (protocol 2025-03-26) the SDK does
// not say which message a call is, so any message whose id decodes to
// decoded but is spelt otherwise answers: a valid id beside such a twin is
// refused rather than two ids made one. When body holds no such value,
// decoded is returned.
func rawMetaString(body []byte, key, decoded string) string {
	// Maps, not structs: encoding/json matches a struct's fields
	// case-insensitively ("_META"), the SDK's decoder only exactly.
	var batch []map[string]json.RawMessage
	if json.Unmarshal(body, &batch) != nil {
		batch = make([]map[string]json.RawMessage, 1)
		json.Unmarshal(body, &batch[0])
	}
	for _, msg := range batch {
		var params, meta map[string]json.RawMessage
		json.Unmarshal(msg["params"], &params)
		json.Unmarshal(params["_meta"], &meta)
		var same string
		if json.Unmarshal(meta[key], &same) != nil || same != decoded {
			continue
		}
		// meta[key] is then exactly one JSON string (encoding/json trims
		// the space around a RawMessage), which JSString reads.
		if s, _ := agentrt.JSString(meta[key]); s != decoded {
			return s
		}
	}
	return decoded
}
