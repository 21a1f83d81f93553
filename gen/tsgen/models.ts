/** isModelId reports whether id is a canonical model ID. */
export function isModelId(id: string): id is ModelId {
  return Object.prototype.hasOwnProperty.call(MODELS, id)
}

/** modelInfo returns the model with canonical ID id; it throws on an unknown ID. */
export function modelInfo(id: string): ModelInfo {
  if (!isModelId(id)) {
    throw new Error("unknown model ID " + JSON.stringify(id))
  }
  return MODELS[id]
}

/** toOpencodeModelId maps a canonical ID to OpenCode's (provider/model). */
export function toOpencodeModelId(id: string): string {
  return modelInfo(id).opencode
}

/** toApiModelId maps a canonical ID to the provider API's. */
export function toApiModelId(id: string): string {
  return modelInfo(id).api
}

function findBy(form: "opencode" | "api", id: string): ModelId {
  for (const m of Object.values(MODELS)) {
    if (m[form] === id) {
      return m.canonical
    }
  }
  throw new Error("unknown " + (form === "api" ? "API" : "OpenCode") + " model ID " + JSON.stringify(id))
}

/** fromOpencodeModelId maps an OpenCode model ID back to its canonical ID. */
export function fromOpencodeModelId(id: string): ModelId {
  return findBy("opencode", id)
}

/** fromApiModelId maps a provider API model ID back to its canonical ID. */
export function fromApiModelId(id: string): ModelId {
  return findBy("api", id)
}

/** defaultModel returns an agent type's default model. */
export function defaultModel(agent: AgentType): ModelId {
  return AGENTS[agent].defaultModel
}
