// Package stamp lets gen and check recognise an output tree that is already
// exactly what generating would make, without loading the spec or running
// the emitters.
//
// The output is a function of: the spec's files as loaded (every .cue file
// of the directory and cue.mod/module.cue, by name and content), the name
// the spec directory is shown by (it appears in positions and the docs),
// the emitters run (--only), the CUE_* and GODEBUG environment, and
// agentc's own build. Key hashes them all. After a run that left the tree
// as generated, the CLI records the key, the manifest's SHA-256 and the
// number of files in an entry in the user cache directory, named after the
// invocation (working directory, --spec, --out, --only). A later run with
// the same key only has to confirm that the tree is unchanged: the manifest
// hashes to the recorded sum, every file it lists hashes to its entry, and
// (for a full run) no other file under the root carries agentc's header
// (write.Intact).
//
// The key is kept out of the manifest on purpose: agentc's identity
// changes with every build of agentc, and the committed manifest must not.
//
// The shortcut is only taken when the key is sound: a spec that imports a
// CUE package outside the standard library (its files are not hashed) and
// an agentc whose build cannot be identified make Key report false, and
// the run generates in full.
package stamp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"cuelang.org/go/cue/parser"
)

// Inputs are what generation is a function of, besides agentc itself.
type Inputs struct {
	// Display is the spec directory as positions show it.
	Display string
	// Files maps each spec file's name to its content.
	Files map[string][]byte
	// Only lists the emitters run; empty for all.
	Only []string
}

// Key returns the SHA-256 (hex) of in, agentc's identity and the
// environment CUE reads, and whether the output is a function of them
// alone.
func Key(in Inputs) (string, bool) {
	id, ok := Identity()
	if !ok {
		return "", false
	}
	names := make([]string, 0, len(in.Files))
	for name := range in.Files {
		if strings.HasSuffix(name, ".cue") && !strings.Contains(name, "/") && importsBeyondStd(name, in.Files[name]) {
			return "", false
		}
		names = append(names, name)
	}
	slices.Sort(names)
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s\n", len(s), s) }
	field("agentc gen key v1")
	field(id)
	field(in.Display)
	for _, name := range names {
		field(name)
		fmt.Fprintf(h, "%d:", len(in.Files[name]))
		h.Write(in.Files[name])
	}
	only := slices.Clone(in.Only)
	slices.Sort(only)
	field("only")
	for _, o := range slices.Compact(only) {
		field(o)
	}
	field("env")
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CUE_") || strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	for _, kv := range env {
		field(kv)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// importsBeyondStd reports whether a spec file imports a package outside
// CUE's standard library (whose first path element has a dot), or cannot
// be read far enough to tell.
func importsBeyondStd(name string, src []byte) bool {
	if !bytes.Contains(src, []byte("import")) {
		return false
	}
	f, err := parser.ParseFile(name, src, parser.ImportsOnly)
	if err != nil {
		return true
	}
	for imp := range f.ImportSpecs() {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return true
		}
		first, _, _ := strings.Cut(p, "/")
		if strings.Contains(first, ".") {
			return true
		}
	}
	return false
}

var identity struct {
	sync.Mutex
	override *string
	done     bool
	id       string
	ok       bool
}

// OverrideIdentity makes Identity return id (for tests, which run as a
// test binary) until the returned function restores the real one.
func OverrideIdentity(id string) (restore func()) {
	identity.Lock()
	defer identity.Unlock()
	prev := identity.override
	identity.override = &id
	return func() {
		identity.Lock()
		defer identity.Unlock()
		identity.override = prev
	}
}

// Identity identifies the running agentc's build: whatever could change
// what it generates. A build from a released module version or a clean
// VCS checkout is identified by its build information (module versions
// with their checksums, VCS revision, Go version, build settings). Any
// other build (a development build, a modified checkout, a dependency
// replaced by a directory) is identified by the SHA-256 of its executable,
// kept in the user cache directory by path, size and modification time so
// that it is computed once per build. It reports false when neither is
// available.
func Identity() (string, bool) {
	identity.Lock()
	defer identity.Unlock()
	if identity.override != nil {
		return *identity.override, true
	}
	if !identity.done {
		identity.done = true
		identity.id, identity.ok = buildIdentity()
		if !identity.ok {
			identity.id, identity.ok = executableIdentity()
		}
	}
	return identity.id, identity.ok
}

// agentcModule is agentc's module path.
const agentcModule = "github.com/agentc-dev/agentc"

// buildIdentity returns the hash of the build information when it pins
// everything down.
func buildIdentity() (string, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	if !pinned(bi) {
		return "", false
	}
	sum := sha256.Sum256([]byte(bi.String()))
	return "build:" + hex.EncodeToString(sum[:]), true
}

// pinned reports whether bi names exact versions of agentc and everything
// it is built from.
func pinned(bi *debug.BuildInfo) bool {
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	fixed := func(m *debug.Module) bool {
		if m.Replace != nil {
			m = m.Replace
		}
		return m.Version != "" && m.Version != "(devel)" && !strings.HasSuffix(m.Version, "+dirty")
	}
	for _, d := range bi.Deps {
		if !fixed(d) {
			return false
		}
	}
	if bi.Main.Path == agentcModule {
		// Built in agentc's own module: a clean checkout at a revision, or
		// a version (go install …@v1.2.3).
		if settings["vcs.modified"] == "true" {
			return false
		}
		return fixed(&bi.Main) || settings["vcs.revision"] != ""
	}
	// A dependency of the main module (go tool agentc): its deps are
	// checked above, agentc among them.
	return slices.ContainsFunc(bi.Deps, func(d *debug.Module) bool { return d.Path == agentcModule })
}

// executableIdentity hashes the running executable, through a cache entry.
func executableIdentity() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "", false
	}
	stat := fmt.Sprintf("%s\n%d\n%d\n", exe, fi.Size(), fi.ModTime().UnixNano())
	entry := cacheFile("exe", stat)
	if b, err := os.ReadFile(entry); err == nil {
		if rest, ok := bytes.CutPrefix(b, []byte(stat)); ok && len(rest) == 2*sha256.Size+1 {
			return "exe:" + string(rest[:2*sha256.Size]), true
		}
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if after, err := os.Stat(exe); err != nil || after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) {
		return "", false // replaced while it was read
	}
	_ = writeCache(entry, []byte(stat+sum+"\n"))
	return "exe:" + sum, true
}

// Entry is what a run that left the output tree as generated records.
type Entry struct {
	// Key is the input key of the run.
	Key string
	// Out is the output root as the run resolved it.
	Out string
	// Manifest is the SHA-256 of the manifest the run left.
	Manifest string
	// Files is the number of files the run generated, manifest included.
	Files int
}

// Invocation names the cache entry of a command line: the same working
// directory, spec, output flag and emitters resolve the same output root
// for the same key.
func Invocation(spec, out string, only []string) string {
	wd, _ := os.Getwd()
	only = slices.Clone(only)
	slices.Sort(only)
	return strings.Join([]string{wd, spec, out, strings.Join(only, ",")}, "\x00")
}

// Lookup returns the entry recorded for an invocation.
func Lookup(invocation string) (Entry, bool) {
	p := cacheFile("gen", invocation)
	if p == "" {
		return Entry{}, false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return Entry{}, false
	}
	used(p)
	lines := strings.Split(string(b), "\n")
	if len(lines) != 6 || lines[0] != invocation || lines[5] != "" {
		return Entry{}, false
	}
	n, err := strconv.Atoi(lines[4])
	if err != nil {
		return Entry{}, false
	}
	return Entry{Key: lines[1], Out: lines[2], Manifest: lines[3], Files: n}, true
}

// Record stores the entry of an invocation. A failure to store it only
// costs the next run its shortcut, so it is not reported.
func Record(invocation string, e Entry) {
	if strings.ContainsAny(invocation+e.Out, "\n") {
		return
	}
	if p := cacheFile("gen", invocation); p != "" {
		_ = writeCache(p, fmt.Appendf(nil, "%s\n%s\n%s\n%s\n%d\n", invocation, e.Key, e.Out, e.Manifest, e.Files))
	}
}

// cacheFile returns the path of a cache entry of the given kind, named by
// the SHA-256 of name, or "" without a user cache directory.
func cacheFile(kind, name string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(dir, "agentc", kind, hex.EncodeToString(sum[:16]))
}

// MaxAge is how long a cache entry that no run has used is kept: each
// write of an entry removes the entries of its kind unused for longer, so
// the cache holds about what the command lines of the last month need.
const MaxAge = 30 * 24 * time.Hour

// used marks the entry at p as used now, so that prune keeps it.
func used(p string) {
	now := time.Now()
	_ = os.Chtimes(p, now, now)
}

// prune removes the entries in dir unused (by modification time) for more
// than MaxAge, and temporary files a killed run left for as long.
func prune(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	old := time.Now().Add(-MaxAge)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(old) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// writeCache writes a cache entry atomically.
func writeCache(p string, data []byte) error {
	if p == "" {
		return fmt.Errorf("no user cache directory")
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	prune(filepath.Dir(p))
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
