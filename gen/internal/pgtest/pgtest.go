// Package pgtest runs a real PostgreSQL server for a test: Debian's
// binaries (package postgresql, /usr/lib/postgresql/<version>/bin; `make
// postgres` installs it), a fresh cluster in t.TempDir(), listening on
// 127.0.0.1 only, on a free port, with no unix socket. Start returns when
// the server accepts connections; the server stops when the test ends.
// Restart stops it and starts it again on the same data directory and port,
// for tests of what survives a restart.
//
// PostgreSQL refuses to run as root. Under root, pgtest runs initdb and
// postgres as the "postgres" system user that Debian's package creates
// (or "nobody" when there is none), hands it the data directory, and lets
// it traverse the test's temporary directory.
//
// When the binaries are missing the test is skipped, unless the CI
// environment variable is set, which fails it: a test that silently skips
// in CI proves nothing.
//
// The cluster trades durability for speed (fsync, synchronous_commit and
// full_page_writes off): a clean Restart keeps every committed row, a
// machine crash would not, and tests do not crash machines.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/procout"
)

// BinGlob is where Debian's postgresql package puts the server binaries.
const BinGlob = "/usr/lib/postgresql/*/bin"

// Superuser is the cluster's superuser; it needs no password from loopback.
const Superuser = "postgres"

// Database is the database the DSN names.
const Database = "postgres"

// installHint tells a reader how to get the binaries.
const installHint = "run `make postgres` (apt-get install -y --no-install-recommends postgresql)"

// readyMarker is the log line postgres prints once it accepts connections.
const readyMarker = "database system is ready to accept connections"

// startTimeout bounds initdb and each server start; a loaded CI runner is
// slow, a healthy one takes about a second.
const startTimeout = 60 * time.Second

// stopTimeout bounds a fast shutdown before the server is killed.
const stopTimeout = 30 * time.Second

// Server is a running PostgreSQL server.
type Server struct {
	// DSN is the connection URL of the superuser and Database, like
	// postgres://postgres@127.0.0.1:41234/postgres?sslmode=disable.
	DSN string
	// Host is 127.0.0.1.
	Host string
	// Port is the TCP port; it stays the same across Restart.
	Port int
	// DataDir is the cluster's data directory.
	DataDir string
	// StartupTime is how long the last start took, from exec to ready.
	StartupTime time.Duration

	bin      string
	maxConns int
	runAs    *credential
	proc     *procout.Process
	output   *procout.SyncBuffer
}

// DefaultMaxConnections is the server's max_connections unless Start is
// given MaxConnections.
const DefaultMaxConnections = 200

// Option changes how Start runs the server.
type Option func(*Server)

// MaxConnections sets the server's max_connections (3 of them reserved
// for the superuser, as by default), for tests of what a gateway does when
// PostgreSQL refuses connections ("too many clients", SQLSTATE 53300).
func MaxConnections(n int) Option { return func(s *Server) { s.maxConns = n } }

// Start initialises a cluster in a temporary directory, starts a server
// for it and stops the server when the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	bin := binDir(t, BinGlob, os.Getenv("CI"))
	s := &Server{Host: "127.0.0.1", bin: bin, maxConns: DefaultMaxConnections}
	for _, o := range opts {
		o(s)
	}

	dir := t.TempDir()
	var err error
	if s.runAs, err = runAsUser(dir); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	s.DataDir = filepath.Join(dir, "data")

	if err := s.initdb(); err != nil {
		t.Fatalf("pgtest: initdb: %v\n%s", err, s.output)
	}

	if s.Port, err = procout.FreePort(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	s.DSN = s.DSNFor(Database)
	if err := s.start(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
		if t.Failed() {
			t.Logf("pgtest: server log:\n%s", s.output)
		}
	})
	return s
}

// DSNFor returns the connection URL of the superuser and the named
// database (which the test creates).
func (s *Server) DSNFor(database string) string {
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", Superuser, net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), database)
}

// Restart stops the server with a fast shutdown (open connections are
// closed, committed data is kept) and starts it again on the same data
// directory and port.
//
// A *sql.DB that lives across a Restart holds dead connections. pgx's
// database/sql driver pings a pooled connection before reuse only when it
// has been idle for more than a second, so right after a quick Restart the
// next query on it fails with "FATAL: terminating connection due to
// administrator command (SQLSTATE 57P01)" instead of dialling again: open
// a new *sql.DB (as a restarted gateway would), or retry.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.stop(); err != nil {
		t.Fatalf("pgtest: restart: %v", err)
	}
	if err := s.start(); err != nil {
		t.Fatalf("pgtest: restart: %v", err)
	}
}

// initdb creates the cluster, its output the first in s.output.
func (s *Server) initdb() error {
	s.output = &procout.SyncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "initdb"),
		"--pgdata", s.DataDir,
		"--username", Superuser,
		"--auth", "trust",
		"--encoding", "UTF8",
		"--locale", "C",
		"--no-sync",
		"--no-instructions",
	)
	cmd.Env = environment()
	cmd.Stdout, cmd.Stderr = s.output, s.output
	cmd.WaitDelay = time.Second
	s.runAs.apply(cmd)
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("initdb did not finish within %v", startTimeout)
	}
	return err
}

// start runs postgres and waits until it accepts connections.
func (s *Server) start() error {
	cmd := exec.Command(filepath.Join(s.bin, "postgres"),
		"-D", s.DataDir,
		"-p", strconv.Itoa(s.Port),
		"-c", "listen_addresses="+s.Host,
		"-c", "unix_socket_directories=",
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "logging_collector=off",
		"-c", "log_destination=stderr",
		"-c", "max_connections="+strconv.Itoa(s.maxConns),
	)
	cmd.Env = environment()
	cmd.WaitDelay = time.Second
	s.runAs.apply(cmd)

	began := time.Now()
	_, proc, err := procout.Start(cmd, s.output, readyMarker, startTimeout)
	if err != nil {
		return fmt.Errorf("postgres: %v (is port %d taken?); log:\n%s", err, s.Port, s.output)
	}
	s.StartupTime = time.Since(began)
	s.proc = proc
	return nil
}

// stop ends the server: SIGINT (fast shutdown), then SIGKILL after
// stopTimeout.
func (s *Server) stop() error {
	if s.proc == nil {
		return nil
	}
	proc := s.proc
	s.proc = nil
	if err := proc.Stop(syscall.SIGINT, stopTimeout); err != nil {
		return fmt.Errorf("stopping postgres: %w", err)
	}
	return nil
}

// binDir finds the directory holding initdb and postgres: the newest
// version matching glob. It skips the test when there is none, or fails it
// when ci is set.
func binDir(t testing.TB, glob, ci string) string {
	t.Helper()
	dirs, _ := filepath.Glob(glob)
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	var errs []error
	for _, dir := range dirs {
		err := hasBinaries(dir)
		if err == nil {
			return dir
		}
		errs = append(errs, err)
	}
	msg := fmt.Sprintf("PostgreSQL's server binaries are not installed (nothing usable in %s: %v); %s",
		glob, errors.Join(errs...), installHint)
	if ci == "" {
		t.Skipf("pgtest: %s", msg)
	}
	t.Fatalf("pgtest: CI=%q: %s", ci, msg)
	return ""
}

// versionOf is the major version in a path like
// /usr/lib/postgresql/15/bin, or 0 (Atoi's answer for a name that is no
// number), which sorts it last.
func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// hasBinaries checks dir for executable initdb and postgres.
func hasBinaries(dir string) error {
	for _, name := range []string{"initdb", "postgres"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if info.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("%s is not executable", filepath.Join(dir, name))
		}
	}
	return nil
}

// credential is the user the server runs as; nil means the test's own.
type credential struct {
	uid, gid uint32
}

// runAsUser decides which user runs the cluster in dir. Not root: the test's
// user, nothing to do. Root: the postgres (or nobody) system user, which
// gets dir and may traverse dir's parent.
func runAsUser(dir string) (*credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("running as root, and PostgreSQL refuses root: no postgres or nobody user to run it as: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %s: %w", u.Username, err)
	}
	// t.TempDir's parent is the test's own 0700 directory; the server's
	// user needs to pass through it, nothing more.
	parent := filepath.Dir(dir)
	if info, err := os.Stat(parent); err != nil {
		return nil, err
	} else if err := os.Chmod(parent, info.Mode().Perm()|0o011); err != nil {
		return nil, err
	}
	if err := os.Chown(dir, int(uid), int(gid)); err != nil {
		return nil, fmt.Errorf("handing %s to %s: %w", dir, u.Username, err)
	}
	return &credential{uid: uint32(uid), gid: uint32(gid)}, nil
}

// environment is the servers' environment: a fixed C locale and the few
// variables worth inheriting.
func environment() []string {
	env := []string{"LC_ALL=C", "LANG=C"}
	for _, k := range []string{"PATH", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
