package tsgen

import (
	_ "embed"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/gogen/agentrt"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/tslayout"
	"github.com/agentc-dev/agentc/gen/zod"
)

// runtimeTS is the shared module every tool file imports: the schema
// helpers of its arguments, the callback's settings, argument parsing and
// the gateway callback helper of seed 001 §2. Its {{placeholders}} stand
// for what the spec decides; runtimeModule fills them.
//
//go:embed runtime.ts
var runtimeTS string

// runtimeModule renders the shared runtime with the spec's callback settings.
func runtimeModule(s *model.Spec) []byte {
	cb := s.Callback
	env := []string{
		"gatewayURL: " + tslayout.String(cb.EnvGatewayURL),
		"sessionID: " + tslayout.String(cb.EnvSessionID),
		"authToken: " + tslayout.String(cb.EnvAuthToken),
	}
	return []byte(strings.NewReplacer(
		"{{header}}", header(s),
		"{{plugin_package}}", tslayout.String(s.OpenCode.PluginPackage),
		"{{zod_helpers}}", zod.Helpers,
		"{{callback_path}}", tslayout.String(cb.Path),
		"{{max_retries}}", strconv.Itoa(cb.MaxRetries),
		"{{retry_base_ms}}", strconv.Itoa(cb.BackoffBaseMS),
		"{{timeout_ms}}", strconv.Itoa(cb.TimeoutMS),
		"{{retry_on}}", tslayout.Call("", "export const RETRY_ON: readonly string[] = [", tslayout.Strings(cb.RetryOn), "]"),
		"{{fingerprint_header}}", tslayout.String(agentrt.FingerprintHeader),
		"{{env}}", tslayout.Call("", "export const ENV = { ", env, " } as const"),
	).Replace(runtimeTS))
}
