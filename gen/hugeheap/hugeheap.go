// Package hugeheap asks the kernel to back the Go heap of a short-lived
// agentc process with transparent huge pages.
//
// Most hosts run Linux with transparent huge pages in "madvise" mode: a
// mapping gets 2 MiB pages only if the program asks for them, and Go's
// runtime does not ask for its heap. Loading a 1,000-tool spec then touches
// about 110 MB of fresh heap 4 KiB at a time: some 27,000 page faults, a
// third of a vet's time on a virtual machine where a fault is dear (see the
// closing notes of issue 11: 0.64 s → 0.35–0.41 s for vet at 1,000 tools).
//
// Reserve makes the runtime map one large block, advises the kernel to
// back it with huge pages, and gives the block back to the heap: the
// runtime allocates lowest addresses first, so the objects that follow
// fill that range, 2 MiB per fault. Nothing is touched that would not
// have been, and the advice only changes how the pages are backed, never
// what the program computes. It is given only when the kernel has enough
// free huge pages to cover the block (/proc/buddyinfo): otherwise a fault
// could wait for memory to be compacted, the stall that made Go's runtime
// stop advising its own heap. Setting AGENTC_HUGEPAGES=off in the
// environment turns it off.
package hugeheap

import (
	"os"
	"strconv"
	"strings"
)

// Size is the block Reserve advises: enough for a 1,000-tool gen, whose
// heap peaks near 120 MB. Only pages the heap then uses are backed.
const Size = 128 << 20

// hugePage is the size of a transparent huge page on the architectures
// that have them (x86-64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// freeHugePages counts the free blocks of 2 MiB and more in a Linux
// /proc/buddyinfo, in huge pages: each line lists a zone's free blocks by
// order, 4 KiB × 2^order, from order 0; order 9 is one huge page.
func freeHugePages(buddyinfo []byte) int {
	n := 0
	for line := range strings.Lines(string(buddyinfo)) {
		_, counts, ok := strings.Cut(line, "zone")
		if !ok {
			continue
		}
		fields := strings.Fields(counts)
		if len(fields) < 2 {
			continue
		}
		for order, f := range fields[1:] { // fields[0] is the zone's name
			c, err := strconv.Atoi(f)
			if err != nil {
				return 0 // not the format this reads: claim nothing
			}
			if order >= 9 {
				n += c << (order - 9)
			}
		}
	}
	return n
}

// Reserve advises the kernel to back the next size bytes of the heap with
// huge pages, where that is possible and not turned off. It reports
// whether the advice was taken. Call it first thing in main, before
// other goroutines allocate.
func Reserve(size int) bool {
	if os.Getenv("AGENTC_HUGEPAGES") == "off" || size <= 0 {
		return false
	}
	return reserve(size)
}
