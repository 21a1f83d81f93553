package hugeheap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tests run the advice in a child process (this test binary, with
// HUGEHEAP_CHILD set): it must come before the heap grows, and the
// mappings it leaves are the process's own.
func TestMain(m *testing.M) {
	if os.Getenv("HUGEHEAP_CHILD") != "" {
		child()
		return
	}
	os.Exit(m.Run())
}

// report is what a child saw: whether Reserve took, and over the mappings
// marked for huge pages ("hg" in /proc/self/smaps), their size and how
// much of them huge pages back, after the heap grew by 48 MB of small
// objects.
type report struct {
	Reserved  bool
	Advised   int64 // bytes in mappings marked hg
	HugeBytes int64 // AnonHugePages within them
}

var sink [][]byte

func child() {
	if p := os.Getenv("HUGEHEAP_BUDDYINFO"); p != "" {
		buddyinfoPath = p
	}
	r := report{Reserved: Reserve(Size)}
	for range 48 << 20 / 256 {
		sink = append(sink, make([]byte, 256))
	}
	for _, b := range sink {
		b[0] = 1 // touch every object's page
	}
	r.Advised, r.HugeBytes = smaps()
	runtime.KeepAlive(sink)
	json.NewEncoder(os.Stdout).Encode(r)
}

// smaps sums the mappings of this process marked for huge pages.
func smaps() (advised, huge int64) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	var size, anonHuge int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		switch fields[0] {
		case "Size:":
			size = kb(fields[1])
		case "AnonHugePages:":
			anonHuge = kb(fields[1])
		case "VmFlags:":
			for _, fl := range fields[1:] {
				if fl == "hg" {
					advised += size
					huge += anonHuge
				}
			}
		}
	}
	return advised, huge
}

func kb(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n << 10
}

// runChild runs a child with env added to the environment, under the
// command wrap (e.g. prlimit and its flags), and returns its report.
func runChild(t *testing.T, wrap []string, env ...string) report {
	t.Helper()
	args := append(slices.Clone(wrap), os.Args[0], "-test.run=^$")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), append([]string{"HUGEHEAP_CHILD=1", "AGENTC_HUGEPAGES="}, env...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var r report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("child's report %q: %v", out, err)
	}
	return r
}

// thpMode is the kernel's transparent huge page mode ("always",
// "madvise", "never"), or "" without them.
func thpMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	s := string(b)
	if i, j := strings.Index(s, "["), strings.Index(s, "]"); i >= 0 && j > i {
		return s[i+1 : j]
	}
	return ""
}

func TestReserve(t *testing.T) {
	if runtime.GOOS != "linux" {
		r := runChild(t, nil)
		if r.Reserved {
			t.Fatalf("Reserve took on %s: %+v", runtime.GOOS, r)
		}
		return
	}
	r := runChild(t, nil)
	if b, err := os.ReadFile(buddyinfoPath); err != nil || freeHugePages(b) < Size/hugePage {
		// Too few free huge pages now: Reserve must have refused.
		if r.Reserved {
			t.Fatalf("Reserve took with %d free huge pages (%v): %+v", freeHugePages(b), err, r)
		}
		t.Skipf("only %d free huge pages here: Reserve refused, as it must", freeHugePages(b))
	}
	if !r.Reserved {
		t.Fatalf("Reserve did not take: %+v", r)
	}
	if r.Advised < Size-2*hugePage {
		t.Errorf("mappings marked for huge pages hold %d bytes, want at least %d", r.Advised, Size-2*hugePage)
	}
	// The heap's new objects landed in the advised range and huge pages
	// back them. The kernel may fall back to small pages where it finds
	// no free 2 MiB of memory, so this asks for two huge pages of the 48
	// MB, not all of them (here: 62 MB).
	if mode := thpMode(); mode == "madvise" || mode == "always" {
		if r.HugeBytes < 2*hugePage {
			t.Errorf("huge pages back %d bytes of the advised mappings after 48 MB of objects, want at least %d (THP %s)", r.HugeBytes, 2*hugePage, mode)
		}
	} else {
		t.Logf("transparent huge pages are %q here: only the advice is checked", mode)
	}
}

func TestReserveOff(t *testing.T) {
	r := runChild(t, nil, "AGENTC_HUGEPAGES=off")
	if r.Reserved {
		t.Fatalf("Reserve took with AGENTC_HUGEPAGES=off: %+v", r)
	}
	// The runtime may mark a little metadata itself; never the heap.
	if r.Advised >= 16<<20 {
		t.Errorf("with AGENTC_HUGEPAGES=off, %d bytes are marked for huge pages", r.Advised)
	}
}

func TestReserveFragmented(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/buddyinfo is Linux's")
	}
	// Plenty of free memory, none of it in free 2 MiB blocks.
	info := filepath.Join(t.TempDir(), "buddyinfo")
	if err := os.WriteFile(info, []byte("Node 0, zone   Normal  90000 80000 7000 600 50 4 3 2 1 0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runChild(t, nil, "HUGEHEAP_BUDDYINFO="+info)
	if r.Reserved || r.Advised >= 16<<20 {
		t.Fatalf("Reserve advised %d bytes with no free huge pages: %+v", r.Advised, r)
	}
}

func TestReserveBoundedAddressSpace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("RLIMIT_AS is checked on Linux")
	}
	// prlimit is util-linux: bound the child's address space well above
	// what it needs, and Reserve must leave it alone.
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit is not installed")
	}
	r := runChild(t, []string{"prlimit", fmt.Sprintf("--as=%d", int64(64)<<30)})
	if r.Reserved {
		t.Fatalf("Reserve took under a bounded address space: %+v", r)
	}
}

func TestFreeHugePages(t *testing.T) {
	for _, c := range []struct {
		name, info string
		want       int
	}{
		{"this machine", `Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 
Node 0, zone    DMA32      2      3      0      2      3      2      1      4      4      2    752 
Node 0, zone   Normal  13291  12900  11548   7251   5219   3381   2384   1236    560    253    452 
`, (1 + 3*2) + (2 + 752*2) + (253 + 452*2)},
		{"fragmented", "Node 0, zone   Normal  9000 800 70 6 0 0 0 0 12 0 0\n", 0},
		{"two nodes", "Node 0, zone Normal 0 0 0 0 0 0 0 0 0 3 1\nNode 1, zone Normal 0 0 0 0 0 0 0 0 0 0 4\n", 3 + 2 + 8},
		{"empty", "", 0},
		{"not buddyinfo", "Node 0, zone Normal a b c\n", 0},
	} {
		if got := freeHugePages([]byte(c.info)); got != c.want {
			t.Errorf("%s: freeHugePages = %d, want %d", c.name, got, c.want)
		}
	}
}
