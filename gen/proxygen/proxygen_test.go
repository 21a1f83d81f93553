package proxygen_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/procout"
	"github.com/agentc-dev/agentc/gen/internal/scratch"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/proxygen"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// exampleFile holds the prompt proxy's example settings (seed 002's: an
// agent's text, model parameters, an experiment), which the default spec,
// seed 001's contract, has none of.
const exampleFile = "proxy_example.cue"

// loadEdited loads the default spec with exampleFile added and, per file,
// one text replaced; it fails when a text is not found, so an edit of the
// spec cannot make the test vacuous.
func loadEdited(t *testing.T, edits map[string][2]string) *model.Spec {
	t.Helper()
	src := load.Default()
	files := map[string][]byte{}
	for name, data := range src.Files {
		files[name] = data
	}
	example, err := os.ReadFile(filepath.Join("testdata", exampleFile))
	if err != nil {
		t.Fatal(err)
	}
	files[exampleFile] = example
	for name, e := range edits {
		if !bytes.Contains(files[name], []byte(e[0])) {
			t.Fatalf("%s no longer holds %q", name, e[0])
		}
		files[name] = bytes.Replace(files[name], []byte(e[0]), []byte(e[1]), 1)
	}
	s, err := load.Load(load.Bytes(load.DefaultDisplayDir, files))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exampleBuild is the program exampleBinary builds, once for the
// package's tests; TestMain removes its directory.
var exampleBuild struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if exampleBuild.dir != "" {
		os.RemoveAll(exampleBuild.dir)
	}
	os.Exit(code)
}

// exampleMain is a program around the Go package generated from the
// default spec with exampleFile added: with argument serve it answers the
// prompt route on loopback, printing its URL and logging to stderr, until
// its stdin is closed; without, it reads an exampleQuery on stdin and
// writes its answer. %s stands for the package's import path.
const exampleMain = `package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"

	contract "%s"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("http://" + l.Addr().String())
		go func() {
			io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		http.Serve(l, &contract.PromptHandler{Logger: slog.New(slog.NewJSONHandler(os.Stderr, nil))})
		return
	}
	var in struct {
		IDs         []string
		Experiments []string
		Requests    []contract.PromptRequest
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := struct {
		Alloc, Again map[string][]string
		Resolved     []contract.PromptResponse
		Errors       []string
	}{Alloc: map[string][]string{}, Again: map[string][]string{}}
	for _, e := range in.Experiments {
		for _, id := range in.IDs {
			v, ok := contract.AllocateVariant(e, id)
			again, _ := contract.AllocateVariant(e, id)
			if !ok {
				v = ""
			}
			out.Alloc[e] = append(out.Alloc[e], v)
			out.Again[e] = append(out.Again[e], again)
		}
	}
	for _, r := range in.Requests {
		resp, err := contract.ResolvePrompt(r)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		out.Resolved = append(out.Resolved, resp)
		out.Errors = append(out.Errors, msg)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`

// generatedGo returns a scratch module holding the Go package generated
// from s, its runtime imported from this module, as package x.
func generatedGo(t *testing.T, s *model.Spec) *scratch.Module {
	t.Helper()
	mod := scratch.New(t)
	s.Codegen.GoImport, s.Codegen.GoRuntime = scratch.Path+"/x/"+s.Codegen.GoDir, ""
	s.Codegen.MCP = nil
	files, err := emit.Generate(s, emitters.All(), emit.Options{Only: []string{"go", "proxy"}})
	if err != nil {
		t.Fatal(err)
	}
	mod.Add(t, "x", files)
	return mod
}

// withExampleMain is generatedGo with the exampleMain program beside the
// package, as x/promptsvc.
func withExampleMain(t *testing.T, s *model.Spec) *scratch.Module {
	t.Helper()
	mod := generatedGo(t, s)
	mod.Write(t, "x/promptsvc/main.go", fmt.Appendf(nil, exampleMain, s.Codegen.GoImport))
	return mod
}

// exampleBinary returns the exampleMain program, which it builds once.
func exampleBinary(t *testing.T) string {
	t.Helper()
	exampleBuild.once.Do(func() {
		mod := withExampleMain(t, loadEdited(t, nil))
		var err error
		if exampleBuild.dir, err = os.MkdirTemp("", "proxygen-example-"); err != nil {
			exampleBuild.err = err
			return
		}
		bin := filepath.Join(exampleBuild.dir, "promptsvc")
		cmd := exec.Command("go", "build", "-o", bin, "./x/promptsvc")
		cmd.Dir, cmd.Env = mod.Dir, scratch.GoEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			exampleBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		exampleBuild.bin = bin
	})
	if exampleBuild.err != nil || exampleBuild.bin == "" {
		t.Fatalf("building the example's prompt service: %v", exampleBuild.err)
	}
	return exampleBuild.bin
}

// exampleQuery asks the example's generated Go for every experiment's
// variant of each session ID, twice, and for the answer to each request.
type exampleQuery struct {
	IDs         []string
	Experiments []string
	Requests    []contract.PromptRequest
}

// exampleAnswer is what the example's generated Go answers an
// exampleQuery: AllocateVariant's variants ("" for false), ResolvePrompt's
// answers and errors ("" for none).
type exampleAnswer struct {
	Alloc, Again map[string][]string
	Resolved     []contract.PromptResponse
	Errors       []string
}

// askExample runs the example's program on q.
func askExample(t *testing.T, q exampleQuery) exampleAnswer {
	t.Helper()
	in, _ := json.Marshal(q)
	cmd := exec.Command(exampleBinary(t))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the example's Go: %v\n%s", err, stderr.Bytes())
	}
	var a exampleAnswer
	if err := json.Unmarshal(out, &a); err != nil || len(a.Resolved) != len(q.Requests) || len(a.Errors) != len(q.Requests) {
		t.Fatalf("the example's Go answered %d resolutions for %d requests (%v)", len(a.Resolved), len(q.Requests), err)
	}
	return a
}

// exampleService is the example's program serving the prompt route.
type exampleService struct {
	URL  string
	cmd  *exec.Cmd
	in   io.WriteCloser
	logs *procout.SyncBuffer
}

// serveExample starts the example's prompt service; the test's end stops
// it.
func serveExample(t *testing.T) *exampleService {
	t.Helper()
	svc := &exampleService{cmd: exec.Command(exampleBinary(t), "serve"), logs: &procout.SyncBuffer{}}
	svc.cmd.Stderr = svc.logs
	var err error
	if svc.in, err = svc.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := svc.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.stop() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the example's service printed no URL (%v): %s", err, svc.logs.String())
	}
	svc.URL = strings.TrimSpace(line)
	return svc
}

// stop ends the service (it exits when its stdin closes) and returns its
// log, all of it.
func (svc *exampleService) stop() string {
	if svc.in.Close() == nil {
		done := make(chan struct{})
		go func() {
			svc.cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			svc.cmd.Process.Kill()
			<-done
		}
	}
	return svc.logs.String()
}

// localTemperature resolves the coding-mode temperature of the registry's
// claude-opus-4.6 for a session from the model, as both generated sides
// must.
func localTemperature(s *model.Spec, sessionID string) float64 {
	mode := s.Mode("coding")
	p := resolveParams(s.ModelParams, mode, s.Model("claude-opus-4.6"))
	for _, e := range s.Experiments {
		if applies(e, mode, "build") {
			p = merge(p, allocate(e, sessionID).Params)
		}
	}
	if p.Temperature == nil {
		return math.NaN()
	}
	return *p.Temperature
}

// TestGeneratedIsCurrent checks that the committed plugin and service are
// what the emitter makes of the default spec.
func TestGeneratedIsCurrent(t *testing.T) {
	t.Parallel()
	s, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}
	files, err := emit.Generate(s, []*emit.Emitter{proxygen.Emitter}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(nodetool.ModuleRoot(t), "generated")
	n := 0
	for _, f := range files {
		if f.Path == emit.ManifestName {
			continue
		}
		n++
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("generated/%s is stale (%v): run go run ./cmd/agentc gen", f.Path, err)
		}
	}
	if n != 2 {
		t.Errorf("the proxy emitter made %d files, want 2", n)
	}
}

// TestDefaultSpecServesSeed001 checks that the service generated from the
// default spec, seed 001's contract, which sets no model parameters, agent
// texts or experiments, answers each mode's prompt alone, for the plan
// agent too, and leaves every parameter to OpenCode.
func TestDefaultSpecServesSeed001(t *testing.T) {
	t.Parallel()
	params := contract.PromptParams{RepoName: "acme/web"}
	for _, mode := range contract.Modes() {
		want, err := contract.SystemPrompt(mode, params)
		if err != nil {
			t.Fatal(err)
		}
		for _, agent := range []string{"build", "plan"} {
			for _, mdl := range []string{"anthropic/claude-opus-4-6", "anthropic/claude-sonnet-4-5"} {
				got, err := contract.ResolvePrompt(contract.PromptRequest{SessionID: "ses_1", Agent: agent,
					Metadata: contract.PromptMetadata{Mode: string(mode), Model: mdl, Params: map[string]string{"repoName": params.RepoName}}})
				if err != nil || got.System != want || got.Params.Temperature != nil || got.Params.TopP != nil || len(got.Params.Options) > 0 || len(got.Experiments) > 0 {
					t.Errorf("mode %s, agent %s, model %s: %+v (%v); want the mode's prompt alone, no parameters, no experiment", mode, agent, mdl, got, err)
				}
			}
		}
	}
}

// TestPluginTypeChecks runs the pinned tsc --strict over the plugins of
// the default spec, which sets no model parameters, agent texts or
// experiments, of the default spec with the example's, and of the bare
// spec, which has no prompt parameter (promptParams reads no values),
// against the installed @opencode-ai/plugin.
func TestPluginTypeChecks(t *testing.T) {
	t.Parallel()
	tsc := nodetool.Tsc(t)
	node := nodetool.Node(t)
	modules := nodetool.Dir(t)
	root := t.TempDir()
	for _, dir := range []string{"", "../tsgen/testdata/bare"} {
		s := testspecs.Load(t, dir)
		if dir != "" && len(s.PromptParams) > 0 {
			t.Fatal("the bare spec has prompt parameters")
		}
		src := proxygen.Plugin(s)
		write(t, filepath.Join(root, testspecs.Name(dir), "agentc-prompt-proxy.ts"), src)
	}
	write(t, filepath.Join(root, "example", "agentc-prompt-proxy.ts"), proxygen.Plugin(loadEdited(t, nil)))
	write(t, filepath.Join(root, "tsconfig.json"), []byte(scratch.TSConfig(`"**/*.ts"`)))
	if err := os.Symlink(modules, filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, tsc, "--noEmit", "-p", root)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// TestExperimentFormsBuild: an experiment that names agents and no mode,
// whose variant alone sets provider options, makes a proxy.go that builds
// and vets beside its core package (it must import encoding/json for those
// options, and list the agents) and a plugin that type-checks; the
// example's experiment has neither.
func TestExperimentFormsBuild(t *testing.T) {
	t.Parallel()
	s := loadEdited(t, map[string][2]string{exampleFile: {
		"modes: [\"coding\"]\n\tvariants: {\n\t\tcontrol: weight: 1\n\t\tfocused: {\n\t\t\tweight: 1\n\t\t\tprompt: \"Prefer small, focused changes: touch only what the request needs, and say what you left alone.\"\n\t\t\tparams: temperature: 0.3",
		"agents: [\"build\", \"plan\"]\n\tvariants: {\n\t\tcontrol: weight: 1\n\t\tfocused: {\n\t\t\tweight: 1\n\t\t\tprompt: \"Prefer small, focused changes.\"\n\t\t\tparams: options: thinking: {type: \"enabled\", budgetTokens: 1024}",
	}})
	e := s.Experiments[0]
	if len(e.Modes) != 0 || len(e.Agents) != 2 || len(e.Variants[0].Params.Options)+len(e.Variants[1].Params.Options) == 0 {
		t.Fatalf("the edited experiment: modes %v, agents %v", e.Modes, e.Agents)
	}
	for _, l := range s.ModelParams.Models {
		if len(l.Params.Options) > 0 {
			t.Fatal("the example's model_params set options; the variant must be the only one")
		}
	}
	mod := generatedGo(t, s)
	if err := mod.LinkNodeModules(nodetool.Dir(t)); err != nil {
		t.Fatal(err)
	}
	for _, check := range []func() (scratch.Findings, error){
		func() (scratch.Findings, error) { return mod.GoVet() },
		func() (scratch.Findings, error) {
			return mod.TSC(nodetool.Node(t), nodetool.Tsc(t), map[string][]string{"x": {s.Codegen.OpenCodeDir}})
		},
	} {
		findings, err := check()
		if err != nil {
			t.Fatal(err)
		}
		for _, lines := range findings {
			t.Errorf("%s", strings.Join(lines, "\n"))
		}
	}
}

// readHooks returns tsgen's node module hooks, which transpile .ts modules
// on load.
func readHooks(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "tsgen", "testdata", "node", "hooks.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// driver imports the plugin under node (transpiled by hooks.mjs) and
// prints, for each session ID on stdin, its variant of every experiment,
// and the local resolution of a few requests.
const driver = `import { register } from "node:module"
import { pathToFileURL } from "node:url"
register("./hooks.mjs", import.meta.url)
let input = ""
for await (const chunk of process.stdin) input += chunk
const { ids, requests, hashes } = JSON.parse(input)
const mod = await import(pathToFileURL(process.argv[2]).href)
const alloc = {}
const twin = {}
for (const e of mod.EXPERIMENTS) alloc[e.name] = ids.map((id) => mod.allocate(e, id)?.name ?? "")
for (const e of mod.EXPERIMENTS) twin[e.name] = ids.map((id) => mod.allocate({ ...e, name: e.name + "_twin" }, id)?.name ?? "")
process.stdout.write(JSON.stringify({
  alloc,
  twin,
  hashes: hashes.map((s) => mod.fnv1a32(s)),
  local: requests.map((r) => mod.resolveLocal(r)),
}))
`

// TestAllocationGoAndTS allocates many session IDs in the Go and in the
// plugin generated from the default spec with the example's settings
// (under node): the variants must be identical, stable, and spread as the
// weights say (chi-square); the plugin's local resolution must equal the
// Go service's for every mode, agent (toString included: an agent prompt
// is an own property) and model.
func TestAllocationGoAndTS(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	modules := nodetool.Dir(t)
	s := loadEdited(t, nil)
	src := proxygen.Plugin(s)
	const n = 20000
	ids := sessionIDs(n)
	hashes := []string{"", "a", "foobar", "coding_focus:ses_1", "ünïcødé:☃"}
	var requests []contract.PromptRequest
	for _, m := range s.Modes {
		for _, agent := range []string{"build", "plan", "", "toString"} {
			for _, mdl := range []string{"anthropic/claude-opus-4-6", "anthropic/claude-sonnet-4-5", "other/model"} {
				// Blank custom prompts are none, as Go's strings.TrimSpace
				// sees white space (U+0085 is, U+FEFF is not).
				for _, custom := range []string{"", " ", "\n", "\u0085", "\ufeff", "You are a pirate.\n", "\n\nBe brief.\n\n"} {
					requests = append(requests, contract.PromptRequest{
						SessionID: fmt.Sprintf("ses_%s_%s_%d", m.Name, agent, len(requests)), Agent: agent,
						User:     contract.PromptUser{System: custom, Parts: []json.RawMessage{}},
						Metadata: contract.PromptMetadata{Mode: m.Name, Model: mdl, Params: map[string]string{"repoName": "acme/web"}},
					})
				}
			}
		}
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "agentc-prompt-proxy.ts"), src)
	write(t, filepath.Join(root, "driver.mjs"), []byte(driver))
	write(t, filepath.Join(root, "hooks.mjs"), readHooks(t))
	if err := os.Symlink(modules, filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]any{"ids": ids, "requests": requests, "hashes": hashes})
	cmd := exec.Command(node, "driver.mjs", filepath.Join(root, "agentc-prompt-proxy.ts"))
	cmd.Dir = root
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	began := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	t.Logf("%d allocations and %d resolutions under node in %v", n, len(requests), time.Since(began).Round(time.Millisecond))
	var got struct {
		Alloc  map[string][]string       `json:"alloc"`
		Twin   map[string][]string       `json:"twin"`
		Hashes []uint32                  `json:"hashes"`
		Local  []contract.PromptResponse `json:"local"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("driver output: %v", err)
	}

	for i, h := range hashes {
		if got.Hashes[i] != agentrt.AllocationHash(h) || got.Hashes[i] != fnv1a32(h) {
			t.Errorf("hash of %q: TS %d, Go %d, model %d", h, got.Hashes[i], agentrt.AllocationHash(h), fnv1a32(h))
		}
	}
	// FNV-1a 32 reference values.
	if agentrt.AllocationHash("") != 0x811c9dc5 || agentrt.AllocationHash("a") != 0xe40c292c || agentrt.AllocationHash("foobar") != 0xbf9cf968 {
		t.Errorf("AllocationHash does not match the FNV-1a 32 reference values")
	}

	if len(s.Experiments) == 0 {
		t.Fatal("the example has no experiment to allocate")
	}
	q := exampleQuery{IDs: ids, Requests: requests}
	for _, e := range s.Experiments {
		q.Experiments = append(q.Experiments, e.Name)
	}
	goSide := askExample(t, q)
	for _, e := range s.Experiments {
		tsAlloc := got.Alloc[e.Name]
		if len(tsAlloc) != n || len(goSide.Alloc[e.Name]) != n || len(goSide.Again[e.Name]) != n {
			t.Fatalf("experiment %s: %d TS and %d Go allocations, want %d", e.Name, len(tsAlloc), len(goSide.Alloc[e.Name]), n)
		}
		counts := map[string]int{}
		for i, id := range ids {
			goV, again := goSide.Alloc[e.Name][i], goSide.Again[e.Name][i]
			if goV == "" || goV != tsAlloc[i] || goV != again || goV != allocate(e, id).Name {
				t.Fatalf("experiment %s, session %s: Go %q (again %q), TS %q, model %q", e.Name, id, goV, again, tsAlloc[i], allocate(e, id).Name)
			}
			counts[goV]++
		}
		// Chi-square against the weights; with k-1 degrees of freedom the
		// 0.999 quantile stays under 10.83 + 4(k-2) for small k.
		chi := 0.0
		for _, v := range e.Variants {
			want := float64(n) * float64(v.Weight) / float64(e.TotalWeight)
			d := float64(counts[v.Name]) - want
			chi += d * d / want
		}
		limit := 10.83 + 4*float64(len(e.Variants)-2)
		t.Logf("experiment %s: %v over %d sessions, chi-square %.2f (limit %.2f)", e.Name, counts, n, chi, limit)
		if chi > limit {
			t.Errorf("experiment %s: allocation %v does not follow the weights (chi-square %.2f > %.2f)", e.Name, counts, chi, limit)
		}
		// In the plugin too, a twin experiment (the same variants under
		// another name) splits the sessions independently of this one.
		if pairs := independence(t, got.Alloc[e.Name], got.Twin[e.Name], e.Variants); pairs != nil {
			t.Errorf("experiment %s and its twin in the plugin: arms %v, not independent", e.Name, pairs)
		}
	}

	if len(got.Local) != len(requests) {
		t.Fatalf("%d local resolutions, want %d", len(got.Local), len(requests))
	}
	for i, req := range requests {
		if goSide.Errors[i] != "" {
			t.Fatal(goSide.Errors[i])
		}
		wb, _ := json.Marshal(goSide.Resolved[i])
		gb, _ := json.Marshal(got.Local[i])
		if !bytes.Equal(wb, gb) {
			t.Errorf("request %d (mode %s, agent %q, model %s, custom %q): the plugin resolves\n%s\nthe service\n%s", i, req.Metadata.Mode, req.Agent, req.Metadata.Model, req.User.System, gb, wb)
		}
	}
}

// independence reports whether two experiments with the same variants
// split the sessions independently, a[i] and b[i] being session i's arms:
// a chi-square test of the pairs' counts against the products of the
// weights, at the 0.999 quantile for two or three variants. It returns
// the counts when they fail it, nil when they pass.
func independence(t *testing.T, a, b []string, variants []*model.Variant) map[string]int {
	t.Helper()
	limits := map[int]float64{2: 16.27, 3: 26.12} // chi-square, k*k-1 degrees of freedom
	if len(a) != len(b) || len(a) == 0 || limits[len(variants)] == 0 {
		t.Fatalf("%d and %d allocations of %d variants", len(a), len(b), len(variants))
	}
	pairs := map[string]int{}
	for i := range a {
		pairs[a[i]+"/"+b[i]]++
	}
	total := 0
	for _, v := range variants {
		total += v.Weight
	}
	chi := 0.0
	for _, x := range variants {
		for _, y := range variants {
			want := float64(len(a)) * float64(x.Weight*y.Weight) / float64(total*total)
			d := float64(pairs[x.Name+"/"+y.Name]) - want
			chi += d * d / want
		}
	}
	if chi > limits[len(variants)] {
		t.Logf("chi-square %.2f > %.2f", chi, limits[len(variants)])
		return pairs
	}
	return nil
}

// sessionIDs returns n session IDs: half of them sequential (ses_0, ses_1,
// …), half scattered.
func sessionIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("ses_%d", i/2)
		if i%2 == 1 {
			ids[i] = fmt.Sprintf("ses_%08x%d", i*2654435761, i)
		}
	}
	return ids
}

// TestExperimentsIndependent: the service allocates a session's arm of
// one experiment independently of its arm of another. (FNV-1a modulo an
// even total weight put every session in the same arms of two 1:1
// experiments; its high bits alone still tied them for sequential IDs.)
func TestExperimentsIndependent(t *testing.T) {
	t.Parallel()
	var variants []agentrt.Variant[struct{}]
	var weights []*model.Variant
	for i, w := range []uint32{1, 1, 2} {
		name := string(rune('a' + i))
		variants = append(variants, agentrt.Variant[struct{}]{Name: name, Weight: w})
		weights = append(weights, &model.Variant{Name: name, Weight: int(w)})
	}
	ids := sessionIDs(20000)
	for _, vs := range [][]int{{0, 1}, {0, 1, 2}} {
		var exp []agentrt.Variant[struct{}]
		var ws []*model.Variant
		for _, i := range vs {
			exp = append(exp, variants[i])
			ws = append(ws, weights[i])
		}
		for _, names := range [][2]string{{"coding_focus", "tone"}, {"a", "b"}} {
			svc := agentrt.PromptService[string, struct{}]{Experiments: []agentrt.Experiment[string, struct{}]{
				{Name: names[0], Variants: exp}, {Name: names[1], Variants: exp},
			}}
			a, b := make([]string, len(ids)), make([]string, len(ids))
			for i, id := range ids {
				a[i], _ = svc.Allocate(names[0], id)
				b[i], _ = svc.Allocate(names[1], id)
			}
			if pairs := independence(t, a, b, ws); pairs != nil {
				t.Errorf("variants %v: arms of %s/%s %v, not independent", vs, names[0], names[1], pairs)
			}
		}
	}
}

// TestServiceHandler checks the answers, the 400s and the log records of
// the handler generated from the default spec with the example's settings.
func TestServiceHandler(t *testing.T) {
	t.Parallel()
	svc := serveExample(t)
	do := func(method, body string) (int, map[string]any) {
		req, err := http.NewRequest(method, svc.URL+contract.PromptProxyPath, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s %q: answer %q is not JSON", method, body, data)
		}
		return resp.StatusCode, out
	}
	code, out := do(http.MethodPost, `{"sessionID":"ses_1","agent":"plan","user":{"system":"","parts":[]},"metadata":{"project":"p","directory":"/w","mode":"setup","model":"anthropic/claude-opus-4-6","params":{"repoName":"acme/web"}}}`)
	if code != http.StatusOK {
		t.Fatalf("status %d: %v", code, out)
	}
	want := contract.SetupPrompt(contract.PromptParams{RepoName: "acme/web"})
	if out["system"] != want {
		t.Errorf("setup/plan system = %q, want the setup prompt (no plan text in setup)", out["system"])
	}
	if p := out["params"].(map[string]any); p["temperature"] != 0.2 {
		t.Errorf("setup params = %v, want temperature 0.2", p)
	}
	code, out = do(http.MethodPost, `{"sessionID":"ses_2","agent":"plan","metadata":{"mode":"automation","model":"anthropic/claude-opus-4-6"}}`)
	sys, _ := out["system"].(string)
	if code != http.StatusOK || !strings.HasSuffix(sys, "wait for approval before editing anything.") || out["params"].(map[string]any)["temperature"] != 0.2 {
		t.Errorf("automation/plan on opus 4.6: %d %v; want the inherited plan text and the model-and-mode temperature 0.2", code, out)
	}
	for _, c := range []struct{ method, body, want string }{
		{http.MethodPost, `not json`, "the body is not valid JSON"},
		{http.MethodPost, `[1]`, "the body must be a JSON object"},
		{http.MethodPost, `{"agent":"build"}`, "sessionID: is required"},
		{http.MethodPost, `{"sessionID":5}`, "sessionID: must be a string, not number"},
		{http.MethodPost, `{"sessionID":"s","metadata":{"mode":"codng"}}`, `metadata.mode: unknown mode "codng" (want one of automation, coding, setup)`},
		{http.MethodPost, `{"sessionID":"s","user":{"parts":{}}}`, "user.parts: must be an array, not object"},
		{http.MethodPost, `{"sessionID":"s","metadata":{"params":{"repoName":5}}}`, "metadata.params.repoName: must be a string, not number"},
		{http.MethodPost, `{"sessionID":"s","metadata":{"params":["acme/web"]}}`, "metadata.params: must be an object, not array"},
		{http.MethodGet, ``, "use POST"},
	} {
		code, out := do(c.method, c.body)
		e, _ := out["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if code/100 != 4 || !strings.Contains(msg, c.want) {
			t.Errorf("%s %q: %d %v; want a 4xx saying %q", c.method, c.body, code, out, c.want)
		}
	}
	var records int
	for _, line := range strings.Split(strings.TrimSpace(svc.stop()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if _, ok := rec["sessionID"]; !ok {
			t.Errorf("log record without sessionID: %s", line)
		}
		if _, ok := rec["experimentID"]; !ok {
			t.Errorf("log record without experimentID: %s", line)
		}
		records++
	}
	if records != 11 {
		t.Errorf("%d log records for 11 requests", records)
	}
}

// TestPluginKeepsOwnKeys resolves requests of the coverage spec in the
// plugin under node: an option named __proto__ (at the top and below) is
// kept, as JSON.parse and the service keep it, and a prompt parameter named
// like an inherited property (toString) that is not set reads as "", never
// as Object.prototype.toString.
func TestPluginKeepsOwnKeys(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	s := testspecs.Load(t, testspecs.Dirs[2])
	if !slices.ContainsFunc(s.PromptParams, func(p *model.PromptParam) bool { return p.Name == "toString" }) {
		t.Fatal("the coverage spec has no prompt parameter toString")
	}
	src := proxygen.Plugin(s)
	root := t.TempDir()
	write(t, filepath.Join(root, "agentc-prompt-proxy.ts"), src)
	write(t, filepath.Join(root, "driver.mjs"), []byte(driver))
	write(t, filepath.Join(root, "hooks.mjs"), readHooks(t))
	if err := os.Symlink(nodetool.Dir(t), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	var requests []contract.PromptRequest
	for _, m := range s.Modes {
		for _, params := range []map[string]string{{}, {"repoName": "acme/web"}, {"repoName": "acme/web", "toString": "T"}} {
			requests = append(requests, contract.PromptRequest{SessionID: "ses_" + m.Name, User: contract.PromptUser{Parts: []json.RawMessage{}},
				Metadata: contract.PromptMetadata{Mode: m.Name, Params: params}})
		}
	}
	in, _ := json.Marshal(map[string]any{"ids": []string{}, "requests": requests, "hashes": []string{}})
	cmd := exec.Command(node, "driver.mjs", filepath.Join(root, "agentc-prompt-proxy.ts"))
	cmd.Dir = root
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Local []struct {
			System string `json:"system"`
			Params struct {
				Options json.RawMessage `json:"options"`
			} `json:"params"`
		} `json:"local"`
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.Local) != len(requests) {
		t.Fatalf("driver output %s: %v", out, err)
	}
	for i, req := range requests {
		m := s.Mode(req.Metadata.Mode)
		var fill []string
		for _, p := range s.PromptParams {
			fill = append(fill, "{{"+p.Name+"}}", req.Metadata.Params[p.Name])
		}
		if want := strings.NewReplacer(fill...).Replace(m.Prompt); got.Local[i].System != want {
			t.Errorf("mode %s, params %v: system %q, want %q", m.Name, req.Metadata.Params, got.Local[i].System, want)
		}
		wantOpts, _ := json.Marshal(resolveParams(s.ModelParams, m, nil).Options)
		var g, w any
		if json.Unmarshal(got.Local[i].Params.Options, &g) != nil || json.Unmarshal(wantOpts, &w) != nil || !reflect.DeepEqual(g, w) {
			t.Errorf("mode %s: options %s, want %s", m.Name, got.Local[i].Params.Options, wantOpts)
		}
		if !bytes.Contains(wantOpts, []byte(`"__proto__"`)) {
			t.Errorf("mode %s: the coverage spec's options %s hold no __proto__", m.Name, wantOpts)
		}
	}
}

// TestInheritedAgentPrompts: a mode's agent text that calls its parent's
// (written once in each file) resolves, in the service and in the plugin,
// to the loader's text: the parent's followed by the mode's own (plan), the
// parent's alone (explore), the mode's own alone, empty (build).
func TestInheritedAgentPrompts(t *testing.T) {
	t.Parallel()
	s := loadEdited(t, map[string][2]string{exampleFile: {
		"modes: coding: agents: plan: prompt: \"\"\"",
		"modes: automation: agents: {plan: prompt: \"List the risks to {{repoName}} too.\", build: prompt: \"\"}\n" +
			"modes: coding: agents: explore: prompt: \"Explore {{repoName}}.\"\n" +
			"modes: coding: agents: plan: prompt: \"\"\"",
	}})
	auto := s.Mode("automation")
	if auto.Extends != s.Mode("coding") || len(auto.AgentPrompts) != 3 {
		t.Fatalf("automation extends %v with agent texts %v", auto.Extends, auto.AgentPrompts)
	}
	var requests []contract.PromptRequest
	for _, m := range s.Modes {
		for _, agent := range []string{"build", "explore", "plan"} {
			requests = append(requests, contract.PromptRequest{
				SessionID: "ses_1", Agent: agent, User: contract.PromptUser{Parts: []json.RawMessage{}},
				Metadata: contract.PromptMetadata{Mode: m.Name, Model: "other/model", Params: map[string]string{"repoName": "acme/web"}},
			})
		}
	}
	in, _ := json.Marshal(requests)
	q, _ := json.Marshal(exampleQuery{Requests: requests})

	goRun := exec.Command("go", "run", "./x/promptsvc")
	goRun.Dir, goRun.Env, goRun.Stdin = withExampleMain(t, s).Dir, scratch.GoEnv(), bytes.NewReader(q)
	goOut, err := goRun.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, goOut)
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "agentc-prompt-proxy.ts"), proxygen.Plugin(s))
	write(t, filepath.Join(root, "driver.mjs"), []byte(driver))
	write(t, filepath.Join(root, "hooks.mjs"), readHooks(t))
	if err := os.Symlink(nodetool.Dir(t), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	node := exec.Command(nodetool.Node(t), "driver.mjs", filepath.Join(root, "agentc-prompt-proxy.ts"))
	node.Dir = root
	node.Stdin = bytes.NewReader(fmt.Appendf(nil, `{"ids": [], "hashes": [], "requests": %s}`, in))
	tsOut, err := node.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}

	var goAnswer exampleAnswer
	var tsGot struct{ Local []contract.PromptResponse }
	if err := json.Unmarshal(goOut, &goAnswer); err != nil || strings.Join(goAnswer.Errors, "") != "" {
		t.Fatalf("go run: %v\n%s", err, goOut)
	}
	goGot := goAnswer.Resolved
	if err := json.Unmarshal(tsOut, &tsGot); err != nil || len(goGot) != len(requests) || len(tsGot.Local) != len(requests) {
		t.Fatalf("node: %v, %d and %d answers to %d requests", err, len(goGot), len(tsGot.Local), len(requests))
	}
	for i, req := range requests {
		m := s.Mode(req.Metadata.Mode)
		want := ""
		for _, a := range m.AgentPrompts {
			if a.Agent == req.Agent {
				for _, p := range s.Template(a.Prompt) {
					if p.Param != nil {
						want += "acme/web"
					} else {
						want += p.Text
					}
				}
			}
		}
		g, ts := goGot[i].System, tsGot.Local[i].System
		if g != ts || !strings.Contains(g, want) {
			t.Errorf("mode %s, agent %s: the service resolves\n%q\nthe plugin\n%q\nwant the agent text %q", m.Name, req.Agent, g, ts, want)
		}
	}
}
