package load_test

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueload "cuelang.org/go/cue/load"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

var update = flag.Bool("update", false, "rewrite the want sections (and codes lines) of testdata/broken/*.txtar from the actual findings")

// minCases is the least number of broken-spec cases the corpus must hold,
// so that deleting cases does not pass unnoticed.
const minCases = 45

// displayDir is the directory name the corpus's positions are shown under.
const displayDir = "spec"

// baseFiles reads testdata/base: the small valid spec every broken case
// starts from. Keys are slash paths relative to the base directory.
func baseFiles(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	root := filepath.Join("testdata", "base")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("testdata/base is empty")
	}
	return files
}

// findings renders err's findings as vet prints them, one per line.
func findings(err error) []string {
	var out []string
	for _, e := range diag.Errors(err) {
		out = append(out, e.Error())
	}
	return out
}

// codes returns the distinct finding codes of err, sorted.
func codes(err error) []string {
	var out []string
	for _, e := range diag.Errors(err) {
		out = append(out, e.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestBase checks that the corpus's base spec is valid and exercises what
// the broken cases rely on, so that a finding in a case comes from the case.
func TestBase(t *testing.T) {
	t.Parallel()
	s, err := load.Load(load.Bytes(displayDir, baseFiles(t)))
	if err != nil {
		t.Fatalf("base spec does not load:\n%v", err)
	}
	if got := len(s.Tools); got != 3 {
		t.Errorf("base has %d tools, want 3", got)
	}
	if got := len(s.Modes); got != 2 {
		t.Errorf("base has %d modes, want 2", got)
	}
	if m := s.Mode("automation"); m == nil || m.Extends == nil || m.Extends.Name != "coding" {
		t.Errorf("base mode automation does not extend coding")
	}
	if len(s.Checks) != 1 || s.Checks[0].Name != "RelativePath" || len(s.Checks[0].Reject) != 3 {
		t.Errorf("base checks = %+v, want #RelativePath with 3 rejected patterns", s.Checks)
	}
	files := s.Tool("save_files").Args.Fields[0].Type
	if files.Kind != model.Array || files.Items.Kind != model.Object || files.Items.GoName != "SaveFilesFile" {
		t.Fatalf("save_files.files = %+v, want a list of SaveFilesFile objects", files)
	}
	owner := files.Items.Fields[3]
	if owner.Name != "owner" || owner.Presence != model.Optional || owner.Type.Kind != model.Object || len(owner.Type.Fields) != 2 {
		t.Errorf("save_files.files[].owner = %+v, want an optional nested struct of 2 fields", owner)
	}
	if mode := files.Items.Fields[2]; mode.Presence != model.Defaulted || string(mode.Default) != `"overwrite"` {
		t.Errorf("save_files.files[].mode = %+v, want default \"overwrite\"", mode)
	}
	if len(s.Models) != 2 || len(s.Agents) != 1 {
		t.Errorf("base has %d models and %d agents, want 2 and 1", len(s.Models), len(s.Agents))
	}
}

// TestLongExtendsChain: a mode at the end of a chain of 70 inherits the
// prompt and the agent prompts of the chain's modes, the first mode's
// first (the walk up the chain has no depth limit), for every agent any
// of them has a prompt for.
func TestLongExtendsChain(t *testing.T) {
	t.Parallel()
	s := loadAccepted(t, "extends_chain_long")
	last := s.Mode("chain69")
	if last == nil {
		t.Fatal("no mode chain69")
	}
	if !strings.HasPrefix(last.Prompt, "When you are stuck, call ask_user.\n\nLink 1.") || !strings.HasSuffix(last.Prompt, "Link 69.") {
		t.Errorf("chain69's prompt = %.60q…, want chain0's prompt, then each link's", last.Prompt)
	}
	var got []model.AgentPrompt
	for _, ap := range last.AgentPrompts {
		got = append(got, *ap)
	}
	want := []model.AgentPrompt{
		{Agent: "build", Prompt: "Build in small steps."},
		{Agent: "plan", Prompt: "Plan before you call ask_user.\n\nThen plan again."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chain69's agent prompts differ (-want +got):\n%s", diff)
	}
}

// TestExperimentsSorted: the experiments, the modes each runs in and its
// variants are in the model sorted by name, however the spec orders them
// (accepted/experiments_out_of_order).
func TestExperimentsSorted(t *testing.T) {
	t.Parallel()
	s := loadAccepted(t, "experiments_out_of_order")
	var got []string
	for _, e := range s.Experiments {
		got = append(got, "experiment "+e.Name)
		for _, m := range e.Modes {
			got = append(got, "mode "+m.Name)
		}
		for _, v := range e.Variants {
			got = append(got, "variant "+v.Name)
		}
	}
	want := []string{"experiment brief", "variant a", "variant z", "experiment warm", "mode automation", "mode coding", "variant a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("experiments differ (-want +got):\n%s", diff)
	}
}

// TestDefaultsOfGeneralAlternatives: a field whose default is an instance
// of another of its alternatives (a named check's, a list's, a struct's)
// is of that alternative's type, keeps its default and its doc comment,
// and loses none of the type's fields (accepted/default_general_alternative
// and accepted/struct_default); a bool written as its two values with a
// default is a bool (accepted/bool_literals); a field of a definition
// from a package the spec imports keeps its doc comment
// (accepted/imported_package).
func TestDefaultsOfGeneralAlternatives(t *testing.T) {
	t.Parallel()
	type want struct {
		kind         model.Kind
		check, items string // the named check, the items' kind
		def, doc     string
		fields       int // an object's
	}
	for name, fields := range map[string]map[string]want{
		"default_general_alternative": {
			"dir":       {kind: model.String, check: "RelativePath", def: `"reports"`, doc: "Where the report goes."},
			"log":       {kind: model.String, check: "RelativePath", def: `"run.log"`, doc: "Where the log goes."},
			"labels":    {kind: model.Array, items: "string", def: `[]`, doc: "Labels."},
			"reviewers": {kind: model.Array, items: "string", def: `["ci"]`, doc: "Reviewers."},
			"keep":      {kind: model.Array, items: "string", def: `["a/b"]`, doc: "Paths to keep."},
		},
		"imported_package": {
			"limit": {kind: model.Integer, def: `20`, doc: "How many results per page."},
		},
		"bool_literals": {
			"notify": {kind: model.Boolean, def: `true`, doc: "Whether to notify."},
			"retry":  {kind: model.Boolean, def: `true`, doc: "Whether to retry."},
			"keep":   {kind: model.Boolean, def: `false`, doc: "Whether to keep the logs."},
		},
		"struct_default": {
			"where": {kind: model.Object, def: `{"region":"eu"}`, doc: "Where the run went.", fields: 1},
			"opts":  {kind: model.Object, def: `{}`, doc: "Optional fields of a defaulted object.", fields: 1},
		},
	} {
		s := loadAccepted(t, name)
		for _, f := range s.Tool("report.done").Args.Fields {
			w, ok := fields[f.Name]
			if !ok {
				continue
			}
			delete(fields, f.Name)
			got := want{kind: f.Type.Kind, def: string(f.Default), doc: f.Type.Doc, fields: len(f.Type.Fields)}
			if len(f.Type.Checks) == 1 {
				got.check = f.Type.Checks[0].Name
			}
			if f.Type.Items != nil {
				got.items = string(f.Type.Items.Kind)
			}
			if f.Presence != model.Defaulted || got != w {
				t.Errorf("%s: %s is %s %+v, want defaulted %+v", name, f.Name, f.Presence, got, w)
			}
		}
		for n := range fields {
			t.Errorf("%s: no argument %s", name, n)
		}
	}
}

// TestEnumsMeetStringConstraints: each field of the accepted case
// enum_string_constraints allows exactly the strings CUE allows it, asked
// of CUE itself (the field unified with each string the case writes, and
// validated), and carries no string constraint the values already met.
func TestEnumsMeetStringConstraints(t *testing.T) {
	t.Parallel()
	files := acceptedCases(t)["enum_string_constraints"]
	s, err := load.Load(load.Bytes(displayDir, files))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	insts := cueload.Instances([]string{"."}, &cueload.Config{Dir: dir})
	ctx := cuecontext.New()
	root := ctx.BuildInstance(insts[0])
	if err := root.Err(); err != nil {
		t.Fatal(err)
	}
	words := regexp.MustCompile(`"([^"]*)"`).FindAllSubmatch(files["extra.cue"], -1)
	n := 0
	for _, f := range s.Tool("report.done").Args.Fields {
		if !strings.HasPrefix(f.Name, "mood_") {
			continue
		}
		n++
		field := root.LookupPath(cue.MakePath(cue.Str("tools"), cue.Str("report.done"), cue.Str("args"), cue.Str(f.Name).Optional()))
		var want []string
		for _, w := range words {
			c := string(w[1])
			if !slices.Contains(want, c) && field.Unify(ctx.CompileString(strconv.Quote(c))).Validate(cue.Concrete(true)) == nil {
				want = append(want, c)
			}
		}
		got := f.Type.Enum
		if f.Type.Kind == model.Literal {
			got = []string{f.Type.Literal}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s allows %q, CUE allows %q", f.Name, got, want)
		}
		if ty := f.Type; ty.MinLength != nil || ty.MaxLength != nil || len(ty.Patterns)+len(ty.Checks) > 0 {
			t.Errorf("%s keeps string constraints its values meet: %+v", f.Name, ty)
		}
	}
	if n != 7 {
		t.Errorf("%d mood fields, want 7", n)
	}
}

// TestBroken loads the base spec with each case's files replacing or adding
// to the base's, and compares the findings with the case's want section,
// exactly. The archive's comment may hold a "codes:" line listing the
// distinct finding codes, which is compared too.
func TestBroken(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "broken", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < minCases {
		t.Errorf("the corpus holds %d cases, want at least %d", len(paths), minCases)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files := baseFiles(t)
			wantIdx := -1
			for i, f := range ar.Files {
				if f.Name == "want" {
					wantIdx = i
					continue
				}
				files[f.Name] = f.Data
			}
			if wantIdx < 0 {
				t.Fatal("no -- want -- section")
			}

			s, err := load.Load(load.Bytes(displayDir, files))
			if err == nil {
				t.Fatalf("the case loads without findings (model for %d tools); a broken case must fail", len(s.Tools))
			}
			if s != nil {
				t.Errorf("Load returned both a model and findings")
			}
			var l diag.List
			if !errors.As(err, &l) {
				t.Errorf("Load's error is %T, not a diag.List: %v", err, err)
			}
			for _, e := range diag.Errors(err) {
				if e.Code == "" || e.Msg == "" || !e.Pos.IsValid() && e.Pos.File == "" {
					t.Errorf("finding without code, message or file: %#v", e)
				}
			}
			got := findings(err)
			gotCodes := "codes: " + strings.Join(codes(err), " ")

			if *update {
				ar.Files[wantIdx].Data = []byte(strings.Join(got, "\n") + "\n")
				ar.Comment = setCodes(ar.Comment, gotCodes)
				if err := os.WriteFile(p, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := strings.Split(strings.TrimRight(string(ar.Files[wantIdx].Data), "\n"), "\n")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings differ (-want +got):\n%s", diff)
			}
			if wc, ok := codesLine(ar.Comment); ok && wc != gotCodes {
				t.Errorf("codes differ:\nwant %s\n got %s", wc, gotCodes)
			}
		})
	}
}

// codesLine returns the "codes:" line of an archive comment.
func codesLine(comment []byte) (string, bool) {
	for _, line := range strings.Split(string(comment), "\n") {
		if strings.HasPrefix(line, "codes:") {
			return strings.TrimSpace(line), true
		}
	}
	return "", false
}

// setCodes replaces (or appends) the comment's "codes:" line.
func setCodes(comment []byte, line string) []byte {
	var out []string
	done := false
	for _, l := range strings.Split(strings.TrimRight(string(comment), "\n"), "\n") {
		if strings.HasPrefix(l, "codes:") {
			l, done = line, true
		}
		if l != "" || len(out) > 0 {
			out = append(out, l)
		}
	}
	if !done {
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// TestNoSpecFiles: a spec directory without .cue files of the author's (a
// module file and agentc's metaschema copy are not a spec) is one finding
// at the directory.
func TestNoSpecFiles(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]map[string][]byte{
		"empty":       {},
		"module only": {"cue.mod/module.cue": []byte("module: \"example.com/spec\"\nlanguage: version: \"v0.17.0\"\n")},
		"schema copy": {"agentc_schema.cue": []byte("package agentc\n")},
	} {
		_, err := load.Load(load.Bytes(displayDir, files))
		if got, want := findings(err), []string{"spec: no .cue files in the spec directory"}; !slices.Equal(got, want) {
			t.Errorf("%s: findings = %q, want %q", name, got, want)
		}
	}
}

// TestCheckBuildsOnDefinition: a named check that builds on another
// definition rejects what that definition rejects, as CUE does
// (accepted/check_builds_on_definition); the spec's checks, the base's
// #RelativePath and #Name, are sorted by name.
func TestCheckBuildsOnDefinition(t *testing.T) {
	t.Parallel()
	s := loadAccepted(t, "check_builds_on_definition")
	var got, checks []string
	for _, c := range s.Checks {
		checks = append(checks, c.Name)
		if c.Name == "Name" {
			for _, p := range c.Reject {
				got = append(got, p.Regexp)
			}
		}
	}
	if want := []string{"^$", "/"}; !slices.Equal(got, want) {
		t.Errorf("#Name rejects %q, want %q", got, want)
	}
	if want := []string{"Name", "RelativePath"}; !slices.Equal(checks, want) {
		t.Errorf("checks %q, want %q", checks, want)
	}
}

// TestClosedStructs: a struct closed with close({…}) is an object of its
// fields, in the arguments, nested and as list items, as a closed
// definition is (accepted/closed_struct).
func TestClosedStructs(t *testing.T) {
	t.Parallel()
	s := loadAccepted(t, "closed_struct")
	var got []string
	var visit func(prefix string, ty *model.Type)
	visit = func(prefix string, ty *model.Type) {
		for _, f := range ty.Fields {
			got = append(got, prefix+f.Name+" "+string(f.Type.Kind))
			if f.Type.Items != nil {
				visit(prefix+f.Name+"[].", f.Type.Items)
			}
			visit(prefix+f.Name+".", f.Type)
		}
	}
	visit("", s.Tool("report.done").Args)
	want := []string{"run_id string", "outcome enum", "score number", "where object", "where.region string", "where.zone string", "steps array", "steps[].name string"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report.done's fields differ (-want +got):\n%s", diff)
	}
}

// TestReferencedFields: fields a comprehension makes from a struct of
// schemas, by its value or by indexing the struct, and fields given by a
// let have the constraints, default and named check CUE gives them, and
// an enum written in parts the values CUE makes of it
// (accepted/comprehension_fields, accepted/let_fields,
// accepted/enum_in_parts), and a computed string value the string CUE
// computes (accepted/computed_literals).
func TestReferencedFields(t *testing.T) {
	t.Parallel()
	describe := func(f *model.Field) string {
		ty := f.Type
		d := fmt.Sprintf("%s %s %s", f.Name, f.Presence, ty.Kind)
		if f.Default != nil {
			d += " default " + string(f.Default)
		}
		for _, p := range ty.Patterns {
			d += " =~" + p.Regexp
		}
		if ty.MaxLength != nil {
			d += fmt.Sprintf(" max %d", *ty.MaxLength)
		}
		if ty.Minimum != nil {
			d += " >=" + ty.Minimum.Value.String()
		}
		if len(ty.Enum) > 0 {
			d += " " + strings.Join(ty.Enum, "|")
		}
		if ty.Literal != "" {
			d += " " + ty.Literal
		}
		for _, c := range ty.Checks {
			d += " #" + c.Name
		}
		return d
	}
	a, b, c := "a required string =~^x max 3", "b default integer default 1 >=0", "c required enum p|q"
	for name, fields := range map[string]map[string][]string{
		"comprehension_fields": {
			"byValue": {a, b, c},
			"byIndex": {a, b, c},
			"byExpr":  {a, b, c},
			"checked": {"d required string #RelativePath"},
			"indexed": {"indexed required string =~^x max 3"},
		},
		"enum_in_parts": {
			"d1": {"d1 required enum a|b|c"},
			"d2": {"d2 default enum default \"c\" c|a|b"},
			"d3": {"d3 required enum a|b|c"},
			"l1": {"l1 required enum a|b|c"},
			"l2": {"l2 default enum default \"a\" a|b"},
		},
		"computed_literals": {
			"c1": {"c1 required literal ab"},
			"c2": {"c2 required literal run-x"},
			"c3": {"c3 default enum default \"ab\" ab|c"},
			"c4": {"c4 required literal AB"},
			"c5": {"c5 default enum default \"a-b\" a-b|c"},
		},
		"let_fields": {
			"la":  {"la required string =~^x max 3"},
			"lc":  {"lc required enum p|q"},
			"lr":  {"lr required string =~^y"},
			"lr2": {"lr2 required string =~^y max 3"},
			"lu":  {"lu required integer >=0"},
			"le":  {"le default enum default \"p\" p|q"},
		},
	} {
		s := loadAccepted(t, name)
		got := map[string][]string{}
		for _, f := range s.Tool("report.done").Args.Fields {
			if f.Type.Kind != model.Object {
				got[f.Name] = []string{describe(f)}
				continue
			}
			for _, sub := range f.Type.Fields {
				got[f.Name] = append(got[f.Name], describe(sub))
			}
		}
		for field, want := range fields {
			if diff := cmp.Diff(want, got[field]); diff != "" {
				t.Errorf("%s: %s differs (-want +got):\n%s", name, field, diff)
			}
		}
	}
}

// TestDocFromAnyDeclaration: a field declared in two files, its doc
// comment on the declaration that adds no constraint (query: _), keeps
// its type and takes that doc comment, as cue def shows it; one a
// template documents too has both, in CUE's order
// (accepted/field_documented_elsewhere).
func TestDocFromAnyDeclaration(t *testing.T) {
	t.Parallel()
	s := loadAccepted(t, "field_documented_elsewhere")
	var got []string
	for _, f := range s.Tool("documented").Args.Fields {
		got = append(got, fmt.Sprintf("%s %s %q", f.Name, f.Type.Kind, f.Type.Doc))
	}
	want := []string{`limit integer "Ten by default.\n\nHow many results, at most."`, `query string "What to look for."`, `mode enum "How to look."`, `tags array "Labels to filter by."`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields differ (-want +got):\n%s", diff)
	}
}

// TestBoundsRefined: a number with several bounds one way has the tighter
// as its bound, as CUE holds them all (accepted/bounds_refined).
func TestBoundsRefined(t *testing.T) {
	t.Parallel()
	s := loadAccepted(t, "bounds_refined")
	bound := func(b *model.Bound, incl, excl string) string {
		switch {
		case b == nil:
			return ""
		case b.Exclusive:
			return excl + string(b.Value)
		}
		return incl + string(b.Value)
	}
	var got []string
	for _, f := range s.Tool("measure").Args.Fields {
		got = append(got, strings.Join(strings.Fields(f.Name+" "+bound(f.Type.Minimum, ">=", ">")+" "+bound(f.Type.Maximum, "<=", "<")), " "))
	}
	want := []string{"limit >=1 <=10", "count >=1", "offset >=0 <=2147483647", "level >=0 <=100", "score >1", "n <=5", "m >1", "ratio <2.5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bounds differ (-want +got):\n%s", diff)
	}
}

// TestNotEmptyString: string & !="", CUE's idiom for a string that is not
// empty, is a string of at least one character, beside other length
// limits too (accepted/not_empty_string).
func TestNotEmptyString(t *testing.T) {
	t.Parallel()
	s := loadAccepted(t, "not_empty_string")
	var got []string
	for _, f := range s.Tool("report.done").Args.Fields {
		if ty := f.Type; ty.MinLength != nil {
			got = append(got, fmt.Sprintf("%s %s %d %v", f.Name, ty.Kind, *ty.MinLength, ty.MaxLength != nil))
		}
	}
	want := []string{"name string 1 false", "code string 1 true", "title string 3 false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields differ (-want +got):\n%s", diff)
	}
}

// loadAccepted loads the accepted case name, which must load.
func loadAccepted(t *testing.T, name string) *model.Spec {
	t.Helper()
	s, err := load.Load(load.Bytes(displayDir, acceptedCases(t)[name]))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}
