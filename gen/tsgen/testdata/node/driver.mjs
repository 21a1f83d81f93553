// The execute() driver: reads a JSON array of calls on stdin, runs each
// generated tool's execute() with a stub OpenCode context, and prints one
// JSON result per call: {"ok":true,"output":…} or {"ok":false,"error":…}.
//
//   call: {"module": "/abs/tool/x.ts", "args": …, "ctx": {"messageID", "callID"?}, "abort": "before"?}
import { register } from "node:module"
import { pathToFileURL } from "node:url"

register("./hooks.mjs", import.meta.url)

let input = ""
for await (const chunk of process.stdin) {
  input += chunk
}
const results = []
for (const call of JSON.parse(input)) {
  const mod = await import(pathToFileURL(call.module).href)
  const controller = new AbortController()
  if (call.abort === "before") {
    controller.abort()
  }
  const ctx = {
    sessionID: "ses_test",
    agent: "build",
    directory: process.cwd(),
    worktree: process.cwd(),
    abort: controller.signal,
    messages: [],
    extra: {},
    metadata() {},
    async ask() {},
    ...call.ctx,
  }
  try {
    const output = await mod.default.execute(call.args, ctx)
    results.push({ ok: true, output })
  } catch (err) {
    results.push({ ok: false, error: err instanceof Error ? err.message : String(err) })
  }
}
process.stdout.write(JSON.stringify(results) + "\n")
