//go:build !unix

package write

import "os"

// createFile creates p, which must not exist, with mode 0644 whatever the
// umask, and writes data to it.
func createFile(p string, data []byte, _ bool) (err error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err = f.Write(data); err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readFile is os.ReadFile.
func readFile(p string) ([]byte, error) { return os.ReadFile(p) }

// alive reports that any process may still be running: where agentc
// cannot tell, a temporary file is only taken for a leftover by its age.
func alive(int) bool { return true }

// umaskHides reports that the umask may hide bits of any mode.
func umaskHides(int) bool { return true }
