package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/agentc-dev/agentc/gen/jsonschema"
)

// commandSchema describes one command for machine callers (seed 003's
// schema discovery).
type commandSchema struct {
	Name    string       `json:"name"`
	Args    string       `json:"args,omitempty"`
	Summary string       `json:"summary"`
	Writes  bool         `json:"writes"`
	Flags   []flagSchema `json:"flags"`
}

type flagSchema struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default string `json:"default"`
	Usage   string `json:"usage"`
}

// schemaCommand returns agentc schema, with flag variables of its own.
func schemaCommand() *command {
	var sc specChoice
	return &command{
		name:    "schema",
		args:    "[commands | tool NAME]",
		summary: "Describe agentc for machines: its commands and flags (default), or one tool's argument JSON Schema.",
		flags:   sc.register,
		run: func(e *env, args []string) (any, error) {
			switch {
			case len(args) == 0 || (len(args) == 1 && args[0] == "commands"):
				return runSchemaCommands(e)
			case len(args) == 2 && args[0] == "tool":
				dir, err := sc.dir()
				if err != nil {
					return nil, err
				}
				return runSchemaTool(e, dir, args[1])
			}
			return nil, usagef("schema takes 'commands' or 'tool NAME', got %q", strings.Join(args, " "))
		},
	}
}

// runSchemaCommands describes every command: its flags, whether it writes
// files, and the exit statuses and --json error codes.
func runSchemaCommands(e *env) (any, error) {
	var cs []commandSchema
	for _, c := range commands() {
		fs := newFlagSet(c, nil, new(bool))
		s := commandSchema{Name: c.name, Args: c.args, Summary: c.summary, Writes: c.writes, Flags: []flagSchema{}}
		fs.VisitAll(func(f *flag.Flag) {
			typ := "string"
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				typ = "bool"
			}
			s.Flags = append(s.Flags, flagSchema{Name: "--" + f.Name, Type: typ, Default: f.DefValue, Usage: f.Usage})
		})
		cs = append(cs, s)
	}
	data := map[string]any{"commands": cs, "exit_codes": map[string]string{
		"0": "success", "1": "findings, or the command failed", "2": "usage error",
		"3": "breaking only: the specs could not be compared (a spec does not load, a bad git ref or path)",
	}, "error_codes": map[string]string{
		"usage":        "exit 2: the command line is wrong; error.message says how",
		"findings":     "exit 1: the spec does not load or check; error.findings lists each at its file, line and column",
		"failure":      "exit 1: the command failed otherwise (no spec found, a file it cannot read or write); error.message says why",
		"drift":        "exit 1: check: generated files differ from the spec; error.details holds check's data, each file in findings",
		"handlers":     "exit 1: check --handlers: the handlers disagree with the spec (the files agree); error.details.handlers.findings",
		"breaking":     "exit 1: breaking: breaking changes the spec does not accept; error.details holds the report",
		"incomparable": "exit 3: breaking: the specs could not be compared; error.findings when a spec does not load",
	}}
	if !e.json {
		e.writeJSON(data)
	}
	return data, nil
}

func runSchemaTool(e *env, specDir, name string) (any, error) {
	s, err := loadSpec(specDir, nil)
	if err != nil {
		return nil, err
	}
	t := s.Tool(name)
	if t == nil {
		var names []string
		for _, t := range s.Tools {
			names = append(names, t.Name)
		}
		return nil, fmt.Errorf("no tool %q in %s (tools: %s)", name, s.Dir, strings.Join(names, ", "))
	}
	b, err := jsonschema.Schema(t)
	if err != nil {
		return nil, err
	}
	if !e.json {
		e.stdout.Write(b)
	}
	return map[string]any{"tool": t.Name, "schema": json.RawMessage(b)}, nil
}
