// Package opencodelayout is what agentc's OpenCode side looks like, for
// the emitters that write it or describe it (tsgen, proxygen, mcpgen,
// docgen): where each file goes under codegen.opencode.dir, the injection
// manifests that install a mode's files in a sandbox, opencode.json, the
// description the model reads of each tool, and the gateway's MCP
// endpoint as the MCP-mode config names it.
package opencodelayout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentc-dev/agentc/gen/model"
)

// Paths of the OpenCode files, relative to codegen.opencode.dir.
const (
	// ToolSubdir holds the tool modules, descriptions and package.json; it
	// is installed as opencode.tool_dir.
	ToolSubdir = "tool"
	// RuntimeFile is the shared runtime, relative to the tool folder: in a
	// subfolder, where OpenCode (which loads tool/*.ts) does not load it as
	// a tool and its @opencode-ai/plugin resolves to the tool folder's.
	RuntimeFile = "agentc/runtime.ts"
	// ConfigFile is opencode.json.
	ConfigFile = "opencode.json"
	// InjectSubdir holds one injection manifest per mode.
	InjectSubdir = "inject"
	// PluginFile is the prompt proxy plugin (emitter "proxy"); it is
	// installed in the folder beside the tool folder where OpenCode loads
	// every file as a plugin.
	PluginFile = "plugin/agentc-prompt-proxy.ts"
	// MCPConfigFile is the MCP-mode opencode.json (emitter "mcp").
	MCPConfigFile = "mcp/opencode.json"
	// MCPInjectSubdir holds the MCP-mode injection manifests.
	MCPInjectSubdir = "inject/mcp"
)

// MCPPath, MCPSessionHeader and MCPToolCallIDMeta are the constants Path,
// SessionHeader and ToolCallIDMeta of the MCP server's runtime (package
// agentmcp), for the MCP-mode config and the docs; a test checks that they
// agree.
const (
	MCPPath           = "/mcp"
	MCPSessionHeader  = "X-Agentc-Session"
	MCPToolCallIDMeta = "dev.agentc/tool_call_id"
)

// Injection is a mode's injection manifest: what a sandbox provider writes
// and removes so that the sandbox holds exactly the mode's tools.
type Injection struct {
	// Mode is the mode's name.
	Mode string `json:"mode"`
	// Tools are the names of the tools the mode injects, sorted.
	Tools []string `json:"tools"`
	// Write lists the files to write: Source is relative to the OpenCode
	// output directory, Path relative to the repository (or absolute).
	Write []InjectFile `json:"write"`
	// Remove lists files to delete if present (relative to the
	// repository): the files of the tools the mode does not inject, which
	// a snapshot taken in another mode may hold.
	Remove []string `json:"remove"`
	// Env lists the environment variables the provider sets for OpenCode
	// in this mode: the prompt proxy plugin reads the session's mode from
	// the spec's proxy.env.mode.
	Env map[string]string `json:"env"`
}

// InjectFile is one file to write.
type InjectFile struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

// Inject returns mode m's injection manifest for the callback transport,
// or, with mcp, for the MCP transport (emitter "mcp"): the gateway tools'
// files are then removed too, as their calls go through MCP (the tools
// stay listed in Tools: the mode has them), the MCP-mode config is
// installed in place of opencode.json, and Remove is sorted.
func Inject(s *model.Spec, m *model.Mode, mcp bool) Injection {
	toolDir := s.OpenCode.ToolDir
	inj := Injection{Mode: m.Name, Tools: []string{}, Write: []InjectFile{}, Remove: []string{}}
	for _, ts := range m.Standings {
		t := ts.Tool
		for _, ext := range []string{".ts", ".txt"} {
			src := path.Join(ToolSubdir, t.FileName+ext)
			dst := path.Join(toolDir, t.FileName+ext)
			if ts.Standing.Injected() && !(mcp && t.Execution.GatewayExecuted()) {
				inj.Write = append(inj.Write, InjectFile{Path: dst, Source: src})
			} else {
				inj.Remove = append(inj.Remove, dst)
			}
		}
		if ts.Standing.Injected() {
			inj.Tools = append(inj.Tools, t.Name)
		}
	}
	inj.Write = append(inj.Write,
		InjectFile{Path: path.Join(toolDir, "package.json"), Source: path.Join(ToolSubdir, "package.json")},
		InjectFile{Path: path.Join(toolDir, RuntimeFile), Source: path.Join(ToolSubdir, RuntimeFile)},
		// The prompt proxy plugin; OpenCode loads every file in
		// .opencode/plugin/.
		InjectFile{Path: path.Join(path.Dir(toolDir), PluginFile), Source: PluginFile},
	)
	inj.Env = map[string]string{s.Proxy.EnvMode: m.Name}
	config := ConfigFile
	if mcp {
		config = MCPConfigFile
		slices.Sort(inj.Remove)
	}
	for _, p := range s.OpenCode.ConfigPaths {
		inj.Write = append(inj.Write, InjectFile{Path: p, Source: config})
	}
	return inj
}

// Config returns opencode.json as a JSON object (numbers as json.Number):
// the spec's opencode.config plus "model", the OpenCode ID of the default
// agent's default model (the loader admits no agent without one, and no
// opencode.config that sets "model" itself).
func Config(s *model.Spec) (map[string]any, error) {
	cfg := map[string]any{}
	d := json.NewDecoder(bytes.NewReader(s.OpenCode.Config))
	d.UseNumber()
	// A JSON object: the loader writes opencode.config, a struct ({...} in
	// the metaschema), as canonical JSON.
	_ = d.Decode(&cfg)
	// The default agent, whose default model opencode.json names: the agent
	// called "opencode", or the only agent.
	i := slices.IndexFunc(s.Agents, func(a *model.Agent) bool { return a.Name == "opencode" })
	if i < 0 && len(s.Agents) == 1 {
		i = 0
	}
	if i < 0 {
		return nil, fmt.Errorf("opencode.json needs a model: the spec has %d agents and none is called \"opencode\"", len(s.Agents))
	}
	cfg["model"] = s.Agents[i].Default.OpenCode
	return cfg, nil
}

// ToolDescription is what the model reads about t: its description, after
// a deprecation notice when t is deprecated.
func ToolDescription(t *model.Tool) string {
	d := strings.TrimRight(t.Description, "\n")
	if t.Deprecated != "" {
		d = "Deprecated: " + t.Deprecated + "\n\n" + d
	}
	return d
}
