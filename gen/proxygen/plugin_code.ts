
/** fnv1a32 is the 32-bit FNV-1a hash of s's UTF-8 bytes. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5
  for (const byte of new TextEncoder().encode(s)) {
    h ^= byte
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h >>> 0
}

/**
 * mix is MurmurHash3's 32-bit finalizer, as in the service: each
 * bit of the result depends on every bit of h, so experiments allocate
 * independently.
 */
export function mix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * allocate returns the session's variant of the experiment: the variant
 * whose cumulative weight range, in name order, holds
 * mix(fnv1a32(name + ":" + sessionID)) scaled to the total weight
 * (h * total >> 32, exact in a double: total is at most 1 000 000).
 */
export function allocate(e: Experiment, sessionID: string): Variant | undefined {
  if (e.total <= 0) return undefined
  let point = Math.floor((mix(fnv1a32(e.name + ":" + sessionID)) * e.total) / 2 ** 32)
  for (const v of e.variants) {
    if (point < v.weight) return v
    point -= v.weight
  }
  return undefined
}

/** mergeParams lays over's fields over base's; options merge key by key. */
export function mergeParams(base: ModelParams, over: ModelParams): ModelParams {
  const out: ModelParams = { ...base }
  if (over.temperature !== undefined) out.temperature = over.temperature
  if (over.topP !== undefined) out.topP = over.topP
  if (over.options !== undefined) out.options = { ...base.options, ...over.options }
  return out
}

/**
 * own returns o's own property k, or undefined when it has none: a prompt
 * parameter or agent named like an inherited property (toString) that is
 * not set reads as unset, never as what every object inherits.
 */
function own<T>(o: Record<string, T>, k: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined
}

/**
 * isBlank reports whether s is empty or white space only, as the service's
 * strings.TrimSpace sees white space (trim() also takes U+FEFF, and not U+0085).
 */
function isBlank(s: string): boolean {
  return BLANK.test(s)
}

function isMode(m: string): m is ModeName {
  return Object.prototype.hasOwnProperty.call(MODE_PROMPTS, m)
}

/**
 * resolveLocal answers a request as the service would: the same prompts,
 * layers and experiments, from this plugin's copy of the spec. An unknown
 * mode is resolved as DEFAULT_MODE.
 */
export function resolveLocal(req: PromptRequest): PromptAnswer {
  const mode: ModeName = isMode(req.metadata.mode) ? req.metadata.mode : DEFAULT_MODE
  const p = promptParams(req.metadata.params)
  const custom = req.user.system
  let system: string
  if (isBlank(custom)) {
    system = MODE_PROMPTS[mode](p)
  } else {
    const critical = CRITICAL[mode](p)
    system = critical === "" ? custom : custom.replace(/\n+$/, "") + "\n\n" + critical
  }
  // An agent text that renders empty adds nothing, not a blank line, as in the service.
  const agentText = own(AGENT_PROMPTS[mode], req.agent)?.(p) ?? ""
  if (agentText !== "") system += "\n\n" + agentText
  let params: ModelParams = {}
  for (const l of PARAM_LAYERS) {
    if ((l.model === undefined || l.model === req.metadata.model) && (l.mode === undefined || l.mode === mode)) {
      params = mergeParams(params, l.params)
    }
  }
  const experiments: Record<string, string> = {}
  for (const e of EXPERIMENTS) {
    const inMode = e.modes.length === 0 || e.modes.includes(mode)
    if (!inMode || (e.agents.length > 0 && !e.agents.includes(req.agent))) continue
    const v = allocate(e, req.sessionID)
    if (v === undefined) continue
    experiments[e.name] = v.name
    if (v.prompt !== undefined) system += "\n\n" + v.prompt(p)
    params = mergeParams(params, v.params)
  }
  return { system, parts: [], params: { ...params, options: params.options ?? {} }, experiments }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v)
}

function isNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v)
}

/** parseAnswer checks the service's answer; it returns a reason when the answer is malformed. */
export function parseAnswer(body: unknown): PromptAnswer | string {
  if (!isObject(body)) return "the answer is not a JSON object"
  if (typeof body.system !== "string" || isBlank(body.system)) return "system is not a string or is blank"
  if (body.parts !== undefined && !Array.isArray(body.parts)) return "parts is not an array"
  if (!isObject(body.params)) return "params is not an object"
  const { temperature, topP, options } = body.params
  if (temperature !== undefined && !isNumber(temperature)) return "params.temperature is not a number"
  if (topP !== undefined && !isNumber(topP)) return "params.topP is not a number"
  if (options !== undefined && !isObject(options)) return "params.options is not an object"
  const experiments: Record<string, string> = {}
  if (isObject(body.experiments)) {
    for (const [k, v] of Object.entries(body.experiments)) if (typeof v === "string") experiments[k] = v
  }
  return {
    system: body.system,
    parts: Array.isArray(body.parts) ? body.parts : [],
    params: { temperature, topP, options: options ?? {} },
    experiments,
  }
}

function log(message: string): void {
  console.error("agentc-prompt-proxy: " + message)
}

/** ask posts the request to the service; it never throws and never takes much longer than TIMEOUT_MS. */
export async function ask(baseURL: string, req: PromptRequest): Promise<{ answer: PromptAnswer; served: boolean }> {
  const began = Date.now()
  const signal = AbortSignal.timeout(TIMEOUT_MS)
  try {
    const res = await fetch(baseURL.replace(/\/+$/, "") + PROXY_PATH, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(req),
      signal,
    })
    const text = await res.text()
    // A body cut off by the timeout may read as a short text: say timeout.
    signal.throwIfAborted()
    if (!res.ok) throw new Error("HTTP " + res.status + ": " + text.slice(0, 200))
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new Error("malformed answer: not JSON: " + text.slice(0, 200))
    }
    const answer = parseAnswer(body)
    if (typeof answer === "string") throw new Error("malformed answer: " + answer)
    return { answer, served: true }
  } catch (err) {
    const why = err instanceof Error ? err.name + ": " + err.message : String(err)
    const after = Date.now() - began
    log("session " + req.sessionID + ": using the local defaults of " + CONTRACT + " after " + after + " ms: " + why)
    return { answer: resolveLocal(req), served: false }
  }
}

function envMode(): string {
  const m = process.env[ENV_MODE] ?? ""
  if (m === "") return DEFAULT_MODE
  if (isMode(m)) return m
  log(ENV_MODE + "=" + JSON.stringify(m) + " is not a mode; using " + DEFAULT_MODE)
  return DEFAULT_MODE
}

function envParams(): Record<string, string> {
  const raw = process.env[ENV_PARAMS] ?? ""
  const out: Record<string, string> = {}
  if (raw === "") return out
  try {
    const v: unknown = JSON.parse(raw)
    if (!isObject(v)) throw new Error("not a JSON object")
    for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x
  } catch (err) {
    log(ENV_PARAMS + " is ignored: " + (err instanceof Error ? err.message : String(err)))
  }
  return out
}

/** A session's cached answer, and what it was asked for. */
interface Cached {
  key: string
  agent: string
  answer: PromptAnswer
  served: boolean
}

/** MAX_SESSIONS bounds the cache; the oldest session is dropped first. */
const MAX_SESSIONS = 1000

/** The plugin: chat.message resolves and caches, chat.params applies. */
export const AgentcPromptProxy: Plugin = async (input) => {
  const cache = new Map<string, Cached>()
  const mode = envMode()
  const params = envParams()
  return {
    "chat.message": async (hook, output) => {
      const agent = output.message.agent ?? hook.agent ?? ""
      const m = output.message.model ?? hook.model
      const model = m ? m.providerID + "/" + m.modelID : ""
      const req: PromptRequest = {
        sessionID: hook.sessionID,
        agent,
        user: { system: output.message.system ?? "", parts: output.parts },
        metadata: { project: input.project.id, directory: input.directory, mode, model, params },
      }
      const key = JSON.stringify([agent, model, req.user.system])
      let entry = cache.get(hook.sessionID)
      if (entry === undefined || entry.key !== key || !entry.served) {
        const url = process.env[ENV_URL] ?? ""
        const got = url === "" ? { answer: resolveLocal(req), served: false } : await ask(url, req)
        entry = { key, agent, ...got }
        cache.delete(hook.sessionID)
        cache.set(hook.sessionID, entry)
        if (cache.size > MAX_SESSIONS) cache.delete(cache.keys().next().value as string)
      }
      output.message.system = entry.answer.system
    },
    "chat.params": async (hook, output) => {
      const entry = cache.get(hook.sessionID)
      // Other agents of the session (the title agent) keep OpenCode's parameters.
      if (entry === undefined || entry.agent !== hook.agent) return
      const p = entry.answer.params
      if (p.temperature !== undefined) output.temperature = p.temperature
      if (p.topP !== undefined) output.topP = p.topP
      if (p.options !== undefined) output.options = { ...output.options, ...p.options }
    },
  }
}

export default { id: PLUGIN_ID, server: AgentcPromptProxy } satisfies PluginModule
