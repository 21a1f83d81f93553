// zodrunner: a long-lived process that runs the generated zod schemas for
// agentc's conformance suite. Usage: node zodrunner.js SCHEMAS.ts
//
// SCHEMAS.ts exports `schemas`, tool name → zod schema, rendered by zodgen
// (TypeScript); it is transpiled with the pinned TypeScript compiler.
//
// Reads one JSON request per line on stdin and writes one JSON answer per
// line on stdout:
//   {"id":N,"tool":T,"input":BASE64}           → {"id":N,"syntax":bool,"ok":bool,"issues":[…],"data":…}
//   {"id":N,"tool":T,"input":BASE64,"bench":K} → {"id":N,"ns":…,"validate_ns":…}
// The input bytes are decoded as UTF-8 (WHATWG: each maximal invalid
// subsequence becomes U+FFFD) and given to JSON.parse; zod then runs
// schema.safeParse on the value. Lone surrogates in the output data are
// replaced by U+FFFD (toWellFormed), as Go strings hold them, and a
// negative zero, which JSON.stringify writes as 0, is written as the
// marker {"$negativeZero":true} (canonical in exec_test.go does the same
// for Go's -0), so that the decoded data compare exactly.
"use strict";
const readline = require("readline");
const fs = require("fs");
const path = require("path");
const ts = require("typescript");
const tsFile = path.resolve(process.argv[2]);
const jsFile = tsFile.replace(/\.ts$/, ".cjs");
const out = ts.transpileModule(fs.readFileSync(tsFile, "utf8"), {
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
});
fs.writeFileSync(jsFile, out.outputText);
const schemas = require(jsFile).schemas;

function wellFormed(v) {
  if (typeof v === "string") return v.toWellFormed();
  if (Object.is(v, -0)) return { $negativeZero: true };
  if (Array.isArray(v)) return v.map(wellFormed);
  if (v !== null && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) o[k] = wellFormed(v[k]);
    return o;
  }
  return v;
}

function run(req) {
  const schema = schemas[req.tool];
  if (!schema) return { id: req.id, error: "unknown tool " + req.tool };
  const text = Buffer.from(req.input, "base64").toString("utf8");
  if (req.bench) {
    const n = req.bench;
    let sink = 0;
    for (let i = 0; i < Math.min(n, 1000); i++) { // warm up
      try { sink += schema.safeParse(JSON.parse(text)).success ? 1 : 0; } catch (e) { sink++; }
    }
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      try { sink += schema.safeParse(JSON.parse(text)).success ? 1 : 0; } catch (e) { sink++; }
    }
    const ns = Number(process.hrtime.bigint() - t0) / n;
    let value;
    try { value = JSON.parse(text); } catch (e) { return { id: req.id, ns, validate_ns: 0, sink }; }
    t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += schema.safeParse(value).success ? 1 : 0;
    const validateNs = Number(process.hrtime.bigint() - t0) / n;
    return { id: req.id, ns, validate_ns: validateNs, sink };
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { id: req.id, syntax: true, ok: false };
  }
  const r = schema.safeParse(value);
  if (r.success) return { id: req.id, syntax: false, ok: true, data: wellFormed(r.data) };
  return { id: req.id, syntax: false, ok: false, issues: r.error.issues };
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line) return;
  let out;
  try {
    out = run(JSON.parse(line));
  } catch (e) {
    out = { error: String(e && e.stack || e) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
