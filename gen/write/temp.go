package write

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A writer's temporary files and directories are named
// tmpPrefix<pid>-<token>-<n>: the process that made them (its pid, and a
// token of its own, as pids are reused: in a container agentc may well
// have the same pid every time), so that a later run can tell a killed
// run's leftovers from a live run's work in progress. Plans skip them; a
// full run removes the leftovers it finds (leftover).
const tmpPrefix = ".agentc-tmp-"

var (
	// tmpSeq numbers this process's temporary names.
	tmpSeq atomic.Int64
	// tmpOwner is this process's part of them.
	tmpOwner = fmt.Sprintf("%d-%08x", os.Getpid(), rand.Uint32())
)

// tmpName returns a new temporary name in dir.
func tmpName(dir string) string {
	return filepath.Join(dir, fmt.Sprintf("%s%s-%d", tmpPrefix, tmpOwner, tmpSeq.Add(1)))
}

// createTemp writes data to a new temporary file in dir and returns its
// path. chmod is as for createFile.
func createTemp(dir string, data []byte, chmod bool) (string, error) {
	for {
		p := tmpName(dir)
		err := createFile(p, data, chmod)
		if errors.Is(err, fs.ErrExist) {
			continue // a leftover of a process that had this pid
		}
		return p, err
	}
}

// mkdirTemp creates a new temporary directory in dir and returns its path.
func mkdirTemp(dir string) (string, error) {
	for {
		p := tmpName(dir)
		err := os.Mkdir(p, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return p, err
	}
}

// leftoverAge is how old a temporary file must be for a run to take it
// for a leftover even though a process with its pid is running (the pid
// may have been reused), or when it does not name a pid (an older
// agentc's). No run of agentc keeps a temporary file that long.
const leftoverAge = time.Hour

// leftover reports whether the temporary file or directory d (named
// tmpPrefix…) is what a run that no longer runs left behind: its process
// is gone, or it is older than leftoverAge.
func leftover(d fs.DirEntry) bool {
	name := strings.TrimPrefix(d.Name(), tmpPrefix)
	if strings.HasPrefix(name, tmpOwner+"-") {
		return false // this process's own: a run in progress
	}
	pidText, _, named := strings.Cut(name, "-")
	if pid, err := strconv.Atoi(pidText); named && err == nil && pid > 0 {
		if pid == os.Getpid() || !alive(pid) {
			return true // an earlier process's with this pid, or a gone one's
		}
	}
	fi, err := d.Info()
	return err == nil && time.Since(fi.ModTime()) > leftoverAge
}
