package cli

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentc-dev/agentc/gen/breaking"
	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/spec"
)

// The values of breaking's --error-format.
const (
	formatText          = "text"
	formatGitHubActions = "github-actions"
)

const breakingHelp = `The report goes to stdout, one line per change:
  FILE:LINE:COL: BREAKING|accepted|compatible RULE [category]: message
and one per unused acceptance; a summary and notices go to stderr. With
--error-format github-actions the report is GitHub workflow commands
instead: ::error for a breaking change, ::notice for an accepted one,
::warning for an unused acceptance (compatible changes stay plain lines),
each naming its file by its path from the git repository's root.

A spec accepts the breaking changes it makes on purpose in its section
breaking (see spec/agentc_schema.cue), reviewed with the change:
  breaking: accept: [{rule: "ARG_REMOVED", tool: "t", field: "dir", reason: "…"}]
An accepted change is reported, marked accepted, and does not fail. An
acceptance that accepts no change against this baseline is reported as
unused (a warning: it does not fail).

When the baseline has no spec (a git ref whose path holds no .cue files
while the path is a spec directory here, or an --against directory without
.cue files) there is nothing to compare: a notice says so and the exit status
is 0, so that the change that adopts agentc passes. A spec directory that
moved (another held a spec at the ref, and holds none here) exits 3.

Exit status: 0 no breaking change, or all accepted; 1 breaking changes;
2 usage; 3 could not compare (a spec does not load, a bad git ref or path,
git failed).`

// breakingCommand returns agentc breaking, with flag variables of its own.
func breakingCommand() *command {
	var sc specChoice
	var against, errorFormat string
	return &command{
		name:    "breaking",
		args:    "--against <dir | git-ref[:path]>",
		summary: "Report contract changes since another version of the spec; exit 1 if any is breaking and not accepted.",
		help:    breakingHelp + "\n\n" + ruleTable(),
		flags: func(fs *flag.FlagSet) {
			sc.register(fs)
			fs.StringVar(&against, "against", "", "the earlier spec: a directory, or git-ref[:path] (path defaults to the spec directory's)")
			fs.StringVar(&errorFormat, "error-format", formatText, "how the report is written: "+formatText+" or "+formatGitHubActions)
		},
		run: func(e *env, args []string) (any, error) {
			switch {
			case len(args) > 0:
				return nil, usagef("breaking takes no arguments, got %q", strings.Join(args, " "))
			case against == "":
				return nil, usagef("--against is required: a spec directory, or git-ref[:path] such as origin/main:spec")
			case errorFormat != formatText && errorFormat != formatGitHubActions:
				return nil, usagef("--error-format must be %s or %s, not %q", formatText, formatGitHubActions, errorFormat)
			case errorFormat != formatText && e.json:
				return nil, usagef("--json and --error-format %s both choose stdout's format; give one", errorFormat)
			}
			dir, err := sc.dir()
			if err != nil {
				return nil, err
			}
			return runBreaking(e, dir, against, errorFormat)
		},
	}
}

// ruleTable lists every rule for 'agentc help breaking': its id, whether
// it is breaking, the keys an acceptance names its subject by, its doc.
func ruleTable() string {
	var b strings.Builder
	b.WriteString("Rules (id, kind, the keys an acceptance of it names, what it means):")
	for _, r := range breaking.Rules {
		kind, keys := "compatible", "-"
		if r.Breaking {
			kind = "breaking"
			if r.Keys != 0 {
				keys = strings.ReplaceAll(r.Keys.String(), " and ", ",")
			}
		}
		fmt.Fprintf(&b, "\n  %-27s %-10s %-11s %s", r.ID, kind, keys, r.Doc)
	}
	return b.String()
}

// breakingReport is the --json data.
type breakingReport struct {
	Against string `json:"against"`
	// Baseline is "found", or "missing" when the baseline has no spec.
	Baseline string `json:"baseline"`
	// Breaking counts the breaking changes not accepted.
	Breaking   int                `json:"breaking"`
	Accepted   int                `json:"accepted"`
	Compatible int                `json:"compatible"`
	Findings   []breaking.Finding `json:"findings"`
	Unused     []unusedAcceptance `json:"unused_acceptances"`
}

// unusedAcceptance is an acceptance that accepts no finding.
type unusedAcceptance struct {
	Rule string `json:"rule"`
	breaking.About
	Reason  string    `json:"reason"`
	Pos     model.Pos `json:"pos"`
	Message string    `json:"message"`
}

func runBreaking(e *env, specDir, against, format string) (any, error) {
	cur, err := loadSpec(specDir, nil) // the built-in spec ("") always loads
	if err != nil {
		return nil, e.cannotCompare(fmt.Sprintf("the spec %s does not load", specDir), true, format, err)
	}
	old, missing, err := loadAgainst(specDir, against)
	if err != nil {
		return nil, e.cannotCompare(fmt.Sprintf("the baseline %s does not load", against), false, format, err)
	}
	rep := breakingReport{Against: against, Baseline: "found", Findings: []breaking.Finding{}, Unused: []unusedAcceptance{}}
	if old == nil {
		rep.Baseline = "missing"
		msg := fmt.Sprintf("the baseline has no spec (%s): nothing to compare against, so nothing breaks; the spec is new", missing)
		if format == formatGitHubActions {
			fmt.Fprintf(e.stdout, "::notice title=agentc breaking::%s\n", escapeData(msg))
		}
		if !e.json {
			e.logf("agentc breaking: notice: %s", msg)
		}
		return rep, nil
	}
	rep.Findings = append(rep.Findings, breaking.Compare(old, cur)...)
	for _, f := range rep.Findings {
		switch {
		case f.Accepted:
			rep.Accepted++
		case f.Breaking:
			rep.Breaking++
		default:
			rep.Compatible++
		}
	}
	for _, a := range breaking.Unused(cur, rep.Findings) {
		rep.Unused = append(rep.Unused, unusedAcceptance{Rule: a.Rule,
			About:  breaking.AboutOf(a),
			Reason: a.Reason, Pos: a.Pos,
			Message: fmt.Sprintf("unused acceptance of %s: it accepts no change against %s; remove it once no baseline needs it", breaking.Describe(a), against)})
	}
	if !e.json {
		e.printBreaking(rep, format)
	}
	counts := fmt.Sprintf("%d compatible", rep.Compatible)
	if rep.Accepted > 0 {
		counts = fmt.Sprintf("%d accepted, %s", rep.Accepted, counts)
	}
	tail := ""
	if len(rep.Unused) > 0 {
		tail = fmt.Sprintf("; %d unused acceptance(s)", len(rep.Unused))
	}
	if rep.Breaking > 0 {
		return nil, &failure{code: "breaking", exit: ExitFindings, msg: fmt.Sprintf("%d breaking change(s), %s, against %s%s: "+
			"undo each, or accept it in the spec's breaking.accept with a reason (agentc help breaking)", rep.Breaking, counts, against, tail), details: rep}
	}
	if !e.json {
		e.logf("agentc breaking: no breaking changes (%s) against %s%s", counts, against, tail)
	}
	return rep, nil
}

// printBreaking writes the report on stdout in the chosen format.
func (e *env) printBreaking(rep breakingReport, format string) {
	if format == formatText {
		for _, f := range rep.Findings {
			fmt.Fprintln(e.stdout, f.String())
		}
		for _, u := range rep.Unused {
			fmt.Fprintf(e.stdout, "%s: %s\n", u.Pos, u.Message)
		}
		return
	}
	// GitHub annotates the pull request's files: a position in the
	// baseline is not one of them, so it goes into the message.
	prefix := repoPrefix()
	for _, f := range rep.Findings {
		msg := f.Message
		if !f.Pos.IsValid() && f.OldPos.IsValid() {
			msg += fmt.Sprintf(" (at %s in the baseline)", f.OldPos)
		}
		switch {
		case f.Accepted:
			fmt.Fprintf(e.stdout, "::notice %s::%s\n", annotationProps(prefix, f.Pos, f.Rule+" (accepted)"),
				escapeData(fmt.Sprintf("%s; accepted at %s: %s", msg, f.AcceptedAt, f.Reason)))
		case f.Breaking:
			fmt.Fprintf(e.stdout, "::error %s::%s\n", annotationProps(prefix, f.Pos, f.Rule), escapeData(msg))
		default:
			fmt.Fprintln(e.stdout, f.String())
		}
	}
	for _, u := range rep.Unused {
		fmt.Fprintf(e.stdout, "::warning %s::%s\n", annotationProps(prefix, u.Pos, "unused acceptance of "+u.Rule), escapeData(u.Message))
	}
}

// repoPrefix is the working directory's path in its git repository
// ("svc/"; "" at its root or outside one): GitHub annotates a file by its
// path from the repository's root, and positions are relative to the
// working directory. Outside a repository git fails, and runEnv returns
// no output.
func repoPrefix() string {
	out, _ := runEnv("", nil, "git", "rev-parse", "--show-prefix")
	return strings.TrimSpace(string(out))
}

// annotationProps are a workflow command's file (its path from the
// repository's root, the working directory's being prefix), line, col and
// title.
func annotationProps(prefix string, p model.Pos, title string) string {
	var props []string
	if p.IsValid() {
		file := p.File
		if !filepath.IsAbs(file) {
			file = path.Join(prefix, filepath.ToSlash(file))
		}
		props = append(props, "file="+escapeProperty(file), fmt.Sprintf("line=%d", p.Line))
		if p.Col > 0 {
			props = append(props, fmt.Sprintf("col=%d", p.Col))
		}
	}
	return strings.Join(append(props, "title="+escapeProperty(title)), ",")
}

// escapeData escapes a workflow command's message as the runner reads it
// (actions/toolkit's escapeData).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value
// (actions/toolkit's escapeProperty).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// cannotCompare returns the failure to compare for err (ExitIncomparable).
// A spec's findings follow what failed to load, a line each; with
// github-actions, each is an error annotation too (at its position when
// the spec is the one under review: the baseline's files are not the pull
// request's).
func (e *env) cannotCompare(what string, inReview bool, format string, err error) error {
	var l diag.List
	isList := errors.As(err, &l)
	if format == formatGitHubActions {
		const title = "agentc breaking: cannot compare"
		if !isList {
			fmt.Fprintf(e.stdout, "::error %s::%s\n", annotationProps("", model.Pos{}, title), escapeData(err.Error()))
		}
		prefix := repoPrefix()
		for _, f := range l {
			pos, msg := model.Pos{}, fmt.Sprintf("%s: %s", what, f)
			if inReview && f.Pos.IsValid() {
				pos, msg = f.Pos, f.Msg
			}
			fmt.Fprintf(e.stdout, "::error %s::%s\n", annotationProps(prefix, pos, title), escapeData(msg))
		}
	}
	if isList {
		err = fmt.Errorf("%s:\n%w", what, err)
	}
	return &failure{code: "incomparable", exit: ExitIncomparable, msg: "cannot compare: " + err.Error(), err: err}
}

// loadAgainst loads the earlier spec from a directory or from git. When the
// baseline holds no spec, it returns a nil spec and says where it looked.
func loadAgainst(specDir, against string) (*model.Spec, string, error) {
	if fi, err := os.Stat(against); err == nil && fi.IsDir() {
		src, err := load.Dir(against)
		if err != nil {
			return nil, "", err
		}
		if len(src.UserFiles()) == 0 {
			return nil, fmt.Sprintf("no .cue files in %s", against), nil
		}
		s, err := load.Load(src)
		return s, "", err
	}
	ref, dir, hasPath := strings.Cut(against, ":")
	if strings.HasSuffix(ref, "/") {
		// origin/${{ github.base_ref }} outside a pull request.
		return nil, "", fmt.Errorf("--against %s: the ref %q names no branch; in GitHub Actions, github.base_ref is set only for pull requests: run breaking on pull_request events", against, ref)
	}
	if !hasPath || dir == "" {
		dir = cmp.Or(specDir, load.DefaultDisplayDir)
	}
	// git names files relative to the working directory as filepath.Rel
	// does: spell dir so (an absolute --spec found none of them, and passed).
	wd, _ := filepath.Abs(".")
	abs, _ := filepath.Abs(dir)
	rel, _ := filepath.Rel(wd, abs) // also drops a trailing slash
	dir = filepath.ToSlash(rel)
	// ls-tree fails when ref names no tree (or outside a repository); a
	// path the tree lacks lists nothing. -z lists names as they are:
	// without it git quotes a name that is not ASCII, and a space would
	// split one. -r lists the subdirectories' files too: cue.mod, and the
	// packages of the spec's module it may import.
	out, err := runEnv("", nil, "git", "ls-tree", "-r", "-z", "--name-only", "--end-of-options", ref, "--", dir+"/")
	if err != nil {
		if shallow, _ := runEnv("", nil, "git", "rev-parse", "--is-shallow-repository"); string(shallow) == "true\n" {
			// CI checks out one commit by default: the base is missing, not mistyped.
			err = fmt.Errorf("%w\nthis clone is shallow and may lack the ref: fetch it, or the history (git fetch --unshallow; actions/checkout with fetch-depth: 0)", err)
		}
		if !hasPath {
			return nil, "", fmt.Errorf("--against %s is neither a directory nor a git ref: %w", against, err)
		}
		return nil, "", fmt.Errorf("--against %s: %q is not a git ref: %w", against, ref, err)
	}
	files := map[string][]byte{}
	for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if !strings.HasSuffix(name, ".cue") {
			continue
		}
		b, err := runEnv("", nil, "git", "show", ref+":./"+name)
		if err != nil {
			return nil, "", fmt.Errorf("--against %s: %w", against, err)
		}
		// Names are relative to the working directory, below dir (never
		// "./…", so that for dir "." nothing is trimmed).
		files[strings.TrimPrefix(name, dir+"/")] = b
	}
	if _, ok := files["cue.mod/module.cue"]; !ok && len(files) > 0 {
		if err := moduleAbove(ref, dir, files); err != nil {
			return nil, "", fmt.Errorf("--against %s: %w", against, err)
		}
	}
	// Positions in the baseline read ref:dir/file, never like the
	// working tree's files.
	src := load.Bytes(ref+":"+dir, files)
	if len(src.UserFiles()) == 0 {
		// The change that adopts agentc adds the spec; a mistyped path
		// names no spec here either, and must not pass unnoticed.
		if here, err := load.Dir(dir); err != nil || len(here.UserFiles()) == 0 {
			// A path from the repository's root, as git reads REF:PATH,
			// run from below it (a module in a subdirectory).
			prefix := repoPrefix()
			if rel, ok := strings.CutPrefix(dir+"/", prefix); hasPath && ok && prefix != "" {
				return nil, "", fmt.Errorf("--against %s: the path after %s: is relative to the working directory, %s in the repository; compare with --against %s:%s",
					against, ref, prefix, ref, cmp.Or(strings.TrimSuffix(rel, "/"), "."))
			}
			return nil, "", fmt.Errorf("--against %s: no .cue files in %s at %s, nor in %s here: is the path right?", against, dir, ref, dir)
		}
		// Nor must a spec directory that moved pass as a new spec.
		out, _ := runEnv("", nil, "git", "ls-tree", "-r", "-z", "--name-only", "--end-of-options", ref)
		for name := range strings.SplitSeq(string(out), "\x00") {
			if old, ok := strings.CutSuffix(name, "/"+spec.SchemaFile); ok && !isSpecDir(old) {
				return nil, "", fmt.Errorf("--against %s: no .cue files in %s at %s, but %s held a spec there and holds none here: "+
					"if the spec moved, compare with --against %s:%s", against, dir, ref, old, ref, old)
			}
		}
		return nil, fmt.Sprintf("no .cue files in %s at %s", dir, ref), nil
	}
	s, err := load.Load(src)
	return s, "", err
}

// moduleAbove adds to files, a spec's at ref in dir (relative to the
// working directory), the .cue files at ref of the module in a directory
// above dir that holds a cue.mod/module.cue, as load.Dir finds it in the
// working tree: its module file and the packages the spec may import,
// each by its path relative to dir ("../schemas/slug.cue"). A spec with no
// module above it is left as it is.
func moduleAbove(ref, dir string, files map[string][]byte) error {
	specDir := path.Join(repoPrefix(), dir) // from the repository's root, as --full-tree lists
	for d, root := specDir, path.Dir(specDir); root != d; d, root = root, path.Dir(root) {
		if _, err := runEnv("", nil, "git", "cat-file", "-e", ref+":"+path.Join(root, "cue.mod/module.cue")); err != nil {
			continue
		}
		out, err := runEnv("", nil, "git", "ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", ref, "--", root+"/")
		if err != nil {
			return err
		}
		for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if !strings.HasSuffix(name, ".cue") || strings.HasPrefix(name, specDir+"/") {
				continue // the spec's own, read already
			}
			b, err := runEnv("", nil, "git", "show", ref+":"+name)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.FromSlash(specDir), filepath.FromSlash(name))
			files[filepath.ToSlash(rel)] = b
		}
		return nil
	}
	return nil
}

// runEnv runs a command (git, go) in dir ("" is the working directory),
// with env added to agentc's environment, and returns its stdout; its
// failure says what the command printed on stderr.
func runEnv(dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
