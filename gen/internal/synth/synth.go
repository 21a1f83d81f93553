// Package synth builds synthetic specs of any size from the default spec,
// for benchmarks: the default spec's files plus generated tools that copy
// the shape of save_service_commands and are available in every mode.
package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentc-dev/agentc/gen/load"
)

// Files returns a spec with n tools in all (n ≥ the default spec's 5):
// file name → contents, including agentc_schema.cue and cue.mod/module.cue
// so that the real `cue vet` can evaluate the directory as it is.
func Files(n int) map[string][]byte {
	files := load.Default().Files // a map of its own, made for this call
	extra := n - 5
	if extra <= 0 {
		return files
	}
	var b strings.Builder
	b.WriteString("package agentc\n\nimport (\n\t\"list\"\n\t\"strings\"\n)\n")
	for i := range extra {
		name := fmt.Sprintf("synthetic_tool_%04d", i)
		fmt.Fprintf(&b, `
tools: %[1]s: {
	execution: "gateway"
	description: "Synthetic tool %[2]d: saves service commands."
	args: {
		// The services to start, in order.
		commands: [...{
			// A short name for the service.
			name: strings.MinRunes(1) & strings.MaxRunes(100)
			// The shell command that starts the service.
			command: strings.MinRunes(1) & strings.MaxRunes(1000)
			// Directory to run the command in.
			cwd?: #RelativePath & strings.MaxRunes(500)
			// How many instances to run.
			replicas: *1 | int & >=1 & <=16
			// Restart policy.
			restart: *"always" | "never" | "on-failure"
		}] & list.MinItems(1) & list.MaxItems(10)
		// A note for the operator.
		note?: string
	}
	result: {
		// How many commands were saved.
		commandCount: int
	}
}
modes: [_]: tools: %[1]s: "available"
`, name, i)
	}
	files["synthetic_tools.cue"] = []byte(b.String())
	return files
}

// WriteDir writes files into dir (creating cue.mod/ as needed).
func WriteDir(dir string, files map[string][]byte) error {
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
