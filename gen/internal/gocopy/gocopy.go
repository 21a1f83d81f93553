// Package gocopy writes a copy of a Go package of agentc's into the output
// tree: how the Go emitters deliver the runtime packages (agentrt,
// agentmcp) beside the packages they generate, so that a generated package
// imports its runtime from its own module and nothing of agentc's module
// enters the gateway's build.
package gocopy

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
)

// Package returns the files of the Go package in the directory dir of
// fsys (its sources, not its tests), under the output directory dest,
// each headed as agentc's: the header and a line naming the package the
// copy is of (from, its import path). Each import of a path in imports
// is replaced with the path it maps to: the copy imports other copies.
// The sources are gofmt-formatted and import each such path in a group of
// its own, so that the copies stay formatted.
//
// fsys is the caller's embed.FS, whose pattern (dir/*.go) the compiler
// already required to match the package's files: reading them cannot fail.
func Package(fsys fs.FS, dir, from, dest string, imports map[string]string) []emit.File {
	entries, _ := fs.ReadDir(fsys, dir)
	head := fmt.Sprintf("// %s\n// Source: a copy of agentc's package %s.\n\n", emit.Header, from)
	var files []emit.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, _ := fs.ReadFile(fsys, path.Join(dir, name))
		for old, repl := range imports {
			src = bytes.ReplaceAll(src, []byte("\t"+strconv.Quote(old)+"\n"), []byte("\t"+strconv.Quote(repl)+"\n"))
		}
		files = append(files, emit.File{Path: path.Join(dest, name), Data: append([]byte(head), src...)})
	}
	return files
}
