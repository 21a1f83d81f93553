package write

import (
	"os"
	"syscall"
)

// fileStat is what identifies a file's content without reading it.
type fileStat struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // ns since 1970
}

// statOf stats the file at p (not following a symlink); ok is false when
// that fails or the file is not regular.
func statOf(p string) (fileStat, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStat{}, false
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, false
	}
	return fileStat{
		dev: uint64(sys.Dev), ino: sys.Ino, size: sys.Size,
		mtime: sys.Mtim.Nano(),
		ctime: sys.Ctim.Nano(),
	}, true
}
