package cli

import (
	"testing"

	"golang.org/x/mod/modfile"
)

// TestToolModfileFromGoMod: the tool module file (tools/agentc.mod) takes
// the module's go version, and agentc's replacement as it must read one
// directory down: a relative directory gains a "..", an absolute one and a
// module version stay, one with a space stays quoted, and another module's
// replacement is none of agentc's.
func TestToolModfileFromGoMod(t *testing.T) {
	for _, tc := range []struct {
		gomod, replace, goVersion string
	}{
		{"module m\n\ngo 1.25\n", "", "1.25"},
		{"module m\n", "", "1.26"},
		{"module m\n\nreplace example.com/other => ../other\n", "", "1.26"},
		{"module m\n\nreplace github.com/agentc-dev/agentc => ../agentc\n", "../../agentc", "1.26"},
		{"module m\n\nreplace github.com/agentc-dev/agentc => ./third_party/agentc\n", "../third_party/agentc", "1.26"},
		{"module m\n\nreplace github.com/agentc-dev/agentc => /src/agentc\n", "/src/agentc", "1.26"},
		// A checkout in a directory whose name holds a space (C:\Users\Jane Doe\…) stays quoted.
		{"module m\n\nreplace github.com/agentc-dev/agentc => \"/My Projects/agentc\"\n", `"/My Projects/agentc"`, "1.26"},
		{"module m\n\nreplace github.com/agentc-dev/agentc => example.com/fork v1.2.3\n", "example.com/fork v1.2.3", "1.26"},
	} {
		mf, err := modfile.Parse("go.mod", []byte(tc.gomod), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := agentcReplace(mf); got != tc.replace {
			t.Errorf("%q: replace %q, want %q", tc.gomod, got, tc.replace)
		}
		if got := goVersion(mf); got != tc.goVersion {
			t.Errorf("%q: go %q, want %q", tc.gomod, got, tc.goVersion)
		}
	}
}
