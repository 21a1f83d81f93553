package conformance

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	agentcload "github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/zod"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// goDecoders maps each tool of the default spec to its generated decoder.
var goDecoders = map[string]func([]byte) (any, error){
	"automation.complete":   wrap(contract.DecodeAutomationCompleteArgs),
	"request_env_variables": wrap(contract.DecodeRequestEnvVariablesArgs),
	"save_env_files":        wrap(contract.DecodeSaveEnvFilesArgs),
	"save_service_commands": wrap(contract.DecodeSaveServiceCommandsArgs),
	"save_snapshot":         wrap(contract.DecodeSaveSnapshotArgs),
}

func wrap[T any](f func([]byte) (T, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		v, err := f(b)
		return v, err
	}
}

// verdict is one executor's answer for one input.
type verdict struct {
	Syntax bool
	OK     bool
	// Issues is the JSON of the issue list (Go and zod).
	Issues string
	// Data is the decoded value, re-encoded canonically (Go and zod).
	Data string
}

// runGo runs the generated Go decoder.
func runGo(tool string, input []byte) (verdict, error) {
	dec := goDecoders[tool]
	if dec == nil {
		return verdict{}, fmt.Errorf("no Go decoder for %s", tool)
	}
	v, err := dec(input)
	var se *contract.SyntaxError
	var is contract.Issues
	switch {
	case err == nil:
		b, err := json.Marshal(v)
		if err != nil {
			return verdict{}, err
		}
		return verdict{OK: true, Data: canonical(b)}, nil
	case errors.As(err, &se):
		return verdict{Syntax: true}, nil
	case errors.As(err, &is):
		b, _ := is.MarshalJSON()
		return verdict{Issues: string(b)}, nil
	}
	return verdict{}, fmt.Errorf("unexpected error type %T: %v", err, err)
}

// canonical re-encodes JSON so that equal values compare equal. A negative
// zero becomes the marker {"$negativeZero":true}, as zodrunner.js writes
// it (JSON.stringify writes -0 as 0).
func canonical(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "!" + err.Error()
	}
	out, _ := json.Marshal(markNegativeZero(v))
	return string(out)
}

// markNegativeZero replaces each -0 in v by {"$negativeZero":true}.
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

// zodProc is a long-lived node process running the generated zod schemas.
type zodProc struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

// zodSchemasTS renders a TypeScript module exporting each tool's zod
// schema as `schemas`.
func zodSchemasTS(s *model.Spec) string {
	f := zod.NewFile()
	var body strings.Builder
	for _, t := range s.Tools {
		fmt.Fprintf(&body, "  %q: z.object(%s),\n", t.Name, f.Shape(t.Args, "  "))
	}
	// The helpers and named checks the schemas call, as the OpenCode
	// runtime and tool files hold them.
	return "import { z } from \"zod\";\n\n" + zod.Helpers + "\n" + f.Decls() +
		"export const schemas: Record<string, z.ZodType> = {\n" + body.String() + "};\n"
}

// startZod starts the runner for spec s; the process ends with the test.
func startZod(t testing.TB, s *model.Spec) *zodProc {
	t.Helper()
	node := nodetool.Node(t)
	nm := nodetool.Dir(t)
	dir := t.TempDir()
	schemas := filepath.Join(dir, "schemas.ts")
	if err := os.WriteFile(schemas, []byte(zodSchemasTS(s)), 0o644); err != nil {
		t.Fatal(err)
	}
	runner, err := filepath.Abs(filepath.Join("testdata", "zodrunner.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, runner, schemas)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nm)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &zodProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	return p
}

// zodAnswer is the runner's reply.
type zodAnswer struct {
	ID         int             `json:"id"`
	Syntax     bool            `json:"syntax"`
	OK         bool            `json:"ok"`
	Issues     json.RawMessage `json:"issues"`
	Data       json.RawMessage `json:"data"`
	NS         float64         `json:"ns"`
	ValidateNS float64         `json:"validate_ns"`
	Error      string          `json:"error"`
}

func (p *zodProc) call(req map[string]any) (zodAnswer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	req["id"] = p.next
	b, _ := json.Marshal(req)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return zodAnswer{}, err
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return zodAnswer{}, fmt.Errorf("reading from node: %w", err)
	}
	var a zodAnswer
	if err := json.Unmarshal(line, &a); err != nil {
		return zodAnswer{}, fmt.Errorf("decoding %q: %w", line, err)
	}
	if a.Error != "" {
		return a, fmt.Errorf("node: %s", a.Error)
	}
	if a.ID != p.next {
		return a, fmt.Errorf("node answered %d, want %d", a.ID, p.next)
	}
	return a, nil
}

// run runs the generated zod on input.
func (p *zodProc) run(tool string, input []byte) (verdict, error) {
	a, err := p.call(map[string]any{"tool": tool, "input": base64.StdEncoding.EncodeToString(input)})
	if err != nil {
		return verdict{}, err
	}
	v := verdict{Syntax: a.Syntax, OK: a.OK}
	if a.OK {
		v.Data = canonical(a.Data)
	} else if !a.Syntax {
		v.Issues = string(a.Issues)
	}
	return v, nil
}

// bench asks node to time n iterations of JSON.parse + safeParse.
func (p *zodProc) bench(tool string, input []byte, n int) (parseAndValidate, validate float64, err error) {
	a, err := p.call(map[string]any{"tool": tool, "input": base64.StdEncoding.EncodeToString(input), "bench": n})
	return a.NS, a.ValidateNS, err
}

// cueExec evaluates inputs against the spec's CUE argument schemas.
type cueExec struct {
	ctx  *cue.Context
	root cue.Value
}

func newCUE(t testing.TB, dir string) *cueExec {
	t.Helper()
	ctx := cuecontext.New()
	insts := load.Instances([]string{"."}, &load.Config{Dir: dir})
	if len(insts) != 1 || insts[0].Err != nil {
		t.Fatalf("loading %s: %v", dir, insts[0].Err)
	}
	v := ctx.BuildInstance(insts[0])
	if err := v.Err(); err != nil {
		t.Fatalf("building %s: %v", dir, err)
	}
	return &cueExec{ctx: ctx, root: v}
}

// schema returns the args schema of a tool.
func (c *cueExec) schema(tool string) cue.Value {
	return c.root.LookupPath(cue.MakePath(cue.Str("tools"), cue.Str(tool), cue.Str("args")))
}

// accepts reports whether CUE accepts the input (syntax errors reject).
// args is the model's schema of the same arguments: CUE itself lets an
// absent regular field take its default or its concrete value ([] for a
// list [...T], "dotenv" for a literal), while the spec language makes a
// regular field required; so a required field's presence is checked here
// first, against the model, and then CUE evaluates the input.
func (c *cueExec) accepts(schema cue.Value, args *model.Type, input []byte) (bool, error) {
	v, ok := jsValue(input)
	if !ok {
		return false, nil
	}
	if !requiredPresent(args, v) {
		return false, nil
	}
	u := schema.Unify(c.ctx.Encode(v))
	return u.Validate(cue.Concrete(true)) == nil, nil
}

// jsValue parses input as JSON.parse does and normalises it for CUE (see
// the package doc). ok is false for input that is not JSON.
func jsValue(input []byte) (any, bool) {
	if !json.Valid(input) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return normalise(v), true
}

func normalise(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil && !math.IsInf(f, 0) {
			return nil
		}
		switch {
		case math.IsInf(f, 0):
			return nil
		case f == math.Trunc(f) && math.Abs(f) <= 1<<53-1:
			return int64(f)
		}
		return f
	case string:
		if !utf8.ValidString(v) {
			return strings.ToValidUTF8(v, "\uFFFD")
		}
		return v
	case []any:
		for i := range v {
			v[i] = normalise(v[i])
		}
		return v
	case map[string]any:
		for k, x := range v {
			v[k] = normalise(x)
		}
		return v
	}
	return v
}

// defaultSpec loads the default spec's model.
func defaultSpec(t testing.TB) *model.Spec {
	t.Helper()
	s, err := agentcload.Load(agentcload.Default())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// specDir is the default spec's directory on disk.
func specDir(t testing.TB) string {
	return filepath.Join(nodetool.ModuleRoot(t), "spec")
}

// requiredPresent reports whether every required field of t is present
// wherever v has an object of type t.
func requiredPresent(t *model.Type, v any) bool {
	switch t.Kind {
	case model.Object:
		m, ok := v.(map[string]any)
		if !ok {
			return true // a type error; CUE reports it
		}
		for _, f := range t.Fields {
			x, present := m[f.Name]
			if !present {
				if f.Presence == model.Required {
					return false
				}
				continue
			}
			if !requiredPresent(f.Type, x) {
				return false
			}
		}
	case model.Array:
		l, _ := v.([]any)
		for _, x := range l {
			if !requiredPresent(t.Items, x) {
				return false
			}
		}
	}
	return true
}
