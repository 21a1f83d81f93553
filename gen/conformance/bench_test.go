package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	toolschema "github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/generated/go/contract"
)

// benchInputs picks the inputs every implementation is timed on: per tool,
// the minimal and full valid inputs and invalid ones with one and with many
// issues.
func benchInputs(t testing.TB) []corpusCase {
	want := map[string]bool{"minimal": true, "full": true, "null-root-" + "x": false,
		"all-wrong": true, "everything-wrong": true, "cmd-all-bad": true, "keys-deep-suggestions": true, "message-dup-3": true,
		"cmd-emoji-101": true, "path-files.0.path-\"a/../b\"": true, "top-null": true}
	var out []corpusCase
	seenBad := map[string]bool{}
	for _, c := range readCorpus(t) {
		switch {
		case want[c.Name]:
		case strings.HasPrefix(c.Name, "wrongtype-") && !seenBad[c.Tool]:
			seenBad[c.Tool] = true
		default:
			continue
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out
}

// goDecode calls the generated decoders without boxing their result (the
// conformance executor's `any` would add an allocation and a copy).
var goDecode = map[string]func([]byte){
	"automation.complete":   func(b []byte) { _, _ = contract.DecodeAutomationCompleteArgs(b) },
	"request_env_variables": func(b []byte) { _, _ = contract.DecodeRequestEnvVariablesArgs(b) },
	"save_env_files":        func(b []byte) { _, _ = contract.DecodeSaveEnvFilesArgs(b) },
	"save_service_commands": func(b []byte) { _, _ = contract.DecodeSaveServiceCommandsArgs(b) },
	"save_snapshot":         func(b []byte) { _, _ = contract.DecodeSaveSnapshotArgs(b) },
}

// typedUnmarshal decodes into the generated types with encoding/json.
var typedUnmarshal = map[string]func([]byte) error{
	"automation.complete":   func(b []byte) error { var v contract.AutomationCompleteArgs; return json.Unmarshal(b, &v) },
	"request_env_variables": func(b []byte) error { var v contract.RequestEnvVariablesArgs; return json.Unmarshal(b, &v) },
	"save_env_files":        func(b []byte) error { var v contract.SaveEnvFilesArgs; return json.Unmarshal(b, &v) },
	"save_service_commands": func(b []byte) error { var v contract.SaveServiceCommandsArgs; return json.Unmarshal(b, &v) },
	"save_snapshot":         func(b []byte) error { var v contract.SaveSnapshotArgs; return json.Unmarshal(b, &v) },
}

// peers builds the functions timed for one input.
type peers struct {
	schemas map[string]*jsonschema.Schema
	cue     *cueExec
}

func newPeers(b testing.TB) *peers {
	s := defaultSpec(b)
	p := &peers{schemas: map[string]*jsonschema.Schema{}, cue: newCUE(b, specDir(b))}
	c := jsonschema.NewCompiler()
	for _, t := range s.Tools {
		data, err := toolschema.Schema(t)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		url := "mem:///" + t.FileName + ".json"
		if err := c.AddResource(url, doc); err != nil {
			b.Fatal(err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			b.Fatal(err)
		}
		p.schemas[t.Name] = sch
	}
	return p
}

// jsonschemaDecode is the encoding/json + jsonschema/v6 peer: validate the
// generic value, then decode into the typed struct.
func (p *peers) jsonschemaDecode(tool string, input []byte) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return
	}
	if p.schemas[tool].Validate(v) != nil {
		return
	}
	_ = typedUnmarshal[tool](input)
}

// BenchmarkDecode times, on the same inputs, the generated Go decoder, zod 4
// in node (JSON.parse + safeParse in node's own timing loop, reported as
// ns/op), encoding/json + jsonschema/v6, and CUE's runtime validation.
func BenchmarkDecode(b *testing.B) {
	s := defaultSpec(b)
	zod := startZod(b, s)
	p := newPeers(b)
	argsOf := map[string]any{}
	for _, t := range s.Tools {
		argsOf[t.Name] = t.Args
	}
	for _, c := range benchInputs(b) {
		name := c.Tool + "/" + c.Name
		b.Run(name+"/go", func(b *testing.B) {
			dec := goDecode[c.Tool]
			b.ReportAllocs()
			for b.Loop() {
				dec(c.Input)
			}
		})
		b.Run(name+"/zod", func(b *testing.B) {
			n := max(b.N, 20000)
			ns, vns, err := zod.bench(c.Tool, c.Input, n)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(ns, "ns/op")
			b.ReportMetric(vns, "zod-validate-only-ns/op")
		})
		b.Run(name+"/jsonschema", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.jsonschemaDecode(c.Tool, c.Input)
			}
		})
		b.Run(name+"/cue", func(b *testing.B) {
			sch := p.cue.schema(c.Tool)
			for b.Loop() {
				_, _ = p.cue.accepts(sch, s.Tool(c.Tool).Args, c.Input)
			}
		})
	}
}

// timeIt runs f for about d and returns ns per call.
func timeIt(f func(), d time.Duration) float64 {
	for range 10 {
		f()
	}
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		for range 10 {
			f()
		}
		n += 10
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

// BenchmarkRatios measures every implementation on every bench input in
// one run (independent of -benchtime) and logs the ratio table; it reports
// the worst Go/zod ratio as go/zod-max.
func BenchmarkRatios(b *testing.B) {
	s := defaultSpec(b)
	zod := startZod(b, s)
	p := newPeers(b)
	var rows []string
	worst := 0.0
	for range b.N {
		rows = rows[:0]
		rows = append(rows, fmt.Sprintf("%-52s %10s %10s %7s %6s %12s %12s %9s", "input", "go ns", "zod ns", "go/zod", "allocs", "jsonschema", "cue ns", "go/cue"))
		for _, c := range benchInputs(b) {
			dec := goDecode[c.Tool]
			goNS := timeIt(func() { dec(c.Input) }, 100*time.Millisecond)
			allocs := testing.AllocsPerRun(200, func() { dec(c.Input) })
			// Size node's loop to about 200ms from a short probe.
			probe, _, err := zod.bench(c.Tool, c.Input, 200)
			if err != nil {
				b.Fatal(err)
			}
			zodNS, _, err := zod.bench(c.Tool, c.Input, max(1000, int(2e8/max(probe, 1))))
			if err != nil {
				b.Fatal(err)
			}
			jsNS := timeIt(func() { p.jsonschemaDecode(c.Tool, c.Input) }, 50*time.Millisecond)
			sch := p.cue.schema(c.Tool)
			args := s.Tool(c.Tool).Args
			cueNS := timeIt(func() { _, _ = p.cue.accepts(sch, args, c.Input) }, 50*time.Millisecond)
			ratio := goNS / zodNS
			worst = max(worst, ratio)
			rows = append(rows, fmt.Sprintf("%-52s %10.0f %10.0f %7.2f %6.0f %12.0f %12.0f %9.4f", c.Tool+"/"+c.Name, goNS, zodNS, ratio, allocs, jsNS, cueNS, goNS/cueNS))
		}
	}
	// The table goes to stdout: benchmark logs are truncated.
	fmt.Printf("\n%s\n\n", strings.Join(rows, "\n"))
	b.ReportMetric(worst, "go/zod-max")
}
