package gogen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/gogen"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// TestGeneratedUpToDate: the committed package is exactly what the emitter
// produces from the default spec (so the tests below test the real output).
func TestGeneratedUpToDate(t *testing.T) {
	s, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}
	files, err := gogen.Emit(&emit.Pass{Spec: s})
	if err != nil {
		t.Fatal(err)
	}
	root := nodetool.ModuleRoot(t)
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(root, s.Codegen.Out, f.Path))
		if err != nil || string(got) != string(f.Data) {
			t.Errorf("%s is stale; run go run ./cmd/agentc gen", f.Path)
		}
	}
}

// TestObjectPrototypeField: a field name JavaScript objects inherit is an
// error, not a silently different schema.
func TestObjectPrototypeField(t *testing.T) {
	s, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}
	args := s.Tools[0].Args
	args.Fields = append(args.Fields, &model.Field{Name: "constructor", GoName: "Constructor", TSName: "constructor", Presence: model.Optional, Type: &model.Type{Kind: model.String}})
	if _, err := gogen.Emit(&emit.Pass{Spec: s}); err == nil || !strings.Contains(err.Error(), "Object.prototype") {
		t.Fatalf("Emit = %v, want an Object.prototype error", err)
	}
}

// TestIntDefaultBeyondSafe: an int default beyond ±(2^53-1) — one Go's
// int64 cannot hold (Emit wrote a decoder that did not compile), or one it
// holds exactly where zod's JavaScript number rounds it — at the top of a
// field or inside a list's or an object's default, is Check's finding at
// the field, and Emit fails on it; ±(2^53-1) are defaults like any other.
func TestIntDefaultBeyondSafe(t *testing.T) {
	for _, tc := range []struct {
		typ     *model.Type
		def     string
		refused bool
	}{
		{&model.Type{Kind: model.Integer}, "100000000000000000000000", true},
		{&model.Type{Kind: model.Integer}, "-9223372036854775809", true},
		{&model.Type{Kind: model.Integer}, "9223372036854775807", true},
		// zod holds 9007199254740992 for this one, Go 9007199254740993.
		{&model.Type{Kind: model.Integer}, "9007199254740993", true},
		{&model.Type{Kind: model.Integer}, "-9007199254740992", true},
		{&model.Type{Kind: model.Integer}, "9007199254740991", false},
		{&model.Type{Kind: model.Integer}, "-9007199254740991", false},
		{&model.Type{Kind: model.Array, Items: &model.Type{Kind: model.Integer}}, "[1, 9007199254740993]", true},
		{&model.Type{Kind: model.Array, Items: &model.Type{Kind: model.Integer}}, "[1, 1e30]", true},
		{&model.Type{Kind: model.Object, GoName: "BigDefault", Fields: []*model.Field{
			{Name: "n", GoName: "N", TSName: "n", Presence: model.Required, Type: &model.Type{Kind: model.Integer}},
		}}, `{"n": 100000000000000000000000}`, true},
	} {
		s, err := load.Load(load.Default())
		if err != nil {
			t.Fatal(err)
		}
		at := model.Pos{File: "tools.cue", Line: 99, Col: 3}
		args := s.Tools[0].Args
		args.Fields = append(args.Fields, &model.Field{Name: "big", GoName: "Big", TSName: "big", Presence: model.Defaulted,
			Default: json.RawMessage(tc.def), Type: tc.typ, Pos: at})
		findings := gogen.Check(s)
		_, emitErr := gogen.Emit(&emit.Pass{Spec: s})
		if !tc.refused {
			if len(findings) > 0 || emitErr != nil {
				t.Errorf("default %s: Check = %v, Emit error %v; want neither", tc.def, findings, emitErr)
			}
			continue
		}
		if len(findings) != 1 || findings[0].Pos != at || findings[0].Code != "go-limit" || !strings.Contains(findings[0].Msg, "within ±9007199254740991") {
			t.Errorf("default %s: Check = %v, want one go-limit finding at %s", tc.def, findings, at)
		}
		if emitErr == nil || !strings.Contains(emitErr.Error(), `the default of "big"`) {
			t.Errorf("default %s: Emit error %v, want the finding", tc.def, emitErr)
		}
	}
}

type fakeHandler struct {
	err   error
	panic bool
	got   any
}

func (h *fakeHandler) do(args any) error {
	h.got = args
	if h.panic {
		panic("kaboom")
	}
	return h.err
}

func (h *fakeHandler) AutomationComplete(_ context.Context, _ contract.Call, a contract.AutomationCompleteArgs) (contract.Output[contract.AutomationCompleteResult], error) {
	return contract.Output[contract.AutomationCompleteResult]{Result: "done", Data: contract.AutomationCompleteResult{RunID: a.RunID, Outcome: contract.AutomationCompleteResultOutcome(a.Outcome)}}, h.do(a)
}

func (h *fakeHandler) SaveEnvFiles(_ context.Context, _ contract.Call, a contract.SaveEnvFilesArgs) (contract.Output[contract.SaveEnvFilesResult], error) {
	return contract.Output[contract.SaveEnvFilesResult]{Result: "saved"}, h.do(a)
}

func (h *fakeHandler) SaveServiceCommands(_ context.Context, _ contract.Call, a contract.SaveServiceCommandsArgs) (contract.Output[contract.SaveServiceCommandsResult], error) {
	return contract.Output[contract.SaveServiceCommandsResult]{Result: "saved", Data: contract.SaveServiceCommandsResult{ConfigurationID: "cfg", CommandCount: int64(len(a.Commands))}}, h.do(a)
}

func (h *fakeHandler) SaveSnapshot(_ context.Context, _ contract.Call, a contract.SaveSnapshotArgs) (contract.Output[contract.SaveSnapshotResult], error) {
	return contract.Output[contract.SaveSnapshotResult]{Result: "snap", Data: contract.SaveSnapshotResult{SnapshotID: "s1", Target: contract.SaveSnapshotResultTargetSession}}, h.do(a)
}

func TestDispatch(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		h       *fakeHandler
		call    contract.Call
		args    string
		want    contract.Result
		wantArg any
	}{
		{"alias", &fakeHandler{}, contract.Call{Tool: "automation_complete", Mode: contract.ModeAutomation},
			`{"run_id":"r1","completion_id":"c","outcome":"failed","extra":1}`,
			contract.Result{Success: true, Result: "done", Data: json.RawMessage(`{"runId":"r1","outcome":"failed"}`)},
			contract.AutomationCompleteArgs{RunID: "r1", CompletionID: "c", Outcome: contract.AutomationCompleteArgsOutcomeFailed}},
		{"name", &fakeHandler{}, contract.Call{Tool: "automation.complete", Mode: contract.ModeSetup},
			`{"run_id":"r1","completion_id":"c","outcome":"succeeded"}`,
			contract.Result{Success: true, Result: "done", Data: json.RawMessage(`{"runId":"r1","outcome":"succeeded"}`)}, nil},
		{"mode gate", &fakeHandler{}, contract.Call{Tool: "save_service_commands", Mode: contract.ModeCoding},
			`{"commands":[{"name":"web","command":"npm start"}]}`,
			contract.Result{Result: "Tool save_service_commands is not available in coding sessions"}, nil},
		{"unknown mode", &fakeHandler{}, contract.Call{Tool: "save_snapshot"}, `{}`,
			contract.Result{Result: "Tool save_snapshot is not available in unknown-mode sessions"}, nil},
		{"unknown tool", &fakeHandler{}, contract.Call{Tool: "Save_Snapshot", Mode: contract.ModeCoding}, `{}`,
			contract.Result{Result: "Unknown tool: Save_Snapshot"}, nil},
		{"sandbox tool", &fakeHandler{}, contract.Call{Tool: "request_env_variables", Mode: contract.ModeCoding}, `{"keys":[]}`,
			contract.Result{Result: "Tool request_env_variables runs in the sandbox, not on the gateway"}, nil},
		{"invalid", &fakeHandler{}, contract.Call{Tool: "save_service_commands", Mode: contract.ModeSetup},
			`{"commands":[{"name":"","command":7}]}`,
			contract.Result{Result: "Invalid arguments: commands.0.name: Too small: expected string to have >=1 characters, commands.0.command: Invalid input: expected string, received number"}, nil},
		{"not json", &fakeHandler{}, contract.Call{Tool: "save_snapshot", Mode: contract.ModeSetup}, `{`,
			contract.Result{Result: "Invalid arguments: invalid JSON at offset 1: expected a string key"}, nil},
		{"handler error", &fakeHandler{err: errors.New("no configuration")}, contract.Call{Tool: "save_snapshot", Mode: contract.ModeSetup}, `{"message":"m"}`,
			contract.Result{Result: "save_snapshot failed: no configuration"}, contract.SaveSnapshotArgs{Message: contract.Some("m")}},
		{"handler panic", &fakeHandler{panic: true}, contract.Call{Tool: "save_snapshot", Mode: contract.ModeSetup}, `{}`,
			contract.Result{Result: "save_snapshot failed: panic: kaboom"}, contract.SaveSnapshotArgs{}},
		{"data", &fakeHandler{}, contract.Call{Tool: "save_service_commands", Mode: contract.ModeSetup},
			`{"commands":[{"name":"web","command":"npm start","cwd":""}]}`,
			contract.Result{Success: true, Result: "saved", Data: json.RawMessage(`{"configurationId":"cfg","commandCount":1}`)},
			contract.SaveServiceCommandsArgs{Commands: []contract.SaveServiceCommandsCommand{{Name: "web", Command: "npm start", Cwd: contract.Some("")}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := contract.Dispatch(ctx, tc.h, tc.call, []byte(tc.args))
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tc.want)
			if string(gb) != string(wb) {
				t.Errorf("Dispatch = %s\nwant       %s", gb, wb)
			}
			if tc.wantArg != nil {
				ga, _ := json.Marshal(tc.h.got)
				wa, _ := json.Marshal(tc.wantArg)
				if string(ga) != string(wa) {
					t.Errorf("handler got %s, want %s", ga, wa)
				}
			}
		})
	}
}

func TestDecodeDefaultsAndOptional(t *testing.T) {
	a, err := contract.DecodeRequestEnvVariablesArgs([]byte(`{"keys":[{"key":"A"},{"key":"B","required":false,"description":""}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Keys[0].Required || a.Keys[1].Required {
		t.Errorf("required = %v, %v; want the default true, then false", a.Keys[0].Required, a.Keys[1].Required)
	}
	if a.Keys[0].Description.Set || !a.Keys[1].Description.Set || a.Keys[1].Description.Value != "" {
		t.Errorf("descriptions = %+v, %+v; want absent, then present and empty", a.Keys[0].Description, a.Keys[1].Description)
	}
	e, err := contract.DecodeSaveEnvFilesArgs([]byte(`{"files":[{"path":"a","format":"dotenv","mode":"secret","keys":[{"key":"K","required":true}]}]}`))
	if err != nil || e.Files[0].WorkspacePath != "." {
		t.Errorf("workspacePath = %q (%v), want the default \".\"", e.Files[0].WorkspacePath, err)
	}
}

func TestModes(t *testing.T) {
	for _, tc := range []struct {
		s    contract.Session
		want contract.Mode
	}{
		{contract.Session{SessionType: "setup", ClientType: "automation"}, contract.ModeSetup},
		{contract.Session{SessionType: "coding", ClientType: "automation"}, contract.ModeAutomation},
		{contract.Session{ClientType: "web"}, contract.ModeCoding},
		{contract.Session{SessionType: "Setup"}, contract.ModeCoding},
	} {
		if got := contract.SelectMode(tc.s); got != tc.want {
			t.Errorf("SelectMode(%+v) = %s, want %s", tc.s, got, tc.want)
		}
	}
	if got := contract.ModeAutomation.Standing(contract.ToolAutomationComplete); got != contract.StandingMandatory {
		t.Errorf("automation standing of automation.complete = %s", got)
	}
	if contract.ModeCoding.Has(contract.ToolSaveServiceCommands) || !contract.ModeSetup.Has(contract.ToolSaveServiceCommands) {
		t.Error("save_service_commands must be injected in setup only")
	}
	var names []string
	for _, tool := range contract.ModeCoding.Tools() {
		names = append(names, tool.Name())
	}
	if got := strings.Join(names, ","); got != "automation.complete,request_env_variables,save_snapshot" {
		t.Errorf("coding tools = %s", got)
	}
	if m, ok := contract.ModeAutomation.Extends(); !ok || m != contract.ModeCoding {
		t.Errorf("automation extends %q, %v", m, ok)
	}
	if _, err := contract.ParseMode("nope"); err == nil {
		t.Error("ParseMode accepted an unknown mode")
	}
	// A Mode outside the contract's has no facts, and no tool.
	if m := contract.Mode("nope"); m.Valid() || m.Goal() != "" || m.SourceEdits() != "" ||
		m.Standing(contract.ToolSaveSnapshot) != contract.StandingUnavailable || len(m.Tools()) != 0 {
		t.Errorf("unknown mode: Valid %v, Goal %q, SourceEdits %q, Standing %q, Tools %v",
			m.Valid(), m.Goal(), m.SourceEdits(), m.Standing(contract.ToolSaveSnapshot), m.Tools())
	}
	if m, ok := contract.Mode("nope").Extends(); ok || m != "" {
		t.Errorf("unknown mode extends %q, %v", m, ok)
	}
	if tool, ok := contract.LookupTool("automation_complete"); !ok || tool != contract.ToolAutomationComplete || tool.FileName() != "automation_complete" {
		t.Errorf("LookupTool(automation_complete) = %v, %v", tool, ok)
	}
}

// TestToolOutOfRange: a Tool outside the contract's, which a gateway gets
// from bad data (LookupTool's -1, a number read from storage), answers
// every method as String does, without panicking: its name is "Tool(N)"
// and it has no other facts.
func TestToolOutOfRange(t *testing.T) {
	for _, tool := range []contract.Tool{-1, 99} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("Tool(%d): a method panicked: %v", int(tool), p)
				}
			}()
			want := fmt.Sprintf("Tool(%d)", int(tool))
			if tool.String() != want || tool.Name() != want {
				t.Errorf("Tool(%d): String %q, Name %q; want both %q", int(tool), tool.String(), tool.Name(), want)
			}
			if tool.Aliases() != nil || tool.FileName() != "" || tool.GatewayExecuted() || tool.Fingerprint() != "" {
				t.Errorf("Tool(%d) has facts: %q %q %v %q", int(tool), tool.Aliases(), tool.FileName(), tool.GatewayExecuted(), tool.Fingerprint())
			}
		}()
	}
	if got := contract.ToolSaveSnapshot.String(); got != "save_snapshot" || got != contract.ToolSaveSnapshot.Name() {
		t.Errorf("String of save_snapshot = %q, Name %q", got, contract.ToolSaveSnapshot.Name())
	}
}

func TestModels(t *testing.T) {
	for _, m := range contract.Models() {
		oc, err := contract.ToOpenCodeModelID(string(m.ID))
		if err != nil || oc != m.OpenCode {
			t.Errorf("ToOpenCodeModelID(%s) = %q, %v", m.ID, oc, err)
		}
		api, err := contract.OpenCodeToAPIModelID(oc)
		if err != nil || api != m.API {
			t.Errorf("OpenCodeToAPIModelID(%s) = %q, %v", oc, api, err)
		}
		back, err := contract.APIToCanonicalModelID(api)
		if err != nil || back != string(m.ID) {
			t.Errorf("APIToCanonicalModelID(%s) = %q, %v", api, back, err)
		}
		if oc2, _ := contract.APIToOpenCodeModelID(api); oc2 != oc {
			t.Errorf("APIToOpenCodeModelID(%s) = %q", api, oc2)
		}
		if c, _ := contract.OpenCodeToCanonicalModelID(oc); c != string(m.ID) {
			t.Errorf("OpenCodeToCanonicalModelID(%s) = %q", oc, c)
		}
	}
	if got, _ := contract.ToAPIModelID("claude-opus-4.5"); got != "claude-opus-4-5-20251101" {
		t.Errorf("ToAPIModelID(claude-opus-4.5) = %q", got)
	}
	var unknown *contract.UnknownModelError
	if _, err := contract.ToOpenCodeModelID("claude-opus-4-6"); !errors.As(err, &unknown) || unknown.Form != "canonical" {
		t.Errorf("an API ID as canonical: err = %v", err)
	}
	if _, err := contract.APIToCanonicalModelID("gpt"); err == nil {
		t.Error("unknown API ID accepted")
	}
	if d, err := contract.AgentOpencode.DefaultModel(); err != nil || d != contract.ModelClaudeOpus4_6 {
		t.Errorf("default model = %q, %v", d, err)
	}
}

func TestPrompts(t *testing.T) {
	p := contract.PromptParams{RepoName: "acme/web"}
	coding, err := contract.SystemPrompt(contract.ModeCoding, p)
	if err != nil {
		t.Fatal(err)
	}
	auto, _ := contract.SystemPrompt(contract.ModeAutomation, p)
	if !strings.HasPrefix(auto, coding+"\n\n") || len(auto) <= len(coding)+2 {
		t.Errorf("the automation prompt does not extend the coding prompt")
	}
	if strings.Contains(auto, "{{") || !strings.Contains(auto, "acme/web") {
		t.Errorf("placeholders not filled: %q", auto[:80])
	}
	crit := contract.CriticalInstructions(contract.ModeAutomation, p)
	if crit == "" || !strings.Contains(auto, crit) || !strings.Contains(crit, "automation.complete") {
		t.Errorf("critical instructions %q are not part of the automation prompt", crit)
	}
	custom, _ := contract.BuildSystemPrompt(contract.ModeAutomation, p, "Be brief.\n")
	if custom != "Be brief.\n\n"+crit {
		t.Errorf("custom automation prompt = %q", custom)
	}
	if c, _ := contract.BuildSystemPrompt(contract.ModeCoding, p, "Be brief."); c != "Be brief." {
		t.Errorf("custom coding prompt = %q", c)
	}
	if d, _ := contract.BuildSystemPrompt(contract.ModeSetup, p, "  "); !strings.Contains(d, "setup session") {
		t.Errorf("a blank custom prompt must fall back to the mode's prompt")
	}
	if _, err := contract.SystemPrompt("nope", p); err == nil {
		t.Error("unknown mode accepted")
	}
}
