package specfuzz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentc-dev/agentc/gen/internal/scratch"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// A request is one probe for one side: the Go harness (Tree) or the node
// runner (Module). Values are keyed by spec name for Go, by TypeScript
// property name for node.
type request struct {
	Tree   string            `json:"tree,omitempty"`
	Module string            `json:"module,omitempty"`
	Op     string            `json:"op"`
	Tool   string            `json:"tool,omitempty"`
	Input  []byte            `json:"input,omitempty"`
	Mode   string            `json:"mode"`
	Custom string            `json:"custom"`
	ID     string            `json:"id"`
	Values map[string]string `json:"values,omitempty"`
	Req    json.RawMessage   `json:"req,omitempty"`
}

// An answer is either side's reply; each op sets its own fields.
type answer struct {
	Syntax       bool     `json:"syntax"`
	OK           bool     `json:"ok"`
	Data         string   `json:"data"`
	Issues       string   `json:"issues"`
	Schema       string   `json:"schema"`
	Mode         string   `json:"mode"`
	Prompt       string   `json:"prompt"`
	Critical     string   `json:"critical"`
	Failed       bool     `json:"failed"`
	OpenCode     *string  `json:"opencode"`
	API          *string  `json:"api"`
	FromOpenCode *string  `json:"fromOpencode"`
	FromAPI      *string  `json:"fromApi"`
	Default      *string  `json:"default"`
	Models       []string `json:"models"`
	Response     string   `json:"response"`
	Error        string   `json:"error"`
}

// A probe is one comparison: the request for each side (goReq nil for a
// comparison with a generated file, want), its class and kind.
type probe struct {
	sp          *specRun
	class, kind string
	goReq       *request
	tsReq       request
	want        []byte
}

// harnessMain is the Go harness: one JSON request a line on stdin, one
// answer a line on stdout, dispatched to each tree's generated package.
const harnessMain = `package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"

%s)

type request struct {
	Tree   string            ` + "`json:\"tree\"`" + `
	Op     string            ` + "`json:\"op\"`" + `
	Tool   string            ` + "`json:\"tool\"`" + `
	Input  []byte            ` + "`json:\"input\"`" + `
	Mode   string            ` + "`json:\"mode\"`" + `
	Custom string            ` + "`json:\"custom\"`" + `
	ID     string            ` + "`json:\"id\"`" + `
	Values map[string]string ` + "`json:\"values\"`" + `
	Req    json.RawMessage   ` + "`json:\"req\"`" + `
}

type answer map[string]any

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<26)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			_ = enc.Encode(answer{"error": err.Error()})
			continue
		}
		_ = enc.Encode(run(r))
	}
	_ = out.Flush()
}

func run(r request) answer {
	switch r.Tree {
%s	}
	return answer{"error": "unknown tree " + r.Tree}
}

// decoded answers a decoder's result: the data, zod's issues, or a syntax error.
func decoded[T any](v T, err error) answer {
	if err == nil {
		b, err := json.Marshal(v)
		if err != nil {
			return answer{"error": err.Error()}
		}
		return answer{"ok": true, "data": string(b)}
	}
	var issues json.Marshaler
	if errors.As(err, &issues) {
		b, err := issues.MarshalJSON()
		if err != nil {
			return answer{"error": err.Error()}
		}
		return answer{"issues": string(b)}
	}
	return answer{"syntax": true}
}

// id is a model ID transform's answer: the ID, or nil for an error.
func id(f func(string) (string, error), in string) any {
	out, err := f(in)
	if err != nil {
		return nil
	}
	return out
}

func strs[T ~string](l []T) []string {
	out := []string{}
	for _, x := range l {
		out = append(out, string(x))
	}
	return out
}
%s`

// treeFunc is one tree's dispatch in the Go harness (%[1]s is its import
// name).
const treeFunc = `
func run_%[1]s(r request) answer {
	switch r.Op {
	case "decode":
		switch r.Tool {
%[2]s		}
	case "select":
		return answer{"mode": string(%[1]s.SelectMode(%[1]s.Session{%[3]s}))}
	case "prompt":
		p := %[1]s.PromptParams{%[4]s}
		s, err := %[1]s.BuildSystemPrompt(%[1]s.Mode(r.Mode), p, r.Custom)
		return answer{"prompt": s, "failed": err != nil, "critical": %[1]s.CriticalInstructions(%[1]s.Mode(r.Mode), p)}
	case "model":
		return answer{
			"opencode":     id(%[1]s.ToOpenCodeModelID, r.ID),
			"api":          id(%[1]s.ToAPIModelID, r.ID),
			"fromOpencode": id(%[1]s.OpenCodeToCanonicalModelID, r.ID),
			"fromApi":      id(%[1]s.APIToCanonicalModelID, r.ID),
		}
	case "agent":
		a := %[1]s.AgentType(r.ID)
		def, err := a.DefaultModel()
		if err != nil {
			return answer{"default": nil, "models": nil}
		}
		return answer{"default": string(def), "models": strs(a.Models())}
	case "resolve":
		var req %[1]s.PromptRequest
		if err := json.Unmarshal(r.Req, &req); err != nil {
			return answer{"error": err.Error()}
		}
		resp, err := %[1]s.ResolvePrompt(req)
		if err != nil {
			return answer{"failed": true}
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return answer{"error": err.Error()}
		}
		return answer{"response": string(b)}
	}
	return answer{"error": "unknown op " + r.Op}
}
`

// harnessSource renders the Go harness for the given specs.
func harnessSource(specs []*specRun) []byte {
	var imports, cases, funcs strings.Builder
	for _, sp := range specs {
		s, n := sp.spec, sp.tree
		fmt.Fprintf(&imports, "\t%s %q\n", n, scratch.Path+"/"+n+"/"+s.Codegen.GoDir)
		fmt.Fprintf(&cases, "\tcase %q:\n\t\treturn run_%s(r)\n", n, n)
		var decoders, session, params strings.Builder
		for _, t := range s.Tools {
			fmt.Fprintf(&decoders, "\t\tcase %q:\n\t\t\treturn decoded(%s.Decode%sArgs(r.Input))\n", t.Name, n, t.GoName)
		}
		for _, in := range s.Selection.Inputs {
			fmt.Fprintf(&session, "%s: r.Values[%q], ", in.GoName, in.Name)
		}
		for _, p := range s.PromptParams {
			fmt.Fprintf(&params, "%s: r.Values[%q], ", names.GoExported(p.Name), p.Name)
		}
		fmt.Fprintf(&funcs, treeFunc, n, decoders.String(), strings.TrimSuffix(session.String(), ", "), strings.TrimSuffix(params.String(), ", "))
	}
	return fmt.Appendf(nil, harnessMain, imports.String(), cases.String(), funcs.String())
}

// probes returns the comparisons for one accepted spec: its tools'
// argument cases (Go ≡ zod) and JSON Schemas (≡ zod's toJSONSchema), and
// Go ≡ TypeScript for selection, prompts, model IDs, agents and the prompt
// proxy's resolution (prompt and model parameters).
func probes(sp *specRun, root string, r *rand.Rand, casesPerTool int) []*probe {
	s := sp.spec
	tree := filepath.Join(root, sp.tree)
	ocDir := filepath.Join(tree, filepath.FromSlash(s.Codegen.OpenCodeDir))
	tsDir := filepath.Join(tree, filepath.FromSlash(s.Codegen.TSDir))
	var out []*probe
	both := func(class, kind string, goReq, tsReq request) {
		goReq.Tree = sp.tree
		out = append(out, &probe{sp: sp, class: class, kind: kind, goReq: &goReq, tsReq: tsReq})
	}
	for _, t := range s.Tools {
		module := filepath.Join(ocDir, opencodelayout.ToolSubdir, t.FileName+".ts")
		for _, c := range argCases(r, t, casesPerTool) {
			both(classDecode, c.kind, request{Op: "decode", Tool: t.Name, Input: []byte(c.input)},
				request{Op: "decode", Module: module, Input: []byte(c.input)})
		}
		out = append(out, &probe{sp: sp, class: classSchema, kind: "schema", tsReq: request{Op: "schema", Module: module},
			want: sp.file(path.Join(s.Codegen.JSONSchemaDir, t.FileName+".json"))})
	}
	// Selection: the values the rules compare with, and others.
	ruleValues := map[string][]string{}
	for _, rule := range s.Selection.Rules {
		for _, c := range rule.When {
			ruleValues[c.Input.Name] = append(ruleValues[c.Input.Name], c.Value)
		}
	}
	for range 12 {
		goVals, tsVals := map[string]string{}, map[string]string{}
		for _, in := range s.Selection.Inputs {
			v := textValues[r.IntN(len(textValues))]
			if vs := ruleValues[in.Name]; len(vs) > 0 && r.IntN(3) > 0 {
				v = vs[r.IntN(len(vs))]
			}
			goVals[in.Name], tsVals[in.TSName] = v, v
		}
		both(classSelect, "select", request{Op: "select", Values: goVals},
			request{Op: "select", Module: filepath.Join(tsDir, "modes.ts"), Values: tsVals})
	}
	// Prompts: every mode with each kind of custom prompt.
	for _, m := range s.Modes {
		for _, c := range customPrompts {
			goVals, tsVals := map[string]string{}, map[string]string{}
			for _, p := range s.PromptParams {
				v := textValues[r.IntN(len(textValues))]
				goVals[p.Name], tsVals[p.TSName] = v, v
			}
			both(classPrompt, c.kind, request{Op: "prompt", Mode: m.Name, Custom: c.text, Values: goVals},
				request{Op: "prompt", Module: filepath.Join(tsDir, "prompts.ts"), Mode: m.Name, Custom: c.text, Values: tsVals})
		}
	}
	// Model IDs in every form, and others; agents.
	ids := []string{"", "nope", "constructor", "__proto__", "toString", "hasOwnProperty"}
	for _, m := range s.Models {
		ids = append(ids, m.Canonical, m.OpenCode, m.API)
	}
	for _, id := range ids {
		kind := "model-id"
		if id == "__proto__" || id == "constructor" || id == "toString" || id == "hasOwnProperty" {
			kind = "model-id-" + id
		}
		both(classModel, kind, request{Op: "model", ID: id}, request{Op: "model", Module: filepath.Join(tsDir, "models.ts"), ID: id})
	}
	for _, a := range append([]string{"nope", "constructor", "__proto__"}, agentNamesOf(s)...) {
		both(classAgent, "agent", request{Op: "agent", ID: a}, request{Op: "agent", Module: filepath.Join(tsDir, "models.ts"), ID: a})
	}
	// The prompt proxy: the service (Go) and the plugin's local defaults.
	plugin := filepath.Join(ocDir, filepath.FromSlash(opencodelayout.PluginFile))
	for range 16 {
		req, kind := proxyRequest(s, r)
		both(classResolve, kind, request{Op: "resolve", Req: req}, request{Op: "resolve", Module: plugin, Req: req})
	}
	return out
}

func agentNamesOf(s *model.Spec) []string {
	var out []string
	for _, a := range s.Agents {
		out = append(out, a.Name)
	}
	return out
}

// proxyRequest returns a random prompt request for the spec (a valid mode,
// or none) and its kind.
func proxyRequest(s *model.Spec, r *rand.Rand) (json.RawMessage, string) {
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	mode := ""
	if r.IntN(4) > 0 {
		mode = s.Modes[r.IntN(len(s.Modes))].Name
	}
	models := []string{"", "x/y", "constructor"}
	for _, m := range s.Models {
		models = append(models, m.OpenCode, m.OpenCode)
	}
	agents := append([]string{"", "build", "plan", "general", "explore", "other", "constructor", "__proto__", "toString"}, s.Proxy.Agents...)
	params := map[string]string{}
	for _, p := range s.PromptParams {
		if r.IntN(4) > 0 {
			params[p.Name] = pick(textValues)
		}
	}
	kind := "resolve"
	if r.IntN(4) == 0 {
		// Parameters named as what every JavaScript object inherits.
		params[pick([]string{"constructor", "toString", "__proto__", "valueOf"})] = "x"
		kind = "resolve-inherited-param"
	}
	custom := customPrompts[r.IntN(len(customPrompts))]
	if custom.kind != "no-custom" && kind == "resolve" {
		kind = "resolve-" + custom.kind
	}
	req := map[string]any{
		"sessionID": pick([]string{"ses_1", "ses_2", "é", "😀", "a:b", fmt.Sprint(r.Uint32())}),
		"agent":     pick(agents),
		"user":      map[string]any{"system": custom.text, "parts": []any{}},
		"metadata":  map[string]any{"project": "p", "directory": "/d", "mode": mode, "model": pick(models), "params": params},
	}
	b, _ := json.Marshal(req)
	return b, kind
}

// runLines runs cmd with one line of input per request and returns one
// answer per request.
func runLines(cmd *exec.Cmd, reqs []request) ([]answer, error) {
	var in bytes.Buffer
	for _, r := range reqs {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", cmd.Path, err, stderr.Bytes())
	}
	var answers []answer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("%s: answer %q: %v", cmd.Path, sc.Bytes(), err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(reqs) {
		return nil, fmt.Errorf("%s: %d answers to %d requests\n%s", cmd.Path, len(answers), len(reqs), stderr.Bytes())
	}
	return answers, nil
}

// canonical re-encodes JSON so that equal values compare equal: keys
// sorted, and a -0 as the marker {"$negativeZero":true}, which the node
// runner writes for JavaScript's -0.
func canonical(s string) string {
	if s == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "!" + err.Error()
	}
	out, _ := json.Marshal(markNegativeZero(v))
	return string(out)
}

func markNegativeZero(v any) any {
	switch v := v.(type) {
	case float64:
		if v == 0 && math.Signbit(v) {
			return map[string]any{"$negativeZero": true}
		}
	case []any:
		for i := range v {
			v[i] = markNegativeZero(v[i])
		}
	case map[string]any:
		for k, x := range v {
			v[k] = markNegativeZero(x)
		}
	}
	return v
}

// intNegativeZero replaces, in canonical data of type t, each -0 marker at
// an integer's place by 0: zod keeps the -0 JSON.parse reads from "-0", a
// Go integer has no negative zero, and they are the same integer (as
// gen/conformance compares them). A -0 where a number is wanted must match.
func intNegativeZero(t *model.Type, data string) string {
	if !strings.Contains(data, "$negativeZero") {
		return data
	}
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		return data
	}
	var walk func(t *model.Type, v any) any
	walk = func(t *model.Type, v any) any {
		switch t.Kind {
		case model.Integer:
			if m, ok := v.(map[string]any); ok && len(m) == 1 && m["$negativeZero"] == true {
				return float64(0)
			}
		case model.Array:
			if l, ok := v.([]any); ok {
				for i := range l {
					l[i] = walk(t.Items, l[i])
				}
			}
		case model.Object:
			if m, ok := v.(map[string]any); ok {
				for _, f := range t.Fields {
					if x, ok := m[f.Name]; ok {
						m[f.Name] = walk(f.Type, x)
					}
				}
			}
		}
		return v
	}
	out, _ := json.Marshal(walk(t, v))
	return string(out)
}

// copyRunner copies the node runner and its hooks (tsgen's) into dir.
func copyRunner(dir string) error {
	for _, src := range []string{filepath.Join("testdata", "runner.mjs"), filepath.Join("..", "tsgen", "testdata", "node", "hooks.mjs")} {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
