{{header}}
// The runtime shared by the agentc tools in ..: the helpers their argument
// schemas call, argument parsing and the gateway callback helper. It lives
// in a subfolder of the tool folder because OpenCode loads every .ts file
// of the tool folder itself as a tool, and imports @opencode-ai/plugin from
// there: the packages installed beside the tool folder's package.json.

import { tool } from {{plugin_package}}

/**
 * zod, as the plugin package exports it to the tools (tool.schema): the
 * helpers below build their schemas with the very zod instance the tools do.
 */
const z = tool.schema

{{zod_helpers}}
/** The body of a gateway callback's answer (seed 001 §6.5). */
export interface ToolCallbackResponse {
  success: boolean
  result: string
  data?: Record<string, unknown>
}

/**
 * The part of OpenCode's tool context the runtime reads. callID (the model's
 * tool_use id) is passed at run time but not declared by @opencode-ai/plugin.
 */
export interface CallContext {
  messageID?: string
  callID?: string
  abort?: AbortSignal
}

/** The gateway route; {sessionId} and {toolName} are filled in. */
export const CALLBACK_PATH = {{callback_path}}
/** Retries after the first attempt, on network-level failures only. */
export const MAX_RETRIES = {{max_retries}}
/** The backoff before retry n (from 0) is RETRY_BASE_MS × 2^n. */
export const RETRY_BASE_MS = {{retry_base_ms}}
/** The timeout of each attempt. */
export const TIMEOUT_MS = {{timeout_ms}}
/** Failure signatures (error names, codes, message parts) that are retried. */
{{retry_on}}
/**
 * The request header that carries the calling stub's schema fingerprint, so
 * that the gateway can tell a sandbox running tool files generated from
 * another version of the contract.
 */
export const FINGERPRINT_HEADER = {{fingerprint_header}}
/** The environment variables the callback reads. */
{{env}}

interface Issue {
  readonly path: readonly PropertyKey[]
  readonly message: string
}

interface Parser<T> {
  safeParse(input: unknown): { success: boolean; data?: T; error?: { issues: readonly Issue[] } }
}

/**
 * parseArgs parses a tool's raw arguments with its schema (OpenCode does
 * not) and returns them with defaults applied, or throws an Error listing
 * every issue zod found, so that nothing invalid leaves the sandbox.
 */
export function parseArgs<T>(schema: Parser<T>, input: unknown): T {
  const r = schema.safeParse(input)
  if (r.success) {
    return r.data as T
  }
  throw new Error(formatIssues(r.error?.issues ?? []))
}

/**
 * formatIssues states zod's issues as the gateway does, over the callback
 * route and MCP alike: "Invalid arguments: " and each issue as
 * "<path>: <message>", the path joined with "." (an issue at the root is its
 * message alone), joined with ", ". The path is what lets the model fix its
 * call.
 */
export function formatIssues(issues: readonly Issue[]): string {
  const parts = issues.map((i) => (i.path.length > 0 ? i.path.map(String).join(".") + ": " : "") + i.message)
  return "Invalid arguments: " + parts.join(", ")
}

/**
 * toolCallId is the idempotency key of one logical tool execution, computed
 * once and reused on every retry: the assistant message's id (unique per
 * step) joined with the model's tool_use id (unique within the step; a model
 * may repeat it across steps), or with a random UUID when OpenCode passed no
 * callID.
 */
export function toolCallId(ctx: CallContext): string {
  const call = typeof ctx.callID === "string" && ctx.callID !== "" ? ctx.callID : globalThis.crypto.randomUUID()
  return typeof ctx.messageID === "string" && ctx.messageID !== "" ? ctx.messageID + ":" + call : call
}

function env(name: string): string {
  const v = process.env[name]
  if (v === undefined || v === "") {
    throw new Error("agentc: the environment variable " + name + " is not set; the gateway callback needs it")
  }
  return v
}

/** isRetryable reports whether err is a network-level failure worth a retry. */
export function isRetryable(err: unknown): boolean {
  const seen: string[] = []
  const collect = (e: unknown) => {
    if (typeof e !== "object" || e === null) {
      return
    }
    const o = e as { name?: unknown; message?: unknown; code?: unknown }
    for (const v of [o.name, o.message, o.code]) {
      if (typeof v === "string") {
        seen.push(v)
      }
    }
  }
  collect(err)
  collect((err as { cause?: unknown } | null)?.cause)
  return RETRY_ON.some((sig) => seen.some((s) => s === sig || s.includes(sig)))
}

function sleep(ms: number, abort?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer)
      reject(abort?.reason ?? new Error("aborted"))
    }
    const timer = setTimeout(() => {
      abort?.removeEventListener("abort", done)
      resolve()
    }, ms)
    abort?.addEventListener("abort", done, { once: true })
  })
}

/** json is text as JSON, or undefined when it is not JSON. */
function json(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * callGatewayTool runs a gateway-executed tool: POST {gateway}{CALLBACK_PATH}
 * with the sandbox token and {tool_call_id, args}, retrying network-level
 * failures with the same tool_call_id and exponential backoff. A non-2xx
 * answer is not retried: its result is "Gateway error <status>" and the
 * message of the gateway's JSON error, {"error", "code"}, if any. abort
 * (OpenCode's ctx.abort) ends the call and any backoff at once.
 * fingerprint, the calling stub's schema fingerprint, is sent in
 * FINGERPRINT_HEADER. A call that got no whole answer throws an error
 * naming the tool, the attempts and fetch's error with its cause: fetch's
 * own message ("fetch failed", "terminated") is all the model would read
 * otherwise.
 */
export async function callGatewayTool(
  toolName: string,
  toolCallId: string,
  args: unknown,
  abort?: AbortSignal,
  fingerprint?: string,
): Promise<ToolCallbackResponse> {
  const url =
    env(ENV.gatewayURL).replace(/\/+$/, "") +
    CALLBACK_PATH.replace("{sessionId}", encodeURIComponent(env(ENV.sessionID))).replace(
      "{toolName}",
      encodeURIComponent(toolName),
    )
  const token = env(ENV.authToken)
  const body = JSON.stringify({ tool_call_id: toolCallId, args })
  const headers: Record<string, string> = { "Content-Type": "application/json", Authorization: "Bearer " + token }
  if (fingerprint !== undefined && fingerprint !== "") {
    headers[FINGERPRINT_HEADER] = fingerprint
  }
  for (let attempt = 0; ; attempt++) {
    abort?.throwIfAborted()
    let res: Response
    let text: string
    try {
      const timeout = AbortSignal.timeout(TIMEOUT_MS)
      res = await fetch(url, {
        method: "POST",
        headers,
        body,
        signal: abort ? AbortSignal.any([abort, timeout]) : timeout,
      })
      text = await res.text()
    } catch (err) {
      abort?.throwIfAborted()
      if (attempt < MAX_RETRIES && isRetryable(err)) {
        await sleep(RETRY_BASE_MS * Math.pow(2, attempt), abort)
        continue
      }
      const e = err as { message?: unknown; cause?: { message?: unknown } } | null
      const cause = typeof e?.cause?.message === "string" ? " (" + e.cause.message + ")" : ""
      throw new Error(
        "agentc: the gateway callback of " + toolName + " failed after " + String(attempt + 1) + " attempt(s): " +
          String(e?.message ?? err) + cause,
        { cause: err },
      )
    }
    const out = json(text) as Partial<ToolCallbackResponse & { error: unknown }> | null | undefined
    if (!res.ok) {
      // The gateway's JSON error names what is wrong (a limit, an out-of-date
      // tool file, a reused tool_call_id): pass it on to the model.
      const why = typeof out?.error === "string" ? ": " + out.error : ""
      return { success: false, result: "Gateway error " + res.status + why }
    }
    if (typeof out?.success !== "boolean" || typeof out.result !== "string") {
      throw new Error("agentc: the gateway answered " + toolName + " without {success, result}")
    }
    return out as ToolCallbackResponse
  }
}
