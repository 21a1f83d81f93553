package hugeheap

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// madvHugepage is MADV_HUGEPAGE, the same on every Linux architecture Go
// supports.
const madvHugepage = 14

// buddyinfoPath is where the kernel lists its free blocks by size.
var buddyinfoPath = "/proc/buddyinfo"

func reserve(size int) bool {
	// A bound on the address space would count the whole block against
	// it; leave such a process as the runtime would run it.
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur != ^uint64(0) {
		return false
	}
	// With no free huge pages to take, a fault in an advised range may
	// stall while the kernel compacts memory to make one (Go's runtime
	// stopped advising its heap for that: go.dev/issue/61718). Advise
	// only when the free huge pages would cover the block.
	if b, err := os.ReadFile(buddyinfoPath); err != nil || freeHugePages(b) < size/hugePage {
		return false
	}
	ok := advise(size)
	// Free the block now, so that the allocations that follow reuse its
	// range rather than map more.
	runtime.GC()
	return ok
}

// advise allocates a block of size bytes, which the runtime maps afresh,
// and marks the huge pages it spans for transparent huge pages. The block
// is garbage once advise returns.
func advise(size int) bool {
	block := make([]byte, size)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(block)))
	begin := (start + hugePage - 1) &^ (hugePage - 1)
	end := (start + uintptr(size)) &^ (hugePage - 1)
	if begin >= end {
		return false
	}
	// The block was never written: madvise only marks the mapping, and
	// the kernel backs each huge page on its first touch.
	return syscall.Madvise(block[begin-start:end-start], madvHugepage) == nil
}
