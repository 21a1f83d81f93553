package tsgen_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// promptDriver imports the generated prompts.ts and prints, for each case
// on stdin, buildSystemPrompt's and criticalInstructions' answers.
const promptDriver = `import { register } from "node:module"
import { pathToFileURL } from "node:url"
register("./hooks.mjs", import.meta.url)
let input = ""
for await (const chunk of process.stdin) input += chunk
const { cases } = JSON.parse(input)
const prompts = await import(pathToFileURL("./prompts.ts").href)
process.stdout.write(JSON.stringify(cases.map((c) => [
  prompts.buildSystemPrompt(c.mode, c.params, c.custom),
  prompts.criticalInstructions(c.mode, c.params),
])))
`

// TestPromptsAsGo runs the default spec's prompts.ts under node and
// requires of buildSystemPrompt and criticalInstructions the answers of the
// generated Go's BuildSystemPrompt and CriticalInstructions, for every mode
// and custom prompt: none, blank (every rune Go or JavaScript takes for
// white space, alone and mixed), and set, with line breaks around it.
func TestPromptsAsGo(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	g := generate(t, "")
	root := t.TempDir()
	g.writeUnder(t, g.spec.Codegen.TSDir, root)
	hooks, err := os.ReadFile(filepath.Join("testdata", "node", "hooks.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "hooks.mjs"), hooks)
	writeFile(t, filepath.Join(root, "driver.mjs"), []byte(promptDriver))
	if err := os.Symlink(nodetool.Dir(t), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}

	customs := []string{"", " ", "\n", " \t\n\r\v\f ", "\u0085", "\ufeff", "\u180e", "\u200b",
		"Be brief.", "Be brief.\n", "\n\nBe brief.\n\n", "Be brief. ", "Be brief.\r\n", "Be brief.\n \n", "\u0085Be brief.\u0085"}
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if unicode.IsSpace(c) {
			customs = append(customs, string(c), "Be brief."+string(c)+"\n")
		}
	}
	type promptCase struct {
		Mode   string            `json:"mode"`
		Params map[string]string `json:"params"`
		Custom string            `json:"custom"`
	}
	var cases []promptCase
	critical := 0
	for _, m := range contract.Modes() {
		if contract.CriticalInstructions(m, contract.PromptParams{}) != "" {
			critical++
		}
		for _, custom := range customs {
			cases = append(cases, promptCase{string(m), map[string]string{"repoName": "acme/web"}, custom})
		}
	}
	if critical == 0 || critical == len(contract.Modes()) {
		t.Fatalf("%d of the default spec's %d modes have critical instructions; the test needs some with and some without", critical, len(contract.Modes()))
	}
	in, _ := json.Marshal(map[string]any{"cases": cases})
	out := runDriver(t, node, root, "driver.mjs", in)
	var got [][2]string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(cases) {
		t.Fatalf("driver output %.200q (%d answers for %d cases): %v", out, len(got), len(cases), err)
	}
	for i, c := range cases {
		m, p := contract.Mode(c.Mode), contract.PromptParams{RepoName: c.Params["repoName"]}
		want, err := contract.BuildSystemPrompt(m, p, c.Custom)
		if err != nil {
			t.Fatal(err)
		}
		if got[i][0] != want {
			t.Errorf("mode %s, custom %q: buildSystemPrompt\n%q\nBuildSystemPrompt\n%q", c.Mode, c.Custom, got[i][0], want)
		}
		if want := contract.CriticalInstructions(m, p); got[i][1] != want {
			t.Errorf("mode %s: criticalInstructions %q, CriticalInstructions %q", c.Mode, got[i][1], want)
		}
	}
}
