package cli

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strings"
)

// versionCommand returns agentc version, with flag variables of its own.
func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "Print agentc's module version, VCS revision and Go version (also: agentc --version).",
		run:     runVersion,
	}
}

// buildVersion is what agentc knows of its own build, from the build
// information the go command records in every binary.
type buildVersion struct {
	// Version is agentc's module version: a release (v1.2.0), a
	// pseudo-version, or "(devel)" for a build whose version the go
	// command could not tell.
	Version string `json:"version"`
	// Revision and Modified are the VCS state of a build from a checkout.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// ReplacedBy is the replacement of agentc's module in the module that
	// built it (a directory or another module), when there is one.
	ReplacedBy string `json:"replaced_by,omitempty"`
	Go         string `json:"go"`
}

// readVersion reads agentc's build information.
func readVersion() buildVersion {
	v := buildVersion{Version: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Go = bi.GoVersion
	// Main is the module of the main package, agentc's, however it was
	// built (go install, go tool agentc, go run with agentc as a
	// requirement): never among Deps.
	v.Version = cmp.Or(bi.Main.Version, v.Version)
	if r := bi.Main.Replace; r != nil {
		v.ReplacedBy = r.Path
		// A directory has no version; the build information says
		// "(devel)" for it.
		if r.Version != "" && r.Version != "(devel)" {
			v.ReplacedBy += "@" + r.Version
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the version as one line: "agentc v1.2.0 (go1.26.8)",
// "agentc v0.0.0-…-ae86204e (revision ae86204e…, modified; go1.26.8)" or
// "agentc (devel), replaced by ../agentc (go1.26.8)".
func (v buildVersion) String() string {
	var notes []string
	if v.Revision != "" {
		r := "revision " + v.Revision
		if v.Modified {
			r += ", modified"
		}
		notes = append(notes, r)
	}
	if v.Go != "" {
		notes = append(notes, v.Go)
	}
	s := "agentc " + v.Version
	if v.ReplacedBy != "" {
		s += ", replaced by " + v.ReplacedBy
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

func runVersion(e *env, args []string) (any, error) {
	if len(args) > 0 {
		return nil, usagef("version takes no arguments")
	}
	v := readVersion()
	if !e.json {
		fmt.Fprintln(e.stdout, v)
	}
	return v, nil
}
