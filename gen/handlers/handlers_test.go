package handlers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
)

// module is a downstream module with a stand-in for the generated package
// (the parts Handler needs) and one package per situation.
const module = `
-- go.mod --
module example.com/gw

go 1.26
-- gen/go/contract/dispatch.go --
package contract

import "context"

type Call struct{ Tool string }

type Output[D any] struct {
	Result string
	Data   D
}

type NoData struct{}

type SaveSnapshotArgs struct{ Message string }
type SaveSnapshotResult struct{ SnapshotID string }
type AutomationCompleteArgs struct{ RunID string }

type Handler interface {
	AutomationComplete(ctx context.Context, call Call, args AutomationCompleteArgs) (Output[NoData], error)
	SaveSnapshot(ctx context.Context, call Call, args SaveSnapshotArgs) (Output[SaveSnapshotResult], error)
}

func NewRoute(h Handler) (struct{}, error) { return struct{}{}, nil }
-- gen/go/contractmcp/server.go --
package contractmcp

import (
	"context"

	"example.com/gw/gen/go/contract"
)

type Config struct{ Handler contract.Handler }

func New(cfg Config) (*Config, error) { return &cfg, nil }

// passthrough is handler-shaped generated code, not a hand-written handler.
type passthrough struct{ h contract.Handler }

func (p passthrough) SaveSnapshot(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.SaveSnapshotResult], error) {
	return p.h.SaveSnapshot(ctx, call, args)
}
-- wired/wired.go --
package wired

import (
	"example.com/gw/gen/go/contract"
	"example.com/gw/gen/go/contractmcp"
	"example.com/gw/good"
)

// Mount serves one handler over both transports.
func Mount() error {
	h := &good.Gateway{}
	if _, err := contract.NewRoute(h); err != nil {
		return err
	}
	_, err := contractmcp.New(contractmcp.Config{Handler: h})
	return err
}
-- good/good.go --
package good

import (
	"context"

	"example.com/gw/gen/go/contract"
)

var _ contract.Handler = (*Gateway)(nil)

type Gateway struct{}

func (*Gateway) AutomationComplete(context.Context, contract.Call, contract.AutomationCompleteArgs) (contract.Output[contract.NoData], error) {
	return contract.Output[contract.NoData]{}, nil
}

type Snap = contract.Output[contract.SaveSnapshotResult]

func (g Gateway) SaveSnapshot(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (Snap, error) {
	return Snap{}, nil
}

// Unrelated has no handler method: not a handler type.
type Unrelated struct{}

func (Unrelated) Save() {}
-- bad/bad.go --
package bad

import (
	"context"

	"example.com/gw/gen/go/contract"
)

// Tools has one handler method, with the wrong result type, and misses the other.
type Tools struct{}

func (*Tools) SaveSnapshot(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.NoData], error) {
	return contract.Output[contract.NoData]{}, nil
}

// Verify handles a tool the spec no longer has; RequestEnvVariables one
// that runs in the sandbox.
func (*Tools) Verify(ctx context.Context, call contract.Call, args struct{ Folder string }) (contract.Output[contract.NoData], error) {
	return contract.Output[contract.NoData]{}, nil
}

func (*Tools) RequestEnvVariables(ctx context.Context, call contract.Call, args struct{}) (contract.Output[contract.NoData], error) {
	return contract.Output[contract.NoData]{}, nil
}

// Empty is asserted to be a handler and has no method at all; the package
// does not compile, and the findings say why.
type Empty struct{}

var _ contract.Handler = Empty{}

// SaveSnap handles save_snapshot by its old name, now its alias.
func (*Tools) SaveSnap(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.SaveSnapshotResult], error) {
	return contract.Output[contract.SaveSnapshotResult]{}, nil
}

// Finish handles automation.complete by its old name, and Tools has no
// AutomationComplete.
func (*Tools) Finish(ctx context.Context, call contract.Call, args contract.AutomationCompleteArgs) (contract.Output[contract.NoData], error) {
	return contract.Output[contract.NoData]{}, nil
}
-- local/local.go --
package local

import (
	"context"

	"example.com/gw/gen/go/contract"
)

// Handlers is an interface asserted to be a Handler: not a handler type.
type Handlers interface{ contract.Handler }

var _ contract.Handler = Handlers(nil)

// Result is the package's own type, which messages name as its code does.
type Result struct{}

type Gateway struct{}

func (*Gateway) AutomationComplete(context.Context, contract.Call, contract.AutomationCompleteArgs) (contract.Output[contract.NoData], error) {
	return contract.Output[contract.NoData]{}, nil
}

func (*Gateway) SaveSnapshot(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (Result, error) {
	return Result{}, nil
}
-- none/none.go --
package none

import "example.com/gw/gen/go/contract"

// Use imports the generated package without implementing Handler.
func Use(c contract.Call) string { return c.Tool }
`

// writeModule writes the module into a temporary directory and makes it
// the working directory, which Check resolves patterns in.
func writeModule(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	for _, f := range txtar.Parse([]byte(module)).Files {
		p := filepath.FromSlash(f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func testSpec() *model.Spec {
	return &model.Spec{
		Codegen: model.Codegen{GoPackage: "contract", GoDir: "go/contract", MCP: &model.MCPCodegen{Dir: "go/contractmcp"}},
		Tools: []*model.Tool{
			{Name: "automation.complete", Aliases: []string{"finish"}, GoName: "AutomationComplete", Execution: model.Gateway},
			{Name: "request_env_variables", GoName: "RequestEnvVariables", Execution: model.Sandbox},
			{Name: "save_snapshot", Aliases: []string{"save_snap"}, GoName: "SaveSnapshot", Execution: model.Gateway},
		},
	}
}

func check(t *testing.T, patterns ...string) *Result {
	t.Helper()
	res, err := Check(Options{Patterns: patterns, Out: "gen", Spec: testSpec()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func lines(res *Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Code+" "+f.Error())
	}
	return out
}

func TestCheck(t *testing.T) {
	writeModule(t)
	cases := []struct {
		pattern string
		types   []string
		want    []string
	}{
		{"./good", []string{"example.com/gw/good.Gateway"}, nil},
		{"./bad", []string{"example.com/gw/bad.Empty", "example.com/gw/bad.Tools"}, []string{
			`handler-missing bad/bad.go:10:6: type Tools has no handler for tool "automation.complete": add the method AutomationComplete(ctx context.Context, call contract.Call, args contract.AutomationCompleteArgs) (contract.Output[contract.NoData], error)`,
			`handler-signature bad/bad.go:12:15: Tools.SaveSnapshot, the handler for tool "save_snapshot", has the wrong signature: have func(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.NoData], error), want func(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.SaveSnapshotResult], error)`,
			`handler-stale bad/bad.go:18:15: Tools.Verify handles a tool the spec no longer has (no gateway tool is named Verify in Go); delete the method`,
			`handler-stale bad/bad.go:22:15: Tools.RequestEnvVariables handles tool "request_env_variables", which the gateway no longer executes (it runs sandbox); delete the method`,
			`handler-missing bad/bad.go:28:6: type Empty has no handler for tool "automation.complete": add the method AutomationComplete(ctx context.Context, call contract.Call, args contract.AutomationCompleteArgs) (contract.Output[contract.NoData], error)`,
			`handler-missing bad/bad.go:28:6: type Empty has no handler for tool "save_snapshot": add the method SaveSnapshot(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.SaveSnapshotResult], error)`,
			`handler-stale bad/bad.go:33:15: Tools.SaveSnap handles "save_snap", now an alias of tool "save_snapshot": the gateway calls SaveSnapshot for both names; delete the method`,
			`handler-stale bad/bad.go:39:15: Tools.Finish handles "finish", now an alias of tool "automation.complete": the gateway calls AutomationComplete for both names; rename the method to AutomationComplete`,
		}},
		{"./local", []string{"example.com/gw/local.Gateway"}, []string{
			`handler-signature local/local.go:23:17: Gateway.SaveSnapshot, the handler for tool "save_snapshot", has the wrong signature: have func(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (Result, error), want func(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.SaveSnapshotResult], error)`,
		}},
		{"./none", nil, []string{
			`handler-none gen/go/contract/dispatch.go:18:1: no type in the packages matched implements contract.Handler (tools automation.complete, save_snapshot); declare one and assert it: var _ contract.Handler = (*Gateway)(nil)`,
		}},
		{"./gen/...", nil, []string{
			`handler-none no type implements contract.Handler: no package matched by the pattern imports example.com/gw/gen/go/contract; declare one in a package the pattern matches and assert it: var _ contract.Handler = (*Gateway)(nil)`,
		}},
	}
	for _, c := range cases {
		t.Run(c.pattern, func(t *testing.T) {
			res := check(t, c.pattern)
			if res.GenPath != "example.com/gw/gen/go/contract" {
				t.Errorf("GenPath = %q", res.GenPath)
			}
			if diff := cmp.Diff(c.types, res.Types); diff != "" {
				t.Errorf("types (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.want, lines(res)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStaleGoImport: a spec whose codegen.go.import is not the import path
// of the directory the package is written to (codegen.out moved, and the
// old tree, still on disk, would build in its place) is told the path.
func TestStaleGoImport(t *testing.T) {
	writeModule(t)
	s := testSpec()
	s.Codegen.GoImport = "example.com/gw/generated/go/contract"
	s.Codegen.GoImportPos = model.Pos{File: "spec/contract.cue", Line: 7, Col: 15}
	res, err := Check(Options{Patterns: []string{"./good"}, Out: "gen", Spec: s})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`handler-import spec/contract.cue:7:15: codegen.go.import is "example.com/gw/generated/go/contract", but the generated package is written to gen/go/contract, imported as "example.com/gw/gen/go/contract"; set go: import: "example.com/gw/gen/go/contract"`}
	if diff := cmp.Diff(want, lines(res)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	s.Codegen.GoImport = "example.com/gw/gen/go/contract"
	if res, err := Check(Options{Patterns: []string{"./good"}, Out: "gen", Spec: s}); err != nil || len(res.Findings) > 0 {
		t.Errorf("with the right go.import: findings %q, error %v", lines(res), err)
	}
}

// TestStaleGoImportFirst: in a module without a go directive (Go reads it
// as go 1.16, without generics) and with a wrong codegen.go.import, the
// import comes first and each package that does not compile is one
// finding, its first error and how many more, not one finding per error.
func TestStaleGoImportFirst(t *testing.T) {
	writeModule(t)
	if err := os.WriteFile("go.mod", []byte("module example.com/gw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testSpec()
	s.Codegen.GoImport = "example.com/gw/generated/go/contract"
	s.Codegen.GoImportPos = model.Pos{File: "spec/contract.cue", Line: 7, Col: 15}
	res, err := Check(Options{Patterns: []string{"./gen/..."}, Out: "gen", Spec: s})
	if err != nil {
		t.Fatal(err)
	}
	got := lines(res)
	compiled := map[string]int{}
	for _, f := range res.Findings {
		if f.Code == CodeCompile {
			compiled[f.File]++
		}
	}
	if len(got) == 0 || !strings.HasPrefix(got[0], "handler-import spec/contract.cue:7:15: ") ||
		compiled["gen/go/contract/dispatch.go"] != 1 || len(got) > 4 || !strings.Contains(strings.Join(got, "\n"), " more errors)") {
		t.Errorf("findings, want the import first and one compile error per package, counting the others:\n%s", strings.Join(got, "\n"))
	}
}

// A package that does not compile for a reason the handler check does not
// explain is reported rather than passed.
func TestCompileError(t *testing.T) {
	writeModule(t)
	p := filepath.Join("good", "good.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "return Snap{}, nil", "return Snap{}, undefined", 1)), 0o644)
	res := check(t, "./good")
	got := lines(res)
	if len(got) != 1 || !strings.Contains(got[0], "handler-compile good/good.go:20:") || !strings.Contains(got[0], "undefined: undefined") {
		t.Errorf("findings = %q, want one compile error in good/good.go", got)
	}
}

// TestFilesStandIn: the generated files passed in Files stand in for the
// tree on disk, as agentc check passes what it just generated: a Handler
// regenerated with a method for a new tool finds the handler that lacks
// it, though the package on disk has no such method. The spec given does
// not know the tool, so the message names the method.
func TestFilesStandIn(t *testing.T) {
	writeModule(t)
	b, err := os.ReadFile(filepath.Join("gen", "go", "contract", "dispatch.go"))
	if err != nil {
		t.Fatal(err)
	}
	regen := strings.Replace(string(b), "type Handler interface {\n",
		"type Handler interface {\n\tVerify(ctx context.Context, call Call, args SaveSnapshotArgs) (Output[NoData], error)\n", 1)
	res, err := Check(Options{Patterns: []string{"./good"}, Out: "gen", Spec: testSpec(),
		Files: []emit.File{{Path: "go/contract/dispatch.go", Data: []byte(regen)}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`handler-missing good/good.go:11:6: type Gateway has no handler for tool "Verify": add the method Verify(ctx context.Context, call contract.Call, args contract.SaveSnapshotArgs) (contract.Output[contract.NoData], error)`}
	if diff := cmp.Diff(want, lines(res)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}

	// A generated package without a Handler interface (hand-edited, or
	// from an older agentc, as check --only docs --handlers reads it from
	// disk) is to be regenerated, not checked against; it panicked.
	broken := strings.Replace(string(b), "type Handler interface", "type Handlers interface", 1)
	res, err = Check(Options{Patterns: []string{"./good"}, Out: "gen", Spec: testSpec(),
		Files: []emit.File{{Path: "go/contract/dispatch.go", Data: []byte(broken)}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lines(res); len(got) != 1 || got[0] != "handler-none example.com/gw/gen/go/contract has no Handler interface; regenerate it with agentc gen" {
		t.Errorf("findings = %q, want one saying the generated package has no Handler interface", got)
	}
}

// TestCannotLocate: what keeps the check from starting is an error that
// says why — the generated package outside the module of the packages
// matched, a pattern that matches nothing, a package directory that is not
// there — never a pass.
func TestCannotLocate(t *testing.T) {
	writeModule(t)
	_, err := Check(Options{Patterns: []string{"./good"}, Out: t.TempDir(), Spec: testSpec()})
	if err == nil || !strings.Contains(err.Error(), "is not inside the module") {
		t.Errorf("err = %v, want not inside the module", err)
	}
	if err := os.Mkdir("empty", 0o755); err != nil {
		t.Fatal(err)
	}
	for pattern, want := range map[string]string{
		"./empty/...": "./empty/... matched no packages",
		"./missing":   "missing: directory not found",
	} {
		res, err := Check(Options{Patterns: []string{pattern}, Out: "gen", Spec: testSpec()})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, %v; want an error saying %q", pattern, res, err, want)
		}
	}
}

// TestTransports: the check names the transports the hand-written code
// mounts, and never takes the generated MCP package for hand-written code.
func TestTransports(t *testing.T) {
	writeModule(t)
	cases := []struct {
		patterns   []string
		types      []string
		transports []string
	}{
		{[]string{"./wired", "./good"}, []string{"example.com/gw/good.Gateway"}, []string{"callback", "mcp"}},
		{[]string{"./good"}, []string{"example.com/gw/good.Gateway"}, nil},
		{[]string{"./gen/...", "./good"}, []string{"example.com/gw/good.Gateway"}, nil},
	}
	for _, c := range cases {
		res, err := Check(Options{Patterns: c.patterns, Out: "gen", Spec: testSpec()})
		if err != nil {
			t.Fatal(err)
		}
		if res.MCPPath != "example.com/gw/gen/go/contractmcp" {
			t.Errorf("MCPPath = %q", res.MCPPath)
		}
		if diff := cmp.Diff(c.types, res.Types); diff != "" {
			t.Errorf("%v: types (-want +got):\n%s", c.patterns, diff)
		}
		if diff := cmp.Diff(c.transports, res.Transports); diff != "" {
			t.Errorf("%v: transports (-want +got):\n%s", c.patterns, diff)
		}
		if len(res.Findings) != 0 {
			t.Errorf("%v: findings %q", c.patterns, lines(res))
		}
	}
}

// TestParsePos: a go/packages error's position is file:line:col, a bare
// file, or none ("" or "-"); a file is shown relative to the checker's
// directory when that is shorter, as the go command shows it.
func TestParsePos(t *testing.T) {
	c := &checker{dir: "/w/mod"}
	for s, want := range map[string]model.Pos{
		"/w/mod/a/b.go:3:14": {File: "a/b.go", Line: 3, Col: 14},
		"/w/mod/a/b.go":      {File: "a/b.go"},
		"/other/x.go:1:2":    {File: "/other/x.go", Line: 1, Col: 2},
		"":                   {},
		"-":                  {},
	} {
		if got := c.parsePos(s); got != want {
			t.Errorf("parsePos(%q) = %+v, want %+v", s, got, want)
		}
	}
}
