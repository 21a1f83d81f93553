// Code in this file registers the Go emitter with the CLI.

package cli

import _ "github.com/agentc-dev/agentc/gen/gogen" // the "go" emitter
