/** Model parameters for chat.params. */
export interface ModelParams {
  temperature?: number
  topP?: number
  options?: Record<string, unknown>
}

/** The body of POST PROXY_PATH: seed 002's request, with metadata.mode, model and params. */
export interface PromptRequest {
  sessionID: string
  agent: string
  user: { system: string; parts: unknown[] }
  metadata: {
    project: string
    directory: string
    /** The session's mode. */
    mode: string
    /** The message's model, as OpenCode names it (provider/model); "" when unknown. */
    model: string
    /** The prompt parameters' values. */
    params: Record<string, string>
  }
}

/** The service's answer (seed 002), with the variant of each experiment that applied. */
export interface PromptAnswer {
  system: string
  parts: unknown[]
  params: ModelParams
  experiments: Record<string, string>
}

/** An experiment: weighted variants allocated by session ID. */
export interface Experiment {
  name: string
  /** The modes it runs in; empty means every mode. */
  modes: readonly string[]
  /** The OpenCode agents it runs for; empty means every agent. */
  agents: readonly string[]
  /** The sum of the variants' weights. */
  total: number
  variants: readonly Variant[]
}

/** One arm of an experiment. */
export interface Variant {
  name: string
  weight: number
  prompt: ((p: PromptParams) => string) | undefined
  params: ModelParams
}
