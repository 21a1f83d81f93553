package write

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
)

// Memory remembers, for a process that plans and writes the same tree
// again and again (gen --watch), the content of each file a plan read or
// an Apply wrote, with the file's identity and times (fileStat) when it
// had that content. A later plan takes a file's content from memory, not
// from disk, when the file's identity, size, mtime and ctime are all
// unchanged, and the remembered ctime was, when the content was
// remembered, older by more than the file system's timestamp granularity
// than a time the file system had already reached (a ctime of a file an
// earlier Apply wrote): any change made after that would have moved the
// ctime, which no program can set back. Any doubt — another root, a file
// with no such times, a stat that fails — and the file is read.
type Memory struct {
	mu    sync.Mutex
	root  string
	files map[string]remembered
	// now is the newest ctime of a file an Apply wrote: the file system's
	// clock had reached it before any later stat.
	now int64 // ns since 1970, 0 for none
	// reads counts the files read from disk (for tests).
	reads atomic.Int64
}

type remembered struct {
	st   fileStat
	data []byte
	// trusted: st.ctime was older than the file system's clock by more
	// than its granularity when st was taken.
	trusted bool
}

// NewMemory returns an empty memory.
func NewMemory() *Memory { return &Memory{files: map[string]remembered{}} }

// Plan is the package's Plan, taking the content of files the memory knows
// to be unchanged from it.
func (m *Memory) Plan(root string, files []emit.File) ([]Change, error) {
	m.use(root)
	return plan(root, files, false, m)
}

// use points the memory at root, forgetting what it knew of another.
func (m *Memory) use(root string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.useLocked(root)
}

func (m *Memory) useLocked(root string) {
	if m.root != root {
		m.root, m.files, m.now = root, map[string]remembered{}, 0
	}
}

// read returns the content of the file at rel under the memory's root,
// from memory when it is sound, else from disk (remembering it).
func (m *Memory) read(rel, p string) ([]byte, error) {
	st, ok := statOf(p)
	m.mu.Lock()
	r, known := m.files[rel]
	now := m.now
	m.mu.Unlock()
	if ok && known && r.trusted && r.st == st {
		return r.data, nil
	}
	m.reads.Add(1)
	data, err := readFile(p)
	if err != nil || !ok {
		return data, err
	}
	// st was taken before the read: a change after it moves the ctime,
	// so the pair can only be found stale, never wrongly fresh.
	m.remember(rel, st, data, now)
	return data, nil
}

func (m *Memory) remember(rel string, st fileStat, data []byte, now int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[rel] = remembered{st: st, data: data, trusted: now != 0 && st.ctime+int64(granularity(st.ctime)) < now}
}

// granularity is how far apart two changes of a file may be and still get
// the same ctime: a clock tick for a file system with fine timestamps, two
// seconds for one whose timestamps are whole seconds (or seem to be).
func granularity(ns int64) time.Duration {
	if ns%int64(time.Second) == 0 {
		return 2 * time.Second
	}
	return 100 * time.Millisecond
}

// Applied records what Apply wrote under root for changes: each written
// file's content with its times, and the file system's clock as those
// times show it. Call it after Apply succeeded.
func (m *Memory) Applied(root string, changes []Change) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.useLocked(root)
	for _, c := range changes {
		switch c.Kind {
		case Create, Update:
		case Remove:
			delete(m.files, c.Path)
			continue
		default:
			continue
		}
		st, ok := statOf(filepath.Join(root, filepath.FromSlash(c.Path)))
		if !ok {
			delete(m.files, c.Path)
			continue
		}
		if st.ctime > m.now {
			m.now = st.ctime
		}
		// Not trusted yet: the clock is only known to have reached this
		// file's ctime, not to have passed it.
		m.files[c.Path] = remembered{st: st, data: c.New}
	}
}
