package cli_test

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/cli"
	"github.com/agentc-dev/agentc/spec"
)

// run runs agentc with args and returns its exit code and streams.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// writeSpec writes the embedded default spec into a new directory, applies
// edits (file → old → new), and returns the directory.
func writeSpec(t *testing.T, edits map[string][2]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "myspec")
	err := fs.WalkDir(spec.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := spec.FS.ReadFile(p)
		if err != nil {
			return err
		}
		if e, ok := edits[p]; ok {
			if !bytes.Contains(b, []byte(e[0])) {
				t.Fatalf("%s does not contain %q", p, e[0])
			}
			b = bytes.Replace(b, []byte(e[0]), []byte(e[1]), 1)
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// brokenSpec has two findings in two files.
func brokenSpec(t *testing.T) string {
	return writeSpec(t, map[string][2]string{
		"contract.cue": {`default: "coding"`, `default: "codng"`},
		"modes.cue":    {`request_env_variables: "emphasized"`, `request_env_variables: "emphasized"` + "\n\t\tsave_snapshots:        \"available\""},
	})
}

// envelope is seed 003's JSON envelope, decoded strictly.
type envelope struct {
	SchemaVersion string          `json:"schema_version"`
	Success       bool            `json:"success"`
	Data          json.RawMessage `json:"data"`
	Error         *struct {
		Code     string `json:"code"`
		Message  string `json:"message"`
		Findings []struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Col     int    `json:"col"`
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"findings"`
	} `json:"error"`
}

// decodeOne decodes stdout as exactly one envelope and nothing else.
func decodeOne(t *testing.T, stdout string) envelope {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var env envelope
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("stdout is not a JSON envelope: %v\n%s", err, stdout)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout holds more than one JSON value:\n%s", stdout)
	}
	if env.SchemaVersion != cli.SchemaVersion {
		t.Errorf("schema_version = %q, want %q", env.SchemaVersion, cli.SchemaVersion)
	}
	return env
}

func TestVetExitCodes(t *testing.T) {
	broken := brokenSpec(t)
	clean := writeSpec(t, nil)
	for _, tc := range []struct {
		name string
		args []string
		code int
		// stderr is the exact expected stderr, or, when it starts with "~",
		// a substring of it.
		stderr string
		// stdout is the exact expected stdout: the findings.
		stdout string
	}{
		{"built-in spec", []string{"vet", "--builtin"}, cli.ExitOK, "", ""},
		{"the repository's spec", []string{"vet"}, cli.ExitOK, "", ""},
		{"spec on disk", []string{"vet", clean}, cli.ExitOK, "", ""},
		{"findings", []string{"vet", broken}, cli.ExitFindings, "",
			broken + "/contract.cue:24:11: selection.default is unknown mode \"codng\"; did you mean \"coding\"?\n" +
				broken + "/modes.cue:11:26: mode \"setup\" names unknown tool \"save_snapshots\"; did you mean \"save_snapshot\"?\n"},
		{"missing directory", []string{"vet", filepath.Join(clean, "nope")}, cli.ExitFindings, "~no such file or directory", ""},
		{"two directories", []string{"vet", clean, clean}, cli.ExitUsage, "~vet takes at most one spec directory", ""},
		{"unknown flag", []string{"vet", "--nope"}, cli.ExitUsage, "~flag provided but not defined: -nope", ""},
		{"unknown command", []string{"vett"}, cli.ExitUsage, "~unknown command \"vett\"", ""},
		{"no command", nil, cli.ExitUsage, "~usage: agentc <command>", ""},
		{"help for an unknown command", []string{"help", "vett"}, cli.ExitUsage, "~unknown command \"vett\"", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, tc.code, stderr)
			}
			if stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
			if sub, ok := strings.CutPrefix(tc.stderr, "~"); ok {
				if !strings.Contains(stderr, sub) {
					t.Errorf("stderr lacks %q:\n%s", sub, stderr)
				}
			} else if stderr != tc.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, tc.stderr)
			}
		})
	}
}

func TestVetJSON(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		code, stdout, stderr := run(t, "vet", "--json", "--builtin")
		if code != cli.ExitOK || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		env := decodeOne(t, stdout)
		if !env.Success || env.Error != nil {
			t.Fatalf("envelope is not a success: %s", stdout)
		}
		var data struct {
			Spec                 string
			Tools, Modes, Models int
		}
		if err := json.Unmarshal(env.Data, &data); err != nil {
			t.Fatal(err)
		}
		if data.Spec != "spec" || data.Tools != 5 || data.Modes != 3 || data.Models != 3 {
			t.Errorf("data = %+v, want the default spec's 5 tools, 3 modes, 3 models", data)
		}
	})
	t.Run("findings", func(t *testing.T) {
		broken := brokenSpec(t)
		code, stdout, stderr := run(t, "vet", "--json", broken)
		if code != cli.ExitFindings || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		env := decodeOne(t, stdout)
		if env.Success || env.Error == nil || env.Data != nil {
			t.Fatalf("envelope is not a failure: %s", stdout)
		}
		if env.Error.Code != "findings" || env.Error.Message != "2 finding(s)" || len(env.Error.Findings) != 2 {
			t.Fatalf("error = %+v, want 2 findings", env.Error)
		}
		f := env.Error.Findings[0]
		if f.File != broken+"/contract.cue" || f.Line != 24 || f.Col != 11 || f.Code != "unknown-mode" ||
			f.Message != `selection.default is unknown mode "codng"; did you mean "coding"?` {
			t.Errorf("first finding = %+v", f)
		}
		if f := env.Error.Findings[1]; f.File != broken+"/modes.cue" || f.Code != "unknown-tool" {
			t.Errorf("second finding = %+v", f)
		}
	})
	t.Run("usage", func(t *testing.T) {
		code, stdout, stderr := run(t, "vet", "--json", "a", "b")
		if code != cli.ExitUsage || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		env := decodeOne(t, stdout)
		if env.Success || env.Error == nil || env.Error.Code != "usage" || len(env.Error.Findings) != 0 {
			t.Errorf("envelope = %s, want a usage error", stdout)
		}
	})
	t.Run("unknown command", func(t *testing.T) {
		code, stdout, _ := run(t, "vett", "--json")
		if code != cli.ExitUsage {
			t.Fatalf("exit %d, want %d", code, cli.ExitUsage)
		}
		env := decodeOne(t, stdout)
		if env.Success || env.Error == nil || env.Error.Code != "usage" || env.Error.Message != `unknown command "vett"` {
			t.Errorf("envelope = %s, want a usage error naming the command", stdout)
		}
	})
	t.Run("failure", func(t *testing.T) {
		code, stdout, _ := run(t, "vet", "--json", filepath.Join(t.TempDir(), "nope"))
		if code != cli.ExitFindings {
			t.Fatalf("exit %d, want %d", code, cli.ExitFindings)
		}
		env := decodeOne(t, stdout)
		if env.Success || env.Error == nil || env.Error.Code != "failure" || !strings.Contains(env.Error.Message, "no such file or directory") {
			t.Errorf("envelope = %s, want a failure", stdout)
		}
	})
}

// Help asked for goes to stdout with exit 0, in every form; help printed
// after a mistake goes to stderr with exit 2.
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"help", "gen"}, {"gen", "--help"}, {"vet", "-h"}, {"check", "--help"}} {
		code, stdout, stderr := run(t, args...)
		if code != cli.ExitOK || !strings.Contains(stdout, "usage: agentc") || stderr != "" {
			t.Errorf("agentc %s: exit %d, stdout %q, stderr %q; want exit 0 and the usage on stdout only", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// 'agentc help <command>' and '<command> --help' print the same text,
	// --json among the flags.
	for _, c := range []string{"breaking", "check", "gen", "init", "schema", "version", "vet"} {
		_, help, _ := run(t, "help", c)
		_, flagHelp, _ := run(t, c, "--help")
		if help != flagHelp || !strings.Contains(help, "-json") {
			t.Errorf("agentc help %s:\n%s\nagentc %s --help:\n%s\nwant the same text, listing -json", c, help, c, flagHelp)
		}
	}
	code, stdout, stderr := run(t, "gen", "--nope")
	if code != cli.ExitUsage || stdout != "" || !strings.Contains(stderr, "usage: agentc gen") {
		t.Errorf("agentc gen --nope: exit %d, stdout %q, stderr %q; want exit 2 and the usage on stderr only", code, stdout, stderr)
	}
}

// TestUsageErrors: a command given arguments it does not take, or flags
// that exclude each other, exits 2 before it reads a spec, and says how
// to get its usage.
func TestUsageErrors(t *testing.T) {
	dir := writeSpec(t, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"breaking", "--against", dir, "extra"}, `breaking takes no arguments, got "extra"`},
		{[]string{"breaking", "--against", dir, "--builtin", "--spec", dir}, "--builtin and a spec directory exclude each other"},
		{[]string{"init", "a", "b"}, "init takes at most one repository directory"},
		{[]string{"version", "extra"}, "version takes no arguments"},
		{[]string{"schema", "tool", "x", "--builtin", "--spec", dir}, "--builtin and a spec directory exclude each other"},
		{[]string{"schema", "tools"}, `schema takes 'commands' or 'tool NAME', got "tools"`},
	} {
		code, stdout, stderr := run(t, tc.args...)
		help := "Run 'agentc help " + tc.args[0] + "' for usage."
		if code != cli.ExitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, help) {
			t.Errorf("agentc %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}
