// The TypeScript side of TestSpecFuzz: reads one JSON request a line on
// stdin, runs it on the generated modules it names under node (.ts is
// transpiled on load by hooks.mjs) and writes one JSON answer a line:
//
//   {"op":"decode","module":TOOL.ts,"input":BASE64}  → {"syntax":true} | {"ok":true,"data":JSON} | {"issues":JSON}
//       (JSON.parse, then the tool's args schema as the tool's execute() parses them)
//   {"op":"schema","module":TOOL.ts}                  → {"schema":JSON}
//       (zod's toJSONSchema of the args object, as OpenCode renders it: io "input")
//   {"op":"select","module":modes.ts,"values":{…}}    → {"mode":…}
//   {"op":"prompt","module":prompts.ts,"mode":M,"values":{…},"custom":S} → {"prompt":…,"critical":…}
//   {"op":"model","module":models.ts,"id":ID}         → {"opencode","api","fromOpencode","fromApi"} (null: throws)
//   {"op":"agent","module":models.ts,"id":AGENT}      → {"default","models"}
//   {"op":"resolve","module":PLUGIN.ts,"req":{…}}      → {"response":JSON} (resolveLocal)
//
// Decoded data is written as in gen/conformance's zodrunner.js: lone
// surrogates replaced (toWellFormed), -0 as {"$negativeZero":true}.
import { register } from "node:module"
import { pathToFileURL } from "node:url"
import readline from "node:readline"

register("./hooks.mjs", import.meta.url)
const { tool } = await import("@opencode-ai/plugin")
const z = tool.schema

const modules = new Map()
function load(path) {
  let m = modules.get(path)
  if (m === undefined) {
    m = import(pathToFileURL(path).href)
    modules.set(path, m)
  }
  return m
}

function wellFormed(v) {
  if (typeof v === "string") return v.toWellFormed()
  if (Object.is(v, -0)) return { $negativeZero: true }
  if (Array.isArray(v)) return v.map(wellFormed)
  if (v !== null && typeof v === "object") {
    const o = {}
    for (const k of Object.keys(v)) o[k] = wellFormed(v[k])
    return o
  }
  return v
}

// attempt returns f's value, or null when it throws or returns undefined.
function attempt(f) {
  try {
    const v = f()
    return v === undefined ? null : v
  } catch {
    return null
  }
}

async function run(req) {
  const mod = await load(req.module)
  switch (req.op) {
    case "decode": {
      const text = Buffer.from(req.input ?? "", "base64").toString("utf8")
      let value
      try {
        value = JSON.parse(text)
      } catch {
        return { syntax: true }
      }
      const r = z.object(mod.default.args).safeParse(value)
      if (r.success) return { ok: true, data: JSON.stringify(wellFormed(r.data)) }
      return { issues: JSON.stringify(r.error.issues) }
    }
    case "schema":
      return { schema: JSON.stringify(z.toJSONSchema(z.object(mod.default.args), { io: "input" })) }
    case "select":
      return { mode: mod.selectMode(req.values) }
    case "prompt":
      return {
        prompt: mod.buildSystemPrompt(req.mode, req.values, req.custom),
        critical: mod.criticalInstructions(req.mode, req.values),
      }
    case "model":
      return {
        opencode: attempt(() => mod.toOpencodeModelId(req.id)),
        api: attempt(() => mod.toApiModelId(req.id)),
        fromOpencode: attempt(() => mod.fromOpencodeModelId(req.id)),
        fromApi: attempt(() => mod.fromApiModelId(req.id)),
      }
    case "agent":
      return { default: attempt(() => mod.defaultModel(req.id)), models: attempt(() => mod.AGENTS[req.id].models) }
    case "resolve":
      return { response: JSON.stringify(mod.resolveLocal(req.req)) }
  }
  return { error: "unknown op " + req.op }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
for await (const line of rl) {
  if (!line) continue
  let out
  try {
    out = await run(JSON.parse(line))
  } catch (e) {
    out = { error: String((e && e.stack) || e) }
  }
  process.stdout.write(JSON.stringify(out) + "\n")
}
