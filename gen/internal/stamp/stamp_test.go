package stamp

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

func base() Inputs {
	return Inputs{
		Display: "spec",
		Files: map[string][]byte{
			"tools.cue":          []byte("package agentc\n\nimport \"strings\"\n\nx: strings.MinRunes(1)\n"),
			"modes.cue":          []byte("package agentc\n"),
			"cue.mod/module.cue": []byte("module: \"a.b/c\"\n"),
		},
	}
}

// TestKeyCoversEveryInput: each input changes the key; what does not
// change the output (the order of --only, map order) does not.
func TestKeyCoversEveryInput(t *testing.T) {
	defer OverrideIdentity("id-1")()
	key := func(in Inputs) string {
		t.Helper()
		k, ok := Key(in)
		if !ok {
			t.Fatalf("Key(%v) not sound", in)
		}
		return k
	}
	ref := key(base())
	if again := key(base()); again != ref {
		t.Fatalf("Key is not deterministic: %s, %s", ref, again)
	}
	for name, change := range map[string]func(in *Inputs){
		"content":       func(in *Inputs) { in.Files["modes.cue"] = []byte("package agentc\n// x\n") },
		"module file":   func(in *Inputs) { in.Files["cue.mod/module.cue"] = []byte("module: \"a.b/d\"\n") },
		"file renamed":  func(in *Inputs) { in.Files["modes2.cue"] = in.Files["modes.cue"]; delete(in.Files, "modes.cue") },
		"file added":    func(in *Inputs) { in.Files["more.cue"] = []byte("package agentc\n") },
		"file removed":  func(in *Inputs) { delete(in.Files, "modes.cue") },
		"display":       func(in *Inputs) { in.Display = "./spec2" },
		"only":          func(in *Inputs) { in.Only = []string{"docs"} },
		"boundary":      func(in *Inputs) { in.Files["modes.cue"] = []byte("package agentc\n1:x"); in.Files["tools.cue"] = nil },
		"another agent": func(in *Inputs) { OverrideIdentity("id-2") },
		"CUE env":       func(in *Inputs) { t.Setenv("CUE_EXPERIMENT", "evalv3=0") },
		"GODEBUG":       func(in *Inputs) { t.Setenv("GODEBUG", "x=1") },
	} {
		t.Run(name, func(t *testing.T) {
			defer OverrideIdentity("id-1")()
			in := base()
			change(&in)
			if k := key(in); k == ref {
				t.Errorf("the key did not change")
			}
		})
	}
	a, b := base(), base()
	a.Only, b.Only = []string{"go", "docs"}, []string{"docs", "go"}
	if key(a) != key(b) {
		t.Error("the order of --only changed the key")
	}
}

// TestKeyRefusesOutsideImports: files the key does not hash (an imported
// package of the module or a registry) make it unsound.
func TestKeyRefusesOutsideImports(t *testing.T) {
	defer OverrideIdentity("id")()
	for _, src := range []string{
		"package agentc\n\nimport \"example.com/shared\"\n",
		"package agentc\n\nimport (\n\t\"list\"\n\tx \"a.b/c/d:pkg\"\n)\n",
		"package agentc\n\nimport \"unterminated\n",
	} {
		in := base()
		in.Files["tools.cue"] = []byte(src)
		if _, ok := Key(in); ok {
			t.Errorf("Key sound for a spec importing:\n%s", src)
		}
	}
	in := base()
	in.Files["tools.cue"] = []byte("package agentc\n\nimport (\n\t\"list\"\n\t\"strings\"\n)\n")
	if _, ok := Key(in); !ok {
		t.Error("Key unsound for standard-library imports")
	}
}

// TestPinned: only builds whose every module has a version count as
// identified by their build information.
func TestPinned(t *testing.T) {
	dep := func(path, version string) *debug.Module {
		return &debug.Module{Path: path, Version: version, Sum: "h1:x"}
	}
	setting := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want bool
	}{
		{"released", debug.BuildInfo{Main: debug.Module{Path: agentcModule, Version: "v1.2.0"}, Deps: []*debug.Module{dep("cuelang.org/go", "v0.17.1")}}, true},
		{"clean checkout", debug.BuildInfo{Main: debug.Module{Path: agentcModule, Version: "(devel)"}, Settings: setting("vcs.revision", "abc", "vcs.modified", "false")}, true},
		{"modified checkout", debug.BuildInfo{Main: debug.Module{Path: agentcModule, Version: "v0.0.0-2026-abc+dirty"}, Settings: setting("vcs.revision", "abc", "vcs.modified", "true")}, false},
		{"no vcs", debug.BuildInfo{Main: debug.Module{Path: agentcModule, Version: "(devel)"}}, false},
		{"go tool", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{dep(agentcModule, "v1.2.0")}}, true},
		{"replaced by a directory", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"},
			Deps: []*debug.Module{{Path: agentcModule, Version: "v1.2.0", Replace: &debug.Module{Path: "../agentc"}}}}, false},
		{"dependency replaced by a directory", debug.BuildInfo{Main: debug.Module{Path: agentcModule, Version: "v1.2.0"},
			Deps: []*debug.Module{{Path: "cuelang.org/go", Version: "v0.17.1", Replace: &debug.Module{Path: "../cue"}}}}, false},
		{"not agentc", debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "v1.0.0"}}, false},
	} {
		if got := pinned(&tc.bi); got != tc.want {
			t.Errorf("%s: pinned = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestExecutableIdentity: the executable's hash is computed once, then
// read from the cache while the executable's size and time stay.
func TestExecutableIdentity(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	id, ok := executableIdentity()
	if !ok || !strings.HasPrefix(id, "exe:") {
		t.Fatalf("executableIdentity() = %q, %v", id, ok)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	fi, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	// A forged cache entry with the same stat line is believed: proof that
	// the second call reads the cache rather than the executable.
	stat := exe + "\n" + strconv.FormatInt(fi.Size(), 10) + "\n" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + "\n"
	forged := strings.Repeat("ab", 32)
	if err := writeCache(cacheFile("exe", stat), []byte(stat+forged+"\n")); err != nil {
		t.Fatal(err)
	}
	if again, _ := executableIdentity(); again != "exe:"+forged {
		t.Errorf("second call = %q, want the cached %q", again, forged)
	}
}

// TestEntries: an entry recorded for an invocation is found for it alone.
func TestEntries(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	inv := Invocation("spec", "out", []string{"go", "docs"})
	if _, ok := Lookup(inv); ok {
		t.Fatal("an entry before any was recorded")
	}
	want := Entry{Key: "k", Out: "out", Manifest: "m", Files: 12}
	Record(inv, want)
	if got, ok := Lookup(inv); !ok || got != want {
		t.Errorf("Lookup = %+v, %v; want %+v", got, ok, want)
	}
	if Invocation("spec", "out", []string{"docs", "go"}) != inv {
		t.Error("the order of --only made another invocation")
	}
	if _, ok := Lookup(Invocation("spec", "out2", nil)); ok {
		t.Error("another --out found the entry")
	}
}

// TestPrune: writing an entry removes the entries of its kind that no run
// has used for more than MaxAge, and keeps one a lookup has just used.
func TestPrune(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	stale, live := Invocation("spec", "stale", nil), Invocation("spec", "live", nil)
	Record(stale, Entry{Key: "k", Out: "stale", Manifest: "m", Files: 1})
	Record(live, Entry{Key: "k", Out: "live", Manifest: "m", Files: 1})
	long := time.Now().Add(-MaxAge - time.Hour)
	for _, inv := range []string{stale, live} {
		if err := os.Chtimes(cacheFile("gen", inv), long, long); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := Lookup(live); !ok {
		t.Fatal("the live entry is gone before any pruning")
	}
	Record(Invocation("spec", "new", nil), Entry{Key: "k", Out: "new", Manifest: "m", Files: 1})
	if _, ok := Lookup(stale); ok {
		t.Error("an entry unused for longer than MaxAge survived a write")
	}
	if _, ok := Lookup(live); !ok {
		t.Error("an entry a lookup had just used was pruned")
	}
}
