#!/usr/bin/env bash
# rawmcp probe against the MCP servers people run: the most downloaded MCP
# server packages of the npm registry that serve the Streamable HTTP
# transport, each installed pinned into a scratch folder, started as its own
# README says on 127.0.0.1 (dummy keys where one is asked for), and probed.
# It exists so that the probe's verdicts are held to real servers that
# nobody here wrote: every verdict it reports on them should be one the raw
# exchange (kept by -trace) shows.
#
# The packages, by downloads in a month (the registry's download counts, as
# of 2026-12): a count of installs is what users run, where the search's
# popularity score mixes in other signals. Of the MCP packages with the most
# downloads, those kept serve Streamable HTTP themselves or put a stdio
# server on it, and start without a remote service:
#   @playwright/mcp          6.3 M   browser automation; --port serves /mcp
#   @upstash/context7-mcp    1.4 M   library docs; --transport http
#   mcp-proxy                1.2 M   stdio server on /mcp; here in front of
#                                    @modelcontextprotocol/server-filesystem
#                                    (1.1 M, the most installed stdio-only one)
#   @modelcontextprotocol/server-everything  0.24 M  the SDK's reference
#                                    server, streamableHttp mode
#   @notionhq/notion-mcp-server  0.24 M  --transport http, bearer token
#   mongodb-mcp-server       0.16 M  --transport http, no cluster needed
#   supergateway             0.16 M  stdio server on Streamable HTTP; here in
#                                    front of @modelcontextprotocol/server-memory
#   firecrawl-mcp            0.13 M  HTTP_STREAMABLE_SERVER=true, dummy key
# Passed over: chrome-devtools-mcp and the other reference servers speak
# stdio only; fastmcp, mcp-handler, tmcp, @mastra/mcp are frameworks, not
# servers; mcp-remote is a client; @azure-devops/mcp, supabase, github need
# their service to be useful and speak stdio.
#
# @playwright/mcp serves only the Host name localhost:PORT (it answers 403
# "Access is only allowed at localhost:PORT" to 127.0.0.1:PORT), so it is
# probed at http://localhost:PORT/mcp with -resolve pinning that name to
# 127.0.0.1; the run at 127.0.0.1 is kept too (at-127.0.0.1.txt), as a
# user who copies the address would get it.
#
# Every server listens on 127.0.0.1 only: where a package binds all
# interfaces and has no option for it (context7, supergateway), a preload
# (loopback.cjs) gives its listen() the address 127.0.0.1.
#
# For each package@version, under $WORK/reports/<pkg>@<version>/ (a scoped
# name keeps its slash as a folder):
#   report.txt    the probe's table, from a second run   (rawmcp probe URL)
#   report.json   the first run, as JSON     (rawmcp probe -json -trace URL)
#   trace.txt     every exchange of the first run, as curl -v shows one
#   origin.txt    curl's initialize with a foreign Origin: what HO-02 judges
#   server.log    what the server printed
#   timing.txt    seconds each probe run took
#
# Packages install with --ignore-scripts: no install step downloads a browser
# or a binary (tools/list needs none). Fixed ports below 32768, outside the
# ephemeral range that test suites' listeners draw from. Not run by CI (it
# installs from the registry and takes minutes). Bounded: every process runs
# under `timeout`, every probe has a limit, and every server is stopped when
# its runs end.
#
#   WORK=/tmp/pp bash cmd/rawmcp/testdata/probe-packages.sh   (from the repo)
#   ONLY="everything notion" ...   runs only these (the names in PACKAGES)
#   RAWMCP=path/to/rawmcp ...      probes with that binary instead of building one
set -euo pipefail

REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
WORK=${WORK:-/tmp/rawmcp-packages}
ONLY=${ONLY:-}
LIFETIME=600      # seconds any one server may live
PROBE_TIMEOUT=280 # seconds one probe run may take
BEARER=tok-probe-packages-7Kq2Xw9Lm4Rt
mkdir -p "$WORK/pkgs" "$WORK/reports" "$WORK/share"

# name  package@version  port  (the start command is in start_server)
PACKAGES=(
	"playwright @playwright/mcp@0.0.83 21931"
	"context7 @upstash/context7-mcp@4.1.1 21932"
	"mcp-proxy mcp-proxy@6.7.19 21933"
	"everything @modelcontextprotocol/server-everything@2026.8.31 21934"
	"notion @notionhq/notion-mcp-server@2.5.2 21935"
	"mongodb mongodb-mcp-server@3.0.4 21936"
	"supergateway supergateway@4.0.0 21937"
	"firecrawl firecrawl-mcp@3.26.0 21938"
)
# The stdio servers that mcp-proxy and supergateway put on HTTP.
FILESYSTEM=@modelcontextprotocol/server-filesystem@2026.8.31
MEMORY=@modelcontextprotocol/server-memory@2026.8.31

SERVER=""
cleanup() {
	if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
	wait 2>/dev/null || true
	rm -f "$WORK/rawmcp.$$"
}
trap cleanup EXIT

# --- tools ---------------------------------------------------------------------
command -v node >/dev/null && command -v npm >/dev/null || {
	echo "needs node and npm" >&2
	exit 2
}
command -v curl >/dev/null || {
	echo "needs curl" >&2
	exit 2
}
if [ -n "${RAWMCP:-}" ]; then
	cp "$RAWMCP" "$WORK/rawmcp.$$"
else
	echo "building rawmcp from $REPO"
	(cd "$REPO" && go build -o "$WORK/rawmcp.$$" ./cmd/rawmcp)
fi

# loopback.cjs: a listen() without an address, or on every interface,
# listens on 127.0.0.1 instead.
cat >"$WORK/loopback.cjs" <<'EOF'
const net = require('net');
const listen = net.Server.prototype.listen;
const anyHost = (h) => h === undefined || h === '0.0.0.0' || h === '::' || h === '';
net.Server.prototype.listen = function (...args) {
	const [first] = args;
	if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
		if (typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
		else if (anyHost(args[1])) args[1] = '127.0.0.1';
	} else if (first && typeof first === 'object' && 'port' in first && anyHost(first.host)) {
		args[0] = { ...first, host: '127.0.0.1' };
	}
	return listen.apply(this, args);
};
EOF

# install PKG@VERSION: into its own folder, exactly that version; prints the folder.
install() {
	local dir="$WORK/pkgs/$(echo "$1" | tr '/@' '__')"
	if [ ! -d "$dir/node_modules" ]; then
		mkdir -p "$dir"
		echo '{"private":true}' >"$dir/package.json"
		(cd "$dir" && timeout 600 npm install --no-audit --no-fund --ignore-scripts --save-exact "$1" >install.log 2>&1) ||
			{ echo "install of $1 failed: $dir/install.log" >&2; return 1; }
	fi
	echo "$dir"
}

# start_server NAME DIR PORT: starts the package as its README shows, on
# 127.0.0.1:PORT, and sets SERVER (its pid), URL and TOKEN.
start_server() {
	local name=$1 dir=$2 port=$3 bin=$2/node_modules/.bin
	local log=$REPORT/server.log
	URL=http://127.0.0.1:$port/mcp TOKEN="" RESOLVE=()
	export NODE_OPTIONS="--require $WORK/loopback.cjs"
	case $name in
	playwright) # README "Standalone MCP server": --port; --host, --headless
		URL=http://localhost:$port/mcp RESOLVE=(-resolve "localhost:$port:127.0.0.1")
		timeout $LIFETIME "$bin/playwright-mcp" --headless --host 127.0.0.1 --port "$port" >"$log" 2>&1 & ;;
	context7) # README "CLI arguments": --transport http --port
		timeout $LIFETIME "$bin/context7-mcp" --transport http --port "$port" >"$log" 2>&1 & ;;
	mcp-proxy) # README: mcp-proxy --port 8080 -- COMMAND
		timeout $LIFETIME "$bin/mcp-proxy" --host 127.0.0.1 --port "$port" -- \
			"$(install $FILESYSTEM)/node_modules/.bin/mcp-server-filesystem" "$WORK/share" >"$log" 2>&1 & ;;
	everything) # README "Run the streamable HTTP server"; PORT
		PORT=$port timeout $LIFETIME "$bin/mcp-server-everything" streamableHttp >"$log" 2>&1 & ;;
	notion) # README "Streamable HTTP transport": --transport http --port --auth-token
		URL=http://127.0.0.1:$port/mcp TOKEN=$BEARER
		NOTION_TOKEN=ntn_dummy0000000000000000 timeout $LIFETIME "$bin/notion-mcp-server" \
			--transport http --port "$port" --auth-token "$BEARER" >"$log" 2>&1 & ;;
	mongodb) # README options: --transport http --httpHost --httpPort; no connection string
		MDB_MCP_TELEMETRY=disabled timeout $LIFETIME "$bin/mongodb-mcp-server" \
			--transport http --httpHost 127.0.0.1 --httpPort "$port" >"$log" 2>&1 & ;;
	supergateway) # README "stdio → Streamable HTTP": --outputTransport streamableHttp
		MEMORY_FILE_PATH=$WORK/share/memory.jsonl timeout $LIFETIME "$bin/supergateway" \
			--stdio "$(install $MEMORY)/node_modules/.bin/mcp-server-memory" \
			--outputTransport streamableHttp --port "$port" >"$log" 2>&1 & ;;
	firecrawl) # README "Running with Streamable HTTP Local Mode"
		HTTP_STREAMABLE_SERVER=true HOST=127.0.0.1 PORT=$port FIRECRAWL_API_KEY=fc-dummy0000000000 \
			timeout $LIFETIME "$bin/firecrawl-mcp" >"$log" 2>&1 & ;;
	esac
	SERVER=$!
	unset NODE_OPTIONS
}

# wait_port PORT: until something accepts on 127.0.0.1:PORT, 60 s at most.
wait_port() {
	for _ in $(seq 600); do
		if (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null; then return 0; fi
		kill -0 "$SERVER" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

for entry in "${PACKAGES[@]}"; do
	read -r name pkg port <<<"$entry"
	if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
	REPORT=$WORK/reports/$pkg
	rm -rf "$REPORT"
	mkdir -p "$REPORT"
	dir=$(install "$pkg") || continue
	if (: </dev/tcp/127.0.0.1/"$port") 2>/dev/null; then
		echo "$pkg: port $port is taken, skipped" | tee "$REPORT/timing.txt"
		continue
	fi
	start_server "$name" "$dir" "$port"
	if ! wait_port "$port"; then
		echo "$pkg: never listened on $port (see $REPORT/server.log)" | tee "$REPORT/timing.txt"
		kill "$SERVER" 2>/dev/null || true
		wait "$SERVER" 2>/dev/null || true
		SERVER=""
		continue
	fi
	auth=("${RESOLVE[@]}")
	if [ -n "$TOKEN" ]; then auth+=(-token "$TOKEN"); fi
	if [ ${#RESOLVE[@]} -gt 0 ]; then
		timeout $PROBE_TIMEOUT "$WORK/rawmcp.$$" probe -url "http://127.0.0.1:$port/mcp" >"$REPORT/at-127.0.0.1.txt" 2>&1 || true
	fi
	curl_auth=(--resolve "localhost:$port:127.0.0.1")
	if [ -n "$TOKEN" ]; then curl_auth+=(-H "Authorization: Bearer $TOKEN"); fi

	# HO-02 by hand: initialize with a foreign Origin, the status line and head.
	curl -sS -i -m 20 -X POST "$URL" -H 'Origin: http://evil.example' \
		-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		"${curl_auth[@]}" --data "$INIT" >"$REPORT/origin.txt" 2>&1 || true

	start=$(date +%s.%N)
	timeout $PROBE_TIMEOUT "$WORK/rawmcp.$$" probe -json -trace "${auth[@]}" -url "$URL" \
		>"$REPORT/report.json" 2>"$REPORT/trace.txt" && code=0 || code=$?
	mid=$(date +%s.%N)
	timeout $PROBE_TIMEOUT "$WORK/rawmcp.$$" probe "${auth[@]}" -url "$URL" \
		>"$REPORT/report.txt" 2>&1 && code2=0 || code2=$?
	end=$(date +%s.%N)
	printf 'json+trace run: %.1f s, exit %d\ntext run: %.1f s, exit %d\n' \
		"$(echo "$mid - $start" | bc)" "$code" "$(echo "$end - $mid" | bc)" "$code2" >"$REPORT/timing.txt"
	echo "== $pkg ($URL)"
	cat "$REPORT/timing.txt"
	head -1 "$REPORT/origin.txt"
	grep -E '^(summary|[0-9]+ checks)|MUST' "$REPORT/report.txt" | tail -2 || true

	kill "$SERVER" 2>/dev/null || true
	wait "$SERVER" 2>/dev/null || true
	SERVER=""
done
echo "reports in $WORK/reports"
