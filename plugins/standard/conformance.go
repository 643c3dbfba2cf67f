//go:build conformance

package standard

// The conformance build (-tags conformance) links in the MCP conformance
// suite's fixture tools, which only the conformance run's deployment
// mounts (plugins/conformance).
import _ "github.com/dsh-go/dsh/plugins/conformance"
