// Code in this file registers the prompt proxy emitter with the CLI.

package cli

import _ "github.com/agentc-dev/agentc/gen/proxygen" // the "proxy" emitter
