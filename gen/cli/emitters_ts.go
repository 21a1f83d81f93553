package cli

// The TypeScript, JSON Schema and Markdown emitters register themselves.
import (
	_ "github.com/agentc-dev/agentc/gen/docgen"
	_ "github.com/agentc-dev/agentc/gen/jsonschemagen"
	_ "github.com/agentc-dev/agentc/gen/tsgen"
)
