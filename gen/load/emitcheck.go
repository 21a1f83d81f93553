package load

import (
	"path"
	"slices"
	"strings"

	"cuelang.org/go/cue"

	"github.com/agentc-dev/agentc/gen/model"
)

// emitChecks finds, each at its position in the CUE, what an emitter would
// reject in a spec the loader built without findings, so that vet accepts
// only specs gen can generate; each mirrors an emitter's error path, and
// the emitters keep theirs as a backstop. What an emitter can find from
// the model alone, it reports itself (emit.Emitter's Check, which vet runs
// after Load). root is the evaluated spec.
func (l *loader) emitChecks(root cue.Value, s *model.Spec) {
	l.callbackSegments(root, s.Callback.Path)
	l.openCodeAgent(root, s)
	l.openCodeMCP(root, s)
	l.outputDirs(root, s)
	l.goImport(root, s)
}

// callbackSegments reports a callback path the generated route cannot
// serve: a placeholder must be a whole path segment (the loader checks
// that each appears once).
func (l *loader) callbackSegments(root cue.Value, p string) {
	v := lookup(root, cue.Str("callback"), cue.Str("path"))
	if !strings.HasPrefix(p, "/") {
		l.errorf(v, "callback", "callback.path must start with /")
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.ContainsAny(seg, "{}") && seg != "{sessionId}" && seg != "{toolName}" {
			l.errorf(v, "callback", "callback.path segment %q: {sessionId} and {toolName} must each be a whole path segment, "+
				"such as /tools/{sessionId}/{toolName}", seg)
		}
	}
}

// openCodeAgent reports a spec whose opencode.json would have no model:
// it comes from the default model of the agent called "opencode", or of
// the only agent.
func (l *loader) openCodeAgent(root cue.Value, s *model.Spec) {
	if len(s.Agents) <= 1 || slices.ContainsFunc(s.Agents, func(a *model.Agent) bool { return a.Name == "opencode" }) {
		return
	}
	l.errorf(lookup(root, cue.Str("agents")), "opencode", "opencode.json takes its model from the agent called \"opencode\" "+
		"(or from the only agent), and none of these %d agents is called so; name the agent OpenCode runs opencode", len(s.Agents))
}

// openCodeMCP reports an opencode.config "mcp" that the MCP emitter cannot
// add the gateway's server to: one that is not an object, or one that
// already has an entry under the contract's name, which the gateway's entry
// takes (the MCP server is named after the contract). Only with
// codegen.mcp set: without it nothing is added.
func (l *loader) openCodeMCP(root cue.Value, s *model.Spec) {
	servers := lookup(root, cue.Str("opencode"), cue.Str("config"), cue.Str("mcp"))
	if s.Codegen.MCP == nil || !servers.Exists() {
		return
	}
	if servers.Kind() != cue.StructKind {
		l.errorf(servers, "codegen", "opencode.config.mcp must be an object of MCP servers: "+
			"with codegen.mcp set, agentc adds the gateway's server to it")
		return
	}
	name := s.Contract.Name
	if taken := lookup(servers, cue.Str(name)); taken.Exists() {
		l.errorf(taken, "codegen", "opencode.config.mcp already has a server %q: "+
			"with codegen.mcp set, the gateway's MCP server takes the contract's name; rename this one", name)
	}
}

// outputDirs reports codegen directories that are the same or nested, even
// ignoring case (as a macOS or Windows checkout does): each kind of output
// needs a tree of its own, or two emitters could write the same file (a
// tool's JSON Schema over an injection manifest).
func (l *loader) outputDirs(root cue.Value, s *model.Spec) {
	c := s.Codegen
	dirs := []struct{ field, dir string }{
		{"go.dir", c.GoDir}, {"opencode.dir", c.OpenCodeDir}, {"ts.dir", c.TSDir},
		{"jsonschema.dir", c.JSONSchemaDir}, {"docs.dir", c.DocsDir},
	}
	within := func(dir, parent string) bool {
		return parent == "." || dir == parent || strings.HasPrefix(dir, parent+"/")
	}
	for i, a := range dirs {
		for j, b := range dirs {
			da, db := strings.ToLower(path.Clean(a.dir)), strings.ToLower(path.Clean(b.dir))
			if i == j || !within(da, db) || (da == db && i < j) {
				continue
			}
			how := "inside"
			switch {
			case path.Clean(a.dir) == path.Clean(b.dir):
				how = "the same as"
			case da == db:
				how = "the same, ignoring case (as a macOS or Windows checkout does), as"
			case !within(path.Clean(a.dir), path.Clean(b.dir)):
				how = "inside, ignoring case (as a macOS or Windows checkout does),"
			}
			// At the directory the author set: the other may be a default.
			at := l.vpos(root.LookupPath(cue.ParsePath("codegen." + a.field)))
			if bp := l.vpos(root.LookupPath(cue.ParsePath("codegen." + b.field))); !inSpec(at) {
				at = bp
			}
			l.errs.Add(at, "codegen", "codegen.%s %q is %s codegen.%s %q: each kind of output needs a directory of its own, "+
				"or two emitters could write the same file", a.field, a.dir, how, b.field, b.dir)
		}
	}
}

// goImport reports a spec from which the Go package could not import its
// runtime: one that sets neither codegen.go.import (the runtime is then
// written beside the package and imported from there) nor
// codegen.go.runtime.
func (l *loader) goImport(root cue.Value, s *model.Spec) {
	if s.Codegen.RuntimeImport() != "" {
		return
	}
	// At codegen.go or the closest section above it the spec writes, else
	// at the contract.
	at := l.pathPos([]string{"codegen", "go"}, l.vpos(lookup(root, cue.Str("contract"))))
	l.errs.Add(at, "codegen", "set codegen.go.import to the import path of the Go package in codegen.go.dir %q "+
		"(such as example.com/gateway/%s): the package imports its runtime, which agentc writes beside it "+
		"(or set codegen.go.runtime to a copy of the runtime to import)", s.Codegen.GoDir, path.Join(s.Codegen.Out, s.Codegen.GoDir))
}
