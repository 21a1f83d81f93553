package emit_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
)

// The test's emitters: "fast" produces its files at once; "slow" waits
// until some of them are on disk (staged), then fails if failSlow is set.
var (
	failSlow  atomic.Bool
	stagedDir atomic.Value // string: the directory slow watches
)

var errSlow = errors.New("slow emitter fails")

func init() {
	emit.Register("fast", "many small files", func(*model.Spec) ([]emit.File, error) {
		var files []emit.File
		for i := range 50 {
			files = append(files, emit.File{Path: fmt.Sprintf("fast/f%02d.json", i), Data: []byte(fmt.Sprintf("{\"i\": %d}\n", i))})
		}
		return append(files, emit.File{Path: "top.json", Data: []byte("{}\n")}), nil
	})
	emit.Register("slow", "one file, late", func(*model.Spec) ([]emit.File, error) {
		dir, _ := stagedDir.Load().(string)
		for deadline := time.Now().Add(10 * time.Second); dir != "" && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if n, _ := countTemps(dir); n > 0 {
				break
			}
		}
		if failSlow.Load() {
			return nil, errSlow
		}
		return []emit.File{{Path: "slow.json", Data: []byte("[]\n")}}, nil
	})
}

// countTemps counts the writer's temporary files and directories in dir.
func countTemps(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".agentc-tmp-") {
			n++
		}
	}
	return n, err
}

// TestGenerateStagedStagesEachEmitter: each emitter's files are handed
// over as that emitter succeeds, the manifest not; the result is
// Generate's.
func TestGenerateStagedStagesEachEmitter(t *testing.T) {
	stagedDir.Store("")
	var batches atomic.Int64
	var staged atomic.Int64
	files, err := emit.GenerateStaged(&model.Spec{}, func(files []emit.File) {
		batches.Add(1)
		staged.Add(int64(len(files)))
	})
	if err != nil {
		t.Fatal(err)
	}
	want, err := emit.Generate(&model.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) || files[len(files)-1].Path != want[len(want)-1].Path {
		t.Errorf("GenerateStaged returned %d files, Generate %d", len(files), len(want))
	}
	if batches.Load() != 2 || staged.Load() != int64(len(files)-1) {
		t.Errorf("staged %d files in %d batches, want %d in 2", staged.Load(), batches.Load(), len(files)-1)
	}
}
