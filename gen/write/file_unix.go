//go:build unix

package write

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// The writer's own file operations go straight to the system calls: an
// os.File costs a regular file several more (the runtime's poller tries,
// and fails, to register it), which adds up over thousands of files.

// createFile creates p, which must not exist, with mode 0644, and writes
// data to it. chmod sets the mode again once the file is created, for a
// umask that clears some of its bits (umaskHides).
func createFile(p string, data []byte, chmod bool) error {
	fd, err := retry(func() (int, error) {
		return syscall.Open(p, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o644)
	})
	if err != nil {
		return &fs.PathError{Op: "open", Path: p, Err: err}
	}
	err = writeAll(fd, data)
	if err == nil && chmod {
		err = syscall.Fchmod(fd, 0o644)
	}
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return &fs.PathError{Op: "write", Path: p, Err: err}
	}
	return nil
}

func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := retry(func() (int, error) { return syscall.Write(fd, data) })
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// readFile is os.ReadFile in four system calls.
func readFile(p string) ([]byte, error) {
	fd, err := retry(func() (int, error) { return syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0) })
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	}
	// One byte more than the size, so that a file that grew is read to
	// its end by the loop rather than cut short.
	data := make([]byte, 0, int(st.Size)+1)
	for {
		n, err := retry(func() (int, error) { return syscall.Read(fd, data[len(data):cap(data)]) })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: p, Err: err}
		}
		if n == 0 {
			return data, nil
		}
		data = data[:len(data)+n]
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

// alive reports whether the process pid may still be running (a process
// of another user's counts): a temporary file named for it may still be
// in use.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// umaskHides reports whether the process's umask clears any bit of mode,
// or may: a file created with mode then needs a chmod to have it.
func umaskHides(mode int) bool {
	// Linux shows the umask in /proc; reading it is the only way that
	// does not set it, even for a moment, under other goroutines.
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		if _, rest, ok := bytes.Cut(b, []byte("\nUmask:\t")); ok {
			if line, _, ok := bytes.Cut(rest, []byte("\n")); ok {
				if m, err := strconv.ParseUint(string(line), 8, 32); err == nil {
					return int(m)&mode != 0
				}
			}
		}
	}
	return true
}
