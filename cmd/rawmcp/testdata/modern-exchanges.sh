#!/usr/bin/env bash
# Raw curl exchanges against one MCP endpoint, one per request shape of the
# 2026-07-28 checks (V2-01 … V2-31 and L-01, listed in
# wire/client/probe/CHECKS.md), so the probe's modern verdicts can be compared with what the server
# actually answered. Each shape changes exactly one thing against the
# baseline B(method): the 2026 headers and a full `_meta`.
#
#   bash cmd/rawmcp/testdata/modern-exchanges.sh URL OUTDIR [TOKEN]
#   LEGACY=1 bash cmd/rawmcp/testdata/modern-exchanges.sh URL OUTDIR [TOKEN]
#
# Writes OUTDIR/<id>.txt (the curl command as sent, without the
# Authorization header TOKEN adds, then the answer as received, bounded to
# 3 s) and
# prints one line per exchange: id | HTTP status | Content-Type | JSON-RPC
# error code (or "result") | body prefix. LEGACY=1 sends only the L-01 pair
# (B(server/discover), then B(tools/list)). The URL must be on 127.0.0.1.
set -euo pipefail

URL=$1
OUT=$2
TOKEN=${3:-}
LEGACY=${LEGACY:-0}
case $URL in http://127.0.0.1:*) ;; *) echo "modern-exchanges: 127.0.0.1 only: $URL" >&2; exit 2 ;; esac
mkdir -p "$OUT"

V=2026-07-28
CAPS='"io.modelcontextprotocol/clientCapabilities":{}'
INFO='"io.modelcontextprotocol/clientInfo":{"name":"rawmcp","version":"x"}'
meta() { # meta VERSION [KEYS]: the _meta object (KEYS: which of v,i,c to keep)
	local v=$1 keys=${2:-vic} parts=()
	[[ $keys == *v* ]] && parts+=("\"io.modelcontextprotocol/protocolVersion\":\"$v\"")
	[[ $keys == *i* ]] && parts+=("$INFO")
	[[ $keys == *c* ]] && parts+=("$CAPS")
	local IFS=,
	echo "{${parts[*]}}"
}
# body ID METHOD [PARAMS-WITHOUT-META] [META]
body() {
	local p=${3:-} m=${4:-$(meta $V)}
	[ -n "$p" ] && p="$p,"
	echo "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"$2\",\"params\":{$p\"_meta\":$m}}"
}
AUTH=()
[ -n "$TOKEN" ] && AUTH=(-H "Authorization: Bearer $TOKEN")
CT=(-H 'Content-Type: application/json')
ACC=(-H 'Accept: application/json, text/event-stream')
PV=(-H "MCP-Protocol-Version: $V")

# ex ID CURL-ARGS...: one exchange, kept whole in $OUT/ID.txt, summarised.
ex() {
	local id=$1 f="$OUT/$1.txt" status ctype code
	shift
	{
		printf '$ curl -sS -i --max-time 3'
		printf ' %q' "$@"
		printf '\n\n'
	} >"$f"
	curl -sS -i --max-time 3 "${AUTH[@]}" "$@" >>"$f" 2>&1 || true
	status=$(sed -n '/^HTTP\//{s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p;q}' "$f")
	ctype=$(tr -d '\r' <"$f" | sed -n 's/^[Cc]ontent-[Tt]ype: //p' | head -n 1)
	code=$(grep -oE '"code": ?-?[0-9]+' "$f" | head -n 1 | grep -oE -- '-?[0-9]+$' || true)
	[ -z "$code" ] && grep -q '"result"' "$f" && code=result
	printf '%-8s | %-3s | %-24s | %-6s | %s\n' "$id" "${status:-—}" "${ctype:-—}" "${code:-—}" \
		"$(tr -d '\r' <"$f" | sed '1,/^$/d' | sed '1,/^$/d' | tr -d '\n' | head -c 100)"
}
# post ID METHOD-HEADER BODY [MORE CURL ARGS]: a POST with the B headers;
# METHOD-HEADER "-" sends no Mcp-Method.
post() {
	local id=$1 mh=$2 b=$3
	shift 3
	local m=()
	[ "$mh" != - ] && m=(-H "Mcp-Method: $mh")
	ex "$id" "$URL" "${CT[@]}" "${ACC[@]}" "${PV[@]}" "${m[@]}" "$@" -d "$b"
}

if [ "$LEGACY" = 1 ]; then
	post L-01a server/discover "$(body 1 server/discover)"
	post L-01b tools/list "$(body 2 tools/list)"
	exit 0
fi

CALL='"name":"echo","arguments":{"text":"hi"}'
post V2-01 server/discover "$(body 1 server/discover)"
post V2-03 tools/list "$(body 3 tools/list '' "$(meta 2025-11-25)")"
ex V2-04 "$URL" "${CT[@]}" "${ACC[@]}" -H 'Mcp-Method: tools/list' -d "$(body 4 tools/list)"
ex V2-05 "$URL" "${CT[@]}" "${ACC[@]}" -H 'MCP-Protocol-Version: 2099-12-31' -H 'Mcp-Method: server/discover' \
	-d "$(body 5 server/discover '' "$(meta 2099-12-31)")"
ex V2-06 "$URL" "${CT[@]}" "${ACC[@]}" -H 'MCP-Protocol-Version: 1900-01-01' -H 'Mcp-Method: server/discover' \
	-d "$(body 6 server/discover '' "$(meta 1900-01-01)")"
post V2-07 server/discover '{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{}}'
post V2-08 server/discover "$(body 8 server/discover '' "$(meta $V vi)")"
post V2-09 server/discover "$(body 9 server/discover '' "$(meta $V vc)")"
post V2-10 - "$(body 10 tools/list)"
post V2-11 prompts/list "$(body 11 tools/list)"
post V2-12 TOOLS/LIST "$(body 12 tools/list)"
ex V2-13 "$URL" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
	-H "mcp-protocol-version: $V" -H 'mcp-method: tools/list' -d "$(body 13 tools/list)"
post V2-14c tools/call "$(body 140 tools/call "$CALL")" -H 'Mcp-Name: echo'
post V2-14 tools/call "$(body 14 tools/call "$CALL")"
post V2-15 tools/call "$(body 15 tools/call "$CALL")" -H 'Mcp-Name: rawmcp_wrong_name'
post V2-16 tools/call "$(body 16 tools/call "$CALL")" -H "Mcp-Name: =?base64?$(printf echo | base64)?="
post V2-17 tools/call "$(body 17 tools/call "$CALL")" -H 'Mcp-Name:    echo   '
post V2-18 rawmcp/no-such-method "$(body 18 rawmcp/no-such-method)"
post V2-19a ping "$(body 191 ping)"
post V2-19b logging/setLevel "$(body 192 logging/setLevel '"level":"info"')"
post V2-19c resources/subscribe "$(body 193 resources/subscribe '"uri":"x:"')"
post V2-19d resources/unsubscribe "$(body 194 resources/unsubscribe '"uri":"x:"')"
post V2-19e initialize "$(body 195 initialize '"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"rawmcp","version":"x"}')"
ex V2-20 "$URL" -H 'Accept: text/event-stream' "${PV[@]}"
ex V2-21 -X DELETE "$URL" "${PV[@]}" -H 'Mcp-Session-Id: rawmcp-probe'
post V2-22 tools/list "$(body 22 tools/list)" -H 'Mcp-Session-Id: rawmcp-bogus-1'
post V2-23 tools/list "$(body 23 tools/list)" -H 'Last-Event-ID: rawmcp_0'
post V2-24 server/discover "$(body 24 server/discover)" -H 'Origin: http://evil.example'
post V2-24h server/discover "$(body 241 server/discover)" -H 'Origin: http://evil.example.com' -H 'Host: evil.example.com'
post V2-24c server/discover "$(body 242 server/discover)" -H "Origin: ${URL%/mcp}"
post V2-25 notifications/cancelled '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":987654,"reason":"rawmcp probe","_meta":'"$(meta $V)"'}}'
post V2-26 tools/list "[$(body 261 tools/list),$(body 262 tools/list)]"
post V2-27 tools/list "$(body 27 tools/list)"
ex V2-31 "$URL" "${CT[@]}" "${ACC[@]}" \
	-d '{"jsonrpc":"2.0","id":31,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rawmcp","version":"x"}}}'
