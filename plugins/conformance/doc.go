// Package conformance is the plugin of the fixture tools the official MCP
// conformance suite calls (`test_simple_text`, `test_image_content`, ...,
// `test_input_required_result_*`): tools whose results exercise the MCP
// front end's content types, progress, logging, protocol errors and input
// requests through the same registry and transport as the filesystem tools.
// The go-sdk's conformance/everything-server is the reference of what each
// one does.
//
// It is built only under the build tag `conformance` (`go build -tags
// conformance ./cmd/dshhost`), and mounted only by the deployment of the
// conformance run (testdata/dsh.yaml: `- name: conformance`); without the
// tag the package holds this comment and the conformance test, which runs
// the suites against such a binary (docs/mcp.md "Conformance").
package conformance
