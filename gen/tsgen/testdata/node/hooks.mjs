// Node module hooks for the tests that run generated TypeScript under node
// (here, and in gen/proxygen and gen/specfuzz): node 20 cannot import
// TypeScript, so .ts modules are transpiled on load with the pinned
// typescript (types are erased; tsc --strict checks them separately).
import { readFile } from "node:fs/promises"
import ts from "typescript"

export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) {
    return nextLoad(url, context)
  }
  const source = await readFile(new URL(url), "utf8")
  const out = ts.transpileModule(source, {
    fileName: url,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  })
  return { format: "module", source: out.outputText, shortCircuit: true }
}
