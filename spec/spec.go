// Package spec embeds agentc's default spec: the current agent contract
// (seed 001) and agentc's metaschema, a CUE module in this directory.
package spec

import (
	"embed"
	"io/fs"
)

// FS holds the default spec's CUE files (and its cue.mod/module.cue).
//
//go:embed *.cue cue.mod/module.cue
var FS embed.FS

// SchemaFile is the metaschema's file name. agentc places its own copy of
// the metaschema into every spec's package under this name.
const SchemaFile = "agentc_schema.cue"

// Schema returns the metaschema's source.
func Schema() []byte {
	b, err := FS.ReadFile(SchemaFile)
	if err != nil {
		panic("spec: metaschema missing from the embedded files: " + err.Error()) // build-time invariant
	}
	return b
}

// Starter holds the example spec `agentc init` starts a repository with: a
// small neutral contract that shows each feature once (its cue.mod and CUE
// files, without the metaschema, which init copies from Schema).
//
//go:embed starter
var starter embed.FS

// Starter returns the starter spec's files, relative to its directory.
func Starter() fs.FS {
	sub, err := fs.Sub(starter, "starter")
	if err != nil {
		panic("spec: " + err.Error()) // "starter" is a valid path
	}
	return sub
}
