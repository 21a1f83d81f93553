// Package corpus reads the conformance corpus (gen/conformance/testdata/
// corpus): tool-argument cases, each with the verdict its author meant,
// that the conformance tests run through zod, the generated Go decoders
// and CUE, and that the gateway tests send through both transports.
package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Case is one input for one tool, with the verdict its author meant.
type Case struct {
	Tool, Name string
	// Expect is "ok", "bad" (validation issues) or "syntax".
	Expect string
	Input  []byte
	// File and Line say where the case is; Where is "file:line".
	File  string
	Line  int
	Where string
}

// ReadDir reads every *.txt file of dir, in name order. Each non-blank
// line that does not start with '#' is "tool<TAB>name<TAB>expect<TAB>input";
// any other line is an error naming its file and line.
func ReadDir(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for i, line := range strings.Split(string(data), "\n") {
			n := i + 1
			line = strings.TrimSuffix(line, "\r") // a CRLF file's lines too
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			parts := strings.SplitN(line, "\t", 4)
			if len(parts) != 4 {
				return nil, fmt.Errorf("%s:%d: want tool<TAB>name<TAB>expect<TAB>input", f, n)
			}
			out = append(out, Case{Tool: parts[0], Name: parts[1], Expect: parts[2], Input: []byte(parts[3]),
				File: f, Line: n, Where: fmt.Sprintf("%s:%d", f, n)})
		}
	}
	return out, nil
}
