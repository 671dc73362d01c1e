#!/usr/bin/env bash
# One curl per status rawmcp emits, against a fresh `rawmcp serve -sessions 2`
# (two live sessions, so the capacity 503 takes two initializes). Each
# example prints the command as written (with $TOKEN and $SID) and the
# response head and body, token and session id redacted.
#
#   bash cmd/rawmcp/testdata/curl-statuses.sh        (from the repo root)
set -euo pipefail

if [ -z "${RAWMCP:-}" ]; then
	RAWMCP=$(mktemp -d)/rawmcp
	(cd "$(dirname "$0")/../../.." && go build -o "$RAWMCP" ./cmd/rawmcp)
fi
OUT=$(mktemp -d)
"$RAWMCP" serve -sessions 2 >"$OUT/serve.out" 2>"$OUT/serve.log" &
SERVE_PID=$!
trap 'kill -INT "$SERVE_PID" 2>/dev/null || true; rm -rf "$OUT"' EXIT
for _ in $(seq 100); do
	[ -s "$OUT/serve.out" ] && break
	sleep 0.1
done
FIRST=$(head -n 1 "$OUT/serve.out")
URL=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["url"])' "$FIRST")
TOKEN=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["token"])' "$FIRST")
BASE=${URL%/mcp}
SID=
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

redact() {
	local s
	s=$(cat)
	s=${s//$TOKEN/<TOKEN>}
	if [ -n "$SID" ]; then s=${s//$SID/<SID>}; fi
	# Date changes every run.
	printf '%s\n' "$s" | sed -E 's/^(Date: ).*/\1<date>/; s/^(Mcp-Session-Id: ).*/\1<SID>/'
}

# ex TITLE CODE: print CODE as written (with $BASE, $TOKEN, $SID, $INIT),
# run it, print the response (curl -i: status line, headers, body) redacted.
ex() {
	echo "### $1"
	echo "\$ $2"
	eval "$2" 2>&1 | tr -d '\r' | redact || true
	echo
}

echo "BASE=http://127.0.0.1:<port>   # from serve's first line, url without /mcp"
echo "TOKEN=<token from serve's first line>"
echo "INIT='$INIT'"
echo

ex "200 JSON: initialize (T-53; the session id comes in Mcp-Session-Id)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
SID=$(curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" \
	-H "Content-Type: application/json" -d "$INIT" | tr -d '\r' | sed -n 's/^Mcp-Session-Id: //p')
echo "(a second initialize like it: SID=<its Mcp-Session-Id>, used from here on)"
echo

ex "202: notifications/initialized (T-11)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -H "Mcp-Session-Id: $SID" -H "MCP-Protocol-Version: 2025-11-25" -d '"'"'{"jsonrpc":"2.0","method":"notifications/initialized"}'"'"
ex "200 JSON: ping (T-59)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -H "Mcp-Session-Id: $SID" -H "MCP-Protocol-Version: 2025-11-25" -d '"'"'{"jsonrpc":"2.0","id":2,"method":"ping"}'"'"
ex "200 SSE: resources/list, answered as one event on the POST (T-14)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -H "Mcp-Session-Id: $SID" -H "MCP-Protocol-Version: 2025-11-25" -d '"'"'{"jsonrpc":"2.0","id":3,"method":"resources/list"}'"'"
ex "200 SSE: the GET stream (T-25: priming event with retry, then queued notifications; then the stream ends)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: text/event-stream" -H "Mcp-Session-Id: $SID" -H "MCP-Protocol-Version: 2025-11-25"'
ex "200 JSON: Protected Resource Metadata, no token needed (A-23)" \
	'curl -sS -i "$BASE/.well-known/oauth-protected-resource/mcp"'
ex "503: capacity, a third live session with -sessions 2 (T-P-capacity: fail closed, nobody evicted)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
ex "400: MCP-Protocol-Version missing after initialize (T-P08)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -H "Mcp-Session-Id: $SID" -d '"'"'{"jsonrpc":"2.0","id":4,"method":"ping"}'"'"
ex "400: the body is not JSON (T-P13, -32700)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -H "Mcp-Session-Id: $SID" -H "MCP-Protocol-Version: 2025-11-25" -d '"'"'{"jsonrpc":'"'"
ex "401: no token (A-08; WWW-Authenticate points at the metadata)" \
	'curl -sS -i "$BASE/mcp" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
ex "401: a token this server does not know (A-10, error=\"invalid_token\")" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer not-a-known-token" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
ex "403: an Origin not on the allowlist (T-P16)" \
	'curl -sS -i "$BASE/mcp" -H "Origin: https://evil.example" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
ex "403: DNS rebinding, a Host that is not this server (T-P15)" \
	'curl -sS -i "$BASE/mcp" -H "Host: evil.example" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
ex "405: a method HTTP defines but /mcp does not serve (H-P12, with Allow)" \
	'curl -sS -i -X PUT "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -d "{}"'
ex "406: Accept without text/event-stream (T-P02)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json" -H "Content-Type: application/json" -d "$INIT"'
ex "411: POST without Content-Length (H-35)" \
	'curl -sS -i -X POST "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json"'
ex "413: a body over 16 KiB (H-P07)" \
	'head -c 16385 /dev/zero | tr "\0" x | curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" --data-binary @-'
ex "414: a request target over 2 KiB (H-P07; a path, since any query is a 400 first, A-P01)" \
	'curl -sS -i "$BASE/mcp/$(head -c 2100 /dev/zero | tr "\0" a)" -H "Authorization: Bearer $TOKEN"'
ex "400: any query string, even without access_token (A-P01: no challenge, nothing echoed)" \
	'curl -sS -i "$BASE/mcp?access_token=$TOKEN" -H "Accept: text/event-stream"'
ex "415: Content-Type text/plain (T-P01)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: text/plain" -d "$INIT"'
ex "417: an expectation other than 100-continue (H-52)" \
	'curl -sS -i "$BASE/mcp" -H "Expect: something-else" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
ex "431: one header field over 2 KiB (H-P07)" \
	'curl -sS -i "$BASE/mcp" -H "X-Big: $(head -c 2100 /dev/zero | tr "\0" a)" -H "Authorization: Bearer $TOKEN"'
ex "501: a method nobody defined (H-P12)" \
	'curl -sS -i -X BREW "$BASE/mcp" -H "Authorization: Bearer $TOKEN"'
ex "501: Transfer-Encoding: chunked (H-P06)" \
	'curl -sS -i "$BASE/mcp" -H "Transfer-Encoding: chunked" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
ex "400: Transfer-Encoding with Content-Length, the smuggling shape (H-P06)" \
	'curl -sS -i "$BASE/mcp" -H "Transfer-Encoding: chunked" -H "Content-Length: 5" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT"'
ex "505: HTTP/1.2 (H-50: only HTTP/1.1 and HTTP/1.0 are spoken; curl cannot send 1.2, bash can)" \
	'(H=${BASE#http://}; exec 3<>"/dev/tcp/${H%:*}/${H#*:}" && printf "GET /mcp HTTP/1.2\r\nHost: %s\r\n\r\n" "$H" >&3 && timeout 5 cat <&3)'
ex "200 JSON: an HTTP/1.0 ping, answered as HTTP/1.1 with Connection: close (H-39)" \
	'curl -sS -i --http1.0 "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d '"'"'{"jsonrpc":"2.0","id":9,"method":"ping"}'"'"
ex "204: DELETE ends the session (T-45)" \
	'curl -sS -i -X DELETE "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: $SID" -H "MCP-Protocol-Version: 2025-11-25"'
ex "404: the same session after DELETE (T-43, -32001)" \
	'curl -sS -i "$BASE/mcp" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -H "Mcp-Session-Id: $SID" -H "MCP-Protocol-Version: 2025-11-25" -d '"'"'{"jsonrpc":"2.0","id":5,"method":"ping"}'"'"
ex "401: DELETE without Authorization, as mcp-go sends it (A-08: right, the session then expires by TTL)" \
	'curl -sS -i -X DELETE "$BASE/mcp" -H "Mcp-Session-Id: $SID" -H "MCP-Protocol-Version: 2025-11-25"'
ex "404: a path that is not served (H-P11)" \
	'curl -sS -i "$BASE/other" -H "Authorization: Bearer $TOKEN"'

kill -INT "$SERVE_PID"
wait "$SERVE_PID"
trap 'rm -rf "$OUT"' EXIT
echo "### rawmcp serve log (stderr)"
redact <"$OUT/serve.log"
