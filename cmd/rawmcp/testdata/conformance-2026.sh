#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) at
# a version that scores MCP 2026-07-28, against MCP endpoints given as
# arguments: its server-stateless scenario (the core HTTP scenario of the
# 2026-07-28 requirements), one verdict line per assertion.
#
#   bash cmd/rawmcp/testdata/conformance-2026.sh URL [URL...]
#   SCENARIOS="server-stateless http-header-validation dns-rebinding-protection" \
#       bash cmd/rawmcp/testdata/conformance-2026.sh URL
#
# Start the servers first; probe-sdks.sh starts the two modern SDK servers
# and, with CONFORMANCE=1, runs this script against each. The URLs must be
# on 127.0.0.1. No proxy and no token: the modern servers probe-sdks.sh
# starts have no auth (the suite sends no Authorization header).
#
# The suite is installed at a pinned version into $WORK, outside the repo.
# It needs Node >= 22: when the machine's node is older, the npm package
# `node` at a pinned version is installed next to it and runs the suite.
#
# Output per URL and scenario: the suite's checks as "id | status |
# message"; the suite's own files in $WORK/results/<n>-<scenario>/. Some
# assertions of server-stateless need fixture tools the suite's reference
# server has (test_missing_capability, test_streaming_elicitation,
# test_logging_tool): a server without them gets a FAILURE "Not testable",
# which says nothing about its transport. Exit 0 when the suite ran against
# every URL (its verdicts are findings about the servers, not a failure of
# this script); 1 when it could not run.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 URL [URL...]" >&2; exit 2; }
WORK=${WORK:-/tmp/rawmcp-conformance-2026}
# 0.2.0-alpha.10 froze the 2026-07-28 requirements; alpha.12 is the newest
# published and runs the same server-stateless assertions.
SUITE=@modelcontextprotocol/conformance@0.2.0-alpha.12
NODE_PKG=node@22.23.3
read -r -a SCENARIOS <<<"${SCENARIOS:-server-stateless}"

mkdir -p "$WORK/suite"
rm -rf "$WORK/results"
mkdir -p "$WORK/results"

packages=("$SUITE")
NODE=node
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
	packages+=("$NODE_PKG")
	NODE="$WORK/suite/node_modules/.bin/node"
fi
(
	cd "$WORK/suite"
	[ -f package.json ] || echo '{"name":"rawmcp-conformance-2026","private":true}' >package.json
	npm install --no-audit --no-fund --silent --save-exact "${packages[@]}"
)
CLI="$WORK/suite/node_modules/@modelcontextprotocol/conformance/dist/index.js"
echo "suite: $SUITE on node $("$NODE" --version)"

status=0
n=0
for url in "$@"; do
	case $url in http://127.0.0.1:*) ;; *) echo "conformance-2026: 127.0.0.1 only: $url" >&2; exit 2 ;; esac
	n=$((n + 1))
	for s in "${SCENARIOS[@]}"; do
		out="$WORK/results/$n-$s"
		suite_exit=0
		timeout 180 "$NODE" "$CLI" server --url "$url" --scenario "$s" --spec-version 2026-07-28 -o "$out" \
			>"$out.txt" 2>&1 || suite_exit=$?
		checks=$(find "$out" -name checks.json 2>/dev/null | head -n 1)
		echo "### $s against $url (suite exit $suite_exit)"
		if [ -z "$checks" ]; then
			echo "conformance-2026: no checks.json for $s against $url; suite output in $out.txt" >&2
			status=1
			continue
		fi
		"$NODE" -e '
const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const tally = {};
for (const c of checks) {
  tally[c.status] = (tally[c.status] || 0) + 1;
  console.log(`${c.id} | ${c.status} | ${(c.errorMessage || "").replace(/\s+/g, " ").slice(0, 160)}`);
}
console.log("total: " + Object.entries(tally).map(([k, v]) => `${v} ${k}`).join(", "));
' "$checks"
	done
done
exit "$status"
