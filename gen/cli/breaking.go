package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"

	"github.com/agentc-dev/agentc/gen/breaking"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

func init() {
	var specDir, against string
	register(&command{
		name:    "breaking",
		args:    "--against <dir | git-ref[:path]>",
		summary: "Report contract changes since another version of the spec; exit 1 if any is breaking.",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&specDir, "spec", "", "spec directory (default: the embedded default spec)")
			fs.StringVar(&against, "against", "", "the earlier spec: a directory, or git-ref[:path] (path defaults to --spec, or spec)")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("breaking takes no arguments")
			}
			if against == "" {
				return usagef("--against is required")
			}
			return runBreaking(e, specDir, against)
		},
	})
}

func runBreaking(e *env, specDir, against string) error {
	cur, err := loadSpec(specDir)
	if err != nil {
		return err
	}
	old, err := loadAgainst(specDir, against)
	if err != nil {
		return err
	}
	fs := breaking.Compare(old, cur)
	nb := 0
	for _, f := range fs {
		if f.Breaking {
			nb++
		}
	}
	if !e.json {
		for _, f := range fs {
			fmt.Fprintln(e.stdout, f.String())
		}
	}
	data := map[string]any{"against": against, "breaking": nb, "compatible": len(fs) - nb, "findings": fs}
	if nb > 0 {
		return &failure{code: "breaking", msg: fmt.Sprintf("%d breaking change(s), %d compatible, against %s", nb, len(fs)-nb, against), details: data}
	}
	if !e.json {
		e.logf("agentc breaking: no breaking changes (%d compatible) against %s", len(fs), against)
	}
	return ok(data)
}

// loadAgainst loads the earlier spec from a directory or from git.
func loadAgainst(specDir, against string) (*model.Spec, error) {
	if fi, err := os.Stat(against); err == nil && fi.IsDir() {
		return loadSpec(against)
	}
	ref, dir, hasPath := strings.Cut(against, ":")
	if !hasPath || dir == "" {
		dir = specDir
		if dir == "" {
			dir = load.DefaultDisplayDir
		}
	}
	dir = path.Clean(strings.TrimSuffix(dir, "/"))
	out, err := git("ls-tree", "--name-only", ref, "--", dir+"/")
	if err != nil {
		return nil, fmt.Errorf("--against %s: %w", against, err)
	}
	files := map[string][]byte{}
	for _, name := range strings.Fields(string(out)) {
		base := path.Base(name)
		if !strings.HasSuffix(base, ".cue") {
			continue
		}
		b, err := git("show", ref+":./"+name)
		if err != nil {
			return nil, fmt.Errorf("--against %s: %w", against, err)
		}
		files[base] = b
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--against %s: no .cue files in %s at %s", against, dir, ref)
	}
	if b, err := git("show", ref+":./"+dir+"/cue.mod/module.cue"); err == nil {
		files["cue.mod/module.cue"] = b
	}
	return load.Load(load.Bytes(ref+":"+dir, files))
}

func git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
