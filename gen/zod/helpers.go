package zod

import _ "embed"

// Helpers is the TypeScript source of the schema helpers that rendered
// schemas call (runes, minRunes, maxRunes, minItems, maxItems, named): the
// mechanism behind a spec constraint, written once. It expects zod's
// namespace bound to z (in an OpenCode runtime, tool.schema, the plugin's
// own zod, so that the tools and the helpers share one zod instance) and
// exports each helper. tsgen places it in the OpenCode runtime; a test
// harness places it after `import { z } from "zod"`.
//
//go:embed helpers.ts
var Helpers string
