package tsgen

import (
	_ "embed"
	"fmt"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/tslayout"
	"github.com/agentc-dev/agentc/gen/zod"
)

// runtimeTS is the head of the shared module every tool file imports: the
// schema helpers of its arguments and the callback's settings. %[n] verbs
// are filled by runtimeModule. runtimeCode, the rest, is argument parsing
// and the gateway callback helper of seed 001 §2.
const runtimeTS = `%[1]s
// The runtime shared by the agentc tools in ../tool: the helpers their
// argument schemas call, argument parsing and the gateway callback helper.
// It lives outside the tool folder because OpenCode loads every .ts file
// there as a tool.

import { tool } from %[9]s

/**
 * zod, as the plugin package exports it to the tools (tool.schema): the
 * helpers below build their schemas with the very zod instance the tools do.
 */
const z = tool.schema

%[10]s
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
export const CALLBACK_PATH = %[2]s
/** Retries after the first attempt, on network-level failures only. */
export const MAX_RETRIES = %[3]d
/** The backoff before retry n (from 0) is RETRY_BASE_MS × 2^n. */
export const RETRY_BASE_MS = %[4]d
/** The timeout of each attempt. */
export const TIMEOUT_MS = %[5]d
/** Failure signatures (error names, codes, message parts) that are retried. */
%[6]s
/**
 * The request header that carries the calling stub's schema fingerprint, so
 * that the gateway can tell a sandbox running tool files generated from
 * another version of the contract.
 */
export const FINGERPRINT_HEADER = %[8]s
/** The environment variables the callback reads. */
%[7]s

`

//go:embed runtime.ts
var runtimeCode []byte

// runtimeModule renders the shared runtime with the spec's callback settings.
func runtimeModule(s *model.Spec) []byte {
	cb := s.Callback
	env := []string{
		"gatewayURL: " + tslayout.String(cb.EnvGatewayURL),
		"sessionID: " + tslayout.String(cb.EnvSessionID),
		"authToken: " + tslayout.String(cb.EnvAuthToken),
	}
	out := fmt.Appendf(nil, runtimeTS, header(s), tslayout.String(cb.Path), cb.MaxRetries, cb.BackoffBaseMS, cb.TimeoutMS,
		tslayout.Call("", "export const RETRY_ON: readonly string[] = [", tslayout.Strings(cb.RetryOn), "]"),
		tslayout.Call("", "export const ENV = { ", env, " } as const"),
		tslayout.String(agentrt.FingerprintHeader), tslayout.String(s.OpenCode.PluginPackage), zod.Helpers)
	return append(out, runtimeCode...)
}
