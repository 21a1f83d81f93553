// Package cli implements the agentc command line. Every command is a
// function of its arguments and streams that returns an exit code; none
// calls os.Exit.
package cli

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/jsonwrite"
)

// Exit codes.
const (
	ExitOK       = 0 // success
	ExitFindings = 1 // findings, or the command failed
	ExitUsage    = 2 // the command line was wrong
	// ExitIncomparable is breaking's: the specs could not be compared.
	ExitIncomparable = 3
)

// SchemaVersion is the version of the --json envelope.
const SchemaVersion = "v1"

// env is what a command runs with.
type env struct {
	stdout, stderr io.Writer
	json           bool
}

type command struct {
	name, args, summary string
	// run returns the data of the --json envelope of a success, which
	// seed 003 says always carries data (gen --watch, which returns none,
	// refuses --json).
	run   func(e *env, args []string) (any, error)
	flags func(fs *flag.FlagSet)
	// help says more, for 'agentc help <command>'.
	help string
	// writes is set on the commands that change files.
	writes bool
}

// commands returns agentc's commands, sorted by name. Each call builds
// them afresh, each with flag variables of its own, so that nothing one
// run of Main parses is seen by another.
func commands() []*command {
	return []*command{breakingCommand(), checkCommand(), genCommand(), initCommand(), schemaCommand(), versionCommand(), vetCommand()}
}

// Main runs agentc with args (without the program name) and returns the
// exit code. No command reads stdin yet.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	if len(args) > 1 && args[0] == "help" { // what '<command> --help' prints
		args = append([]string{args[1], "--help"}, args[2:]...)
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		w := stdout
		code := ExitOK
		if len(args) == 0 {
			w, code = stderr, ExitUsage
		}
		usage(w)
		return code
	}
	out := &recorder{w: stdout}
	e := &env{stdout: out, stderr: stderr}
	// A command line that is not understood is explained on stderr; a
	// machine caller (--json) still gets its one envelope on stdout.
	misused := func(err error) int {
		if e.json || slices.Contains(args, "--json") || slices.Contains(args, "-json") {
			e.writeJSON(envelope{SchemaVersion: SchemaVersion, Error: &errorBody{Code: "usage", Message: err.Error()}})
		}
		return ExitUsage
	}
	cmds := commands()
	i := slices.IndexFunc(cmds, func(c *command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "agentc: unknown command %q\n", args[0])
		usage(stderr)
		return misused(fmt.Errorf("unknown command %q", args[0]))
	}
	c := cmds[i]
	// The flag package prints its usage text: asked for (-h), it goes to
	// stdout; after a mistake, to stderr.
	var flagOut bytes.Buffer
	fs := newFlagSet(c, &flagOut, &e.json)
	positional, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			stdout.Write(flagOut.Bytes())
			return ExitOK
		}
		stderr.Write(flagOut.Bytes())
		return misused(err)
	}
	data, err := c.run(e, positional)
	code := e.finish(c.name, data, err)
	if out.err != nil {
		fmt.Fprintf(stderr, "agentc %s: writing stdout: %v\n", c.name, out.err)
		return max(code, ExitFindings)
	}
	return code
}

// recorder passes writes on to w and keeps the first error: a command
// whose report or envelope did not reach stdout (a full disk) has not
// succeeded.
type recorder struct {
	w   io.Writer
	err error
}

func (r *recorder) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	r.err = cmp.Or(r.err, err)
	return n, err
}

// parseInterspersed parses flags wherever they stand among the arguments
// ("agentc vet spec --json" as well as "agentc vet --json spec"); after
// "--" everything is an argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	return append(positional, tail...), nil
}

// newFlagSet returns c's flags, with --json (every command's) set into
// json; its usage text goes to w.
func newFlagSet(c *command, w io.Writer, json *bool) *flag.FlagSet {
	fs := flag.NewFlagSet("agentc "+c.name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.BoolVar(json, "json", false, "print one JSON envelope on stdout; logs go to stderr")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n%s\n\n", strings.TrimSpace("agentc "+c.name+" [flags] "+c.args), c.summary)
		if c.help != "" {
			fmt.Fprintf(fs.Output(), "%s\n\n", c.help)
		}
		fmt.Fprintf(fs.Output(), "flags:\n")
		fs.PrintDefaults()
	}
	if c.flags != nil {
		c.flags(fs)
	}
	return fs
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "agentc compiles an agent-contract spec (CUE) into tools, validators, tables and docs.")
	fmt.Fprintln(w, "\nusage: agentc <command> [flags] [args]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'agentc help <command>' for a command's flags. Exit status: 0 ok, 1 findings or failure, 2 usage; breaking: 3 could not compare.")
}

// usagef returns a command-line mistake (exit 2).
func usagef(format string, args ...any) error {
	return &failure{code: "usage", exit: ExitUsage, msg: fmt.Sprintf(format, args...)}
}

// envelope is seed 003's machine I/O contract.
type envelope struct {
	SchemaVersion string     `json:"schema_version"`
	Success       bool       `json:"success"`
	Data          any        `json:"data,omitempty"`
	Error         *errorBody `json:"error,omitempty"`
}

type errorBody struct {
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Findings diag.List `json:"findings,omitempty"`
	// Details carries a command's structured report (check, breaking).
	Details any `json:"details,omitempty"`
}

// failure is a command failure with the code of its --json error, its
// exit status, and either a structured report for --json (check's drift,
// breaking's changes; in human mode the command has printed the report,
// and finish prints the message) or the error it wraps (the findings of a
// spec breaking cannot compare, which its message holds too).
type failure struct {
	code, msg string
	exit      int
	details   any
	err       error
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.err }

// finish prints the outcome and returns the exit code.
func (e *env) finish(cmd string, data any, err error) int {
	if err == nil {
		if e.json {
			e.writeJSON(envelope{SchemaVersion: SchemaVersion, Success: true, Data: data})
		}
		return ExitOK
	}
	code, kind := ExitFindings, "failure"
	var fl *failure
	var l diag.List
	found := errors.As(err, &l)
	switch {
	case errors.As(err, &fl):
		code, kind = fl.exit, fl.code
	case found:
		kind = "findings"
	}
	if e.json {
		body := &errorBody{Code: kind, Message: err.Error()}
		if found {
			body.Message = fmt.Sprintf("%d finding(s)", len(l))
			if fl != nil {
				// Its first line says what did not load (breaking's spec
				// or its baseline).
				head, _, _ := strings.Cut(fl.msg, ":\n")
				body.Message = head + ": " + body.Message
			}
			body.Findings = l
		}
		if fl != nil {
			body.Details = fl.details
		}
		e.writeJSON(envelope{SchemaVersion: SchemaVersion, Success: false, Error: body})
		return code
	}
	switch {
	case code == ExitUsage:
		fmt.Fprintf(e.stderr, "agentc %s: %v\nRun 'agentc help %s' for usage.\n", cmd, err, cmd)
	case found && fl == nil: // a failure's message holds the findings it wraps
		diag.Print(e.stdout, l)
	default:
		fmt.Fprintf(e.stderr, "agentc %s: %v\n", cmd, err)
	}
	return code
}

func (e *env) writeJSON(v any) {
	b, err := jsonwrite.Marshal(v)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentc: encoding JSON: %v\n", err)
		return
	}
	e.stdout.Write(b)
}

// logf writes a diagnostic line to stderr (never stdout).
func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(e.stderr, format+"\n", args...)
}
