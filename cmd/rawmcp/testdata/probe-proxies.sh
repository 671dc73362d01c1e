#!/usr/bin/env bash
# rawmcp behind real reverse proxies: Debian's nginx, Caddy and HAProxy, each
# with (a) the minimal reverse-proxy config its own documentation shows and
# (b) the config rawmcp recommends, TLS terminated at the proxy with a
# throwaway CA and a certificate for mcp.example.test. Everything listens on
# 127.0.0.1; mcp.example.test is only ever resolved to 127.0.0.1 (curl
# --resolve, probe -resolve).
#
# Each (proxy, config) gets two runs, one verdict line each:
#   tls    rawmcp serve -public-url https://mcp.example.test:PORT/mcp behind the
#          proxy's TLS listener; curl checks what a client sees there: the
#          metadata's resource, the 401's resource_metadata, initialize with
#          the public Origin, the GET stream's headers, a foreign Origin, DELETE.
#          When `rawmcp probe` has -resolve and -cacert, the probe runs there too;
#          DP-03's cleartext twin (port 80) is resolved to 127.0.0.1 as well,
#          so the probe looks the name up nowhere.
#   plain  rawmcp serve -public-url http://127.0.0.1:PORT/mcp behind a plain
#          listener of the same config, and `rawmcp probe` through it: its
#          summary and every check that did not pass.
#
# And the official Go SDK's server (github.com/modelcontextprotocol/go-sdk,
# pinned, built in the scratch folder: rawmcp keeps go-cmp as its only
# dependency) behind nginx's TLS listener, twice: the recommended config, and
# the same with nginx's default `proxy_buffering on` ("buffered"). Its GET
# stream stays open, so the probe's stream checks (DP-07, DP-10) have
# something to judge. One probe verdict line each.
#
# Not run by CI: it installs system packages (apt-get, as root) when a proxy
# or openssl is missing. Bounded: every process runs under `timeout`, every
# exchange has a limit, and all are stopped at the end.
#
#   bash cmd/rawmcp/testdata/probe-proxies.sh        (from the repo root)
#   KEEP=1 ...   keeps the scratch folder (configs, logs, probe reports)
#   ONLY="nginx caddy" ...   runs only these (nginx caddy haproxy go-sdk)
#   JSON=1 ...   keeps every run's `probe -json` report in $REPORTS
#                (default /tmp/rawmcp-proxies-reports), one file per run
#   TRACE=1 ...  probes with -trace too: every exchange, redacted, in the run's
#                probe.err (and beside its report in $REPORTS with JSON=1)
#   WORK=DIR ... the scratch folder (created; default a fresh one in /tmp);
#                with KEEP=1 it stays there after the run
#   SLOW=1 ...   probes with -slow, so DP-08 holds an idle GET stream up to
#                130 s through each proxy (every limit below grows to fit)
set -euo pipefail

REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
TESTDATA="$REPO/cmd/rawmcp/testdata"
if [ -n "${WORK:-}" ]; then mkdir -p "$WORK"; else WORK=$(mktemp -d /tmp/rawmcp-proxies.XXXXXX); fi
chmod 755 "$WORK" # nginx's workers read the certificate and write temp files here
ONLY=${ONLY:-nginx caddy haproxy go-sdk}
JSON=${JSON:-0}
TRACE=${TRACE:-0}
PROBE_TRACE=()
if [ "$TRACE" = 1 ]; then PROBE_TRACE=(-trace); fi
REPORTS=${REPORTS:-/tmp/rawmcp-proxies-reports}
GO_SDK=github.com/modelcontextprotocol/go-sdk@v1.8.0
SLOW=${SLOW:-0}
LIFETIME=240     # seconds any one process may live
PROBE_TIMEOUT=180 # seconds one probe run may take
PROBE_SLOW=()
if [ "$SLOW" = 1 ]; then
	LIFETIME=420 PROBE_TIMEOUT=360 PROBE_SLOW=(-slow)
fi
HOSTNAME_=mcp.example.test
ALICE=tok-alice-3fQ9zWk2Lp0Xb7
BOB=tok-bob-8sT1nVq4Rm6Yc2

PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# stop_all stops what the current run started.
stop_all() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	PIDS=()
}

# --- packages ------------------------------------------------------------------
need=()
command -v nginx >/dev/null || need+=(nginx)
command -v caddy >/dev/null || need+=(caddy)
command -v haproxy >/dev/null || need+=(haproxy)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
	echo "installing ${need[*]}"
	# Installing must not start the packages' own services (nginx's default
	# site listens on every address): policy-rc.d says no while we install.
	made_policy=0
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	timeout 300 apt-get update -qq
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends "${need[@]}" >"$WORK/apt.log"
	if [ "$made_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
fi
echo "nginx $(nginx -v 2>&1 | sed 's|.*/||'), caddy $(caddy version | cut -d' ' -f1), haproxy $(haproxy -v | sed -n '1s/HAProxy version \([^ ]*\).*/\1/p'), ${GO_SDK#*/}, $(go version | cut -d' ' -f3), $(date -u +%F)"
if [ "$JSON" = 1 ]; then mkdir -p "$REPORTS"; fi

# --- rawmcp and the certificates ---------------------------------------------------
(cd "$REPO" && go build -o "$WORK/rawmcp" ./cmd/rawmcp)
RAWMCP="$WORK/rawmcp"
# The help is read whole before it is searched: piped into grep -q, which
# exits at its first match, rawmcp died of SIGPIPE in some runs, pipefail made
# that the pipeline's status, and the https probe runs were left out unsaid.
PROBE_TLS=0
probe_help=$("$RAWMCP" probe -h 2>&1 || true)
if grep -q -- '-resolve' <<<"$probe_help" && grep -q -- '-cacert' <<<"$probe_help"; then
	PROBE_TLS=1
fi

CA="$WORK/ca.pem"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
	-subj "/CN=rawmcp throwaway CA" -keyout "$WORK/ca.key" -out "$CA" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-subj "/CN=$HOSTNAME_" -keyout "$WORK/mcp.key" -out "$WORK/mcp.csr" 2>/dev/null
printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n' "$HOSTNAME_" >"$WORK/mcp.ext"
openssl x509 -req -in "$WORK/mcp.csr" -CA "$CA" -CAkey "$WORK/ca.key" -CAcreateserial -days 1 \
	-extfile "$WORK/mcp.ext" -out "$WORK/mcp.pem" 2>/dev/null
cat "$WORK/mcp.pem" "$WORK/mcp.key" >"$WORK/mcp-full.pem" # HAProxy wants both in one file
chmod 644 "$WORK"/*.pem "$WORK"/*.key

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_port PORT: until something accepts on 127.0.0.1:PORT, at most 10 s.
wait_port() {
	for _ in $(seq 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	return 1
}

# start_serve DIR PUBLIC_URL: rawmcp serve in the background; sets UP, the
# listener's port.
start_serve() {
	local dir=$1 public=$2
	timeout "$LIFETIME" "$RAWMCP" serve -addr 127.0.0.1:0 -public-url "$public" \
		-tokens "$TESTDATA/probe-tokens.json" >"$dir/serve.out" 2>"$dir/serve.log" &
	PIDS+=($!)
	for _ in $(seq 100); do
		[ -s "$dir/serve.out" ] && break
		sleep 0.1
	done
	local local_url
	local_url=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["local_url"])' "$dir/serve.out")
	UP=${local_url#http://127.0.0.1:}
	UP=${UP%%/*}
}

# --- the proxy configs ---------------------------------------------------------
# conf_PROXY CONFIG MODE PORT UP DIR writes the proxy's config for CONFIG
# (minimal or recommended) with a MODE (tls or plain) listener on
# 127.0.0.1:PORT in front of 127.0.0.1:UP; start_PROXY DIR runs it.

conf_nginx() {
	local config=$1 mode=$2 port=$3 up=$4 dir=$5 listen location server
	if [ "$mode" = tls ]; then
		listen="listen 127.0.0.1:$port ssl; server_name $HOSTNAME_; ssl_certificate $WORK/mcp.pem; ssl_certificate_key $WORK/mcp.key;"
	else
		listen="listen 127.0.0.1:$port;"
	fi
	server=""
	if [ "$config" = minimal ]; then
		# nginx's proxy module documentation, first example.
		location="location / { proxy_pass http://127.0.0.1:$up; }"
	else
		# A head or body trickled byte by byte is cut at the edge (the
		# default waits 60 s).
		server="client_header_timeout 5s; client_body_timeout 10s;"
		# HTTP/1.1 upstream (keep-alive; the default is 1.0); the client's Host
		# as sent, port included ($host drops the port, and rawmcp compares
		# Host exactly with -public-url's authority); no response buffering
		# and no gzip, so events pass at once; request buffering stays on, so
		# the upstream always gets Content-Length (rawmcp refuses chunked
		# requests); timeouts above the SSE retry and rawmcp's idle timeout.
		location="location / {
			proxy_pass http://127.0.0.1:$up;
			proxy_http_version 1.1;
			proxy_set_header Connection \"\";
			proxy_set_header Host \$http_host;
			proxy_buffering off;
			gzip off;
			proxy_connect_timeout 5s;
			proxy_read_timeout 75s;
			proxy_send_timeout 75s;
		}"
		# buffered: the same with nginx's default proxy_buffering on.
		if [ "$config" = buffered ]; then location=$(sed '/proxy_buffering off;/d' <<<"$location"); fi
	fi
	cat >"$dir/nginx.conf" <<-EOF
		user root;
		worker_processes 1;
		pid $dir/nginx.pid;
		error_log $dir/error.log;
		events { worker_connections 256; }
		http {
			access_log off;
			client_body_temp_path $dir/body; proxy_temp_path $dir/proxy;
			fastcgi_temp_path $dir/fcgi; uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;
			server { $listen $server $location }
		}
	EOF
}
start_nginx() { timeout "$LIFETIME" nginx -p "$1" -c "$1/nginx.conf" -e "$1/error.log" -g 'daemon off;' 2>>"$1/error.log" & PIDS+=($!); }

conf_caddy() {
	local config=$1 mode=$2 port=$3 up=$4 dir=$5 site proxy
	if [ "$mode" = tls ] && [ "$config" = minimal ]; then
		site="https://$HOSTNAME_:$port {
	bind 127.0.0.1
	tls $WORK/mcp.pem $WORK/mcp.key"
	elif [ "$mode" = tls ]; then
		# Every Host goes to rawmcp, which refuses a foreign one with 403: a
		# site bound to one name answers other Hosts itself with an empty
		# 200, which no client can tell from a served request.
		site="https://:$port {
	bind 127.0.0.1
	tls $WORK/mcp.pem $WORK/mcp.key"
	else
		site="http://:$port {
	bind 127.0.0.1"
	fi
	if [ "$config" = minimal ]; then
		# Caddy's reverse_proxy quick-start: the directive alone.
		proxy="reverse_proxy 127.0.0.1:$up"
	else
		# Flush every write at once (Caddy does for text/event-stream, but a
		# stream's first bytes must not wait on detection); Host passes as
		# sent, which is Caddy's default; a body past 1 MB is 413 at the
		# edge, not read whole and then refused upstream.
		proxy="request_body {
		max_size 1MB
	}
	reverse_proxy 127.0.0.1:$up {
		flush_interval -1
		transport http {
			dial_timeout 5s
			response_header_timeout 30s
		}
	}"
	fi
	# No admin endpoint, no :80 redirect listener, nothing installed in the
	# system trust store: only the one listener on 127.0.0.1. The
	# recommended config also cuts a head trickled byte by byte after 5 s.
	local servers=""
	[ "$config" = minimal ] || servers="servers {
		timeouts {
			read_header 5s
		}
	}"
	cat >"$dir/Caddyfile" <<-EOF
		{
			$servers
			admin off
			auto_https disable_redirects
			skip_install_trust
			storage file_system $dir/caddy-data
		}
		$site
			$proxy
		}
	EOF
}
start_caddy() {
	XDG_DATA_HOME="$1" XDG_CONFIG_HOME="$1" HOME="$1" timeout "$LIFETIME" caddy run --config "$1/Caddyfile" --adapter caddyfile >"$1/caddy.log" 2>&1 &
	PIDS+=($!)
}

conf_haproxy() {
	local config=$1 mode=$2 port=$3 up=$4 dir=$5 bind timeouts
	if [ "$mode" = tls ]; then bind="bind 127.0.0.1:$port ssl crt $WORK/mcp-full.pem"; else bind="bind 127.0.0.1:$port"; fi
	if [ "$config" = minimal ]; then
		# HAProxy's configuration manual, the mode http proxy with its
		# example timeouts.
		timeouts="timeout connect 5s
	timeout client 50s
	timeout server 50s"
	else
		# A head must arrive in 5 s (slow clients are cut at the edge), an
		# idle keep-alive connection closes after 10 s, and the stream
		# timeouts sit above the SSE retry and rawmcp's idle timeout.
		timeouts="timeout connect 5s
	timeout http-request 5s
	timeout http-keep-alive 10s
	timeout client 75s
	timeout server 75s
	option http-server-close"
	fi
	cat >"$dir/haproxy.cfg" <<-EOF
		global
			maxconn 256
		defaults
			mode http
			$timeouts
		frontend mcp
			$bind
			default_backend rawmcp
		backend rawmcp
			server rawmcp 127.0.0.1:$up
	EOF
}
start_haproxy() { timeout "$LIFETIME" haproxy -db -f "$1/haproxy.cfg" >"$1/haproxy.log" 2>&1 & PIDS+=($!); }

# --- the Go SDK's server ------------------------------------------------------
# Its example as deployed behind a proxy: StreamableHTTPHandler behind
# auth.RequireBearerToken, the metadata naming -public (the URL clients use),
# and DisableLocalhostProtection, without which the SDK refuses (403) every
# request whose Host is not loopback arriving on a loopback listener, which
# is every request through a proxy that passes the client's Host.
build_gosdk() {
	mkdir -p "$WORK/gosdk"
	cat >"$WORK/gosdk/main.go" <<-'EOF'
		package main

		import (
			"context"
			"flag"
			"fmt"
			"log"
			"net"
			"net/http"
			"net/url"
			"time"

			"github.com/modelcontextprotocol/go-sdk/auth"
			"github.com/modelcontextprotocol/go-sdk/mcp"
			"github.com/modelcontextprotocol/go-sdk/oauthex"
		)

		const scope = "mcp:connect"

		type echoArgs struct {
			Text string `json:"text"`
		}

		func main() {
			public := flag.String("public", "", "the URL clients use, e.g. https://mcp.example.test:8443/mcp")
			flag.Parse()
			pub, err := url.Parse(*public)
			if err != nil || pub.Host == "" {
				log.Fatal("-public: an absolute URL is needed")
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				log.Fatal(err)
			}
			prm := pub.Scheme + "://" + pub.Host + "/.well-known/oauth-protected-resource" + pub.Path
			server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-behind-proxy", Version: "1.0.0"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "returns its text"},
				func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
				})
			handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
				&mcp.StreamableHTTPOptions{DisableLocalhostProtection: true})
			requireToken := auth.RequireBearerToken(verifier(), &auth.RequireBearerTokenOptions{
				ResourceMetadataURL: prm,
				Scopes:              []string{scope},
			})
			mux := http.NewServeMux()
			mux.Handle(pub.Path, requireToken(handler))
			mux.Handle("/.well-known/oauth-protected-resource"+pub.Path, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
				Resource: *public,
				// .invalid never resolves: nothing ever reaches an authorization server.
				AuthorizationServers: []string{"https://as.invalid"},
				ScopesSupported:      []string{scope},
			}))
			fmt.Printf("listening http://%s%s\n", ln.Addr(), pub.Path)
			log.Fatal(http.Serve(ln, mux))
		}

		// verifier knows the script's tokens: two principals, an expired
		// one and one without the required scope; any other is unknown.
		func verifier() auth.TokenVerifier {
			type grant struct {
				user   string
				scopes []string
				ttl    time.Duration
			}
			grants := map[string]grant{
				"tok-alice-3fQ9zWk2Lp0Xb7": {"alice", []string{scope}, time.Hour},
				"tok-bob-8sT1nVq4Rm6Yc2":   {"bob", []string{scope}, time.Hour},
				"tok-exp-2aS5dFg8Hj1Kl4":   {"alice", []string{scope}, -time.Hour},
				"tok-low-9qW3eRt6Yu0Io7":   {"carol", []string{"profile"}, time.Hour},
			}
			return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
				g, ok := grants[token]
				if !ok {
					return nil, auth.ErrInvalidToken
				}
				return &auth.TokenInfo{UserID: g.user, Scopes: g.scopes, Expiration: time.Now().Add(g.ttl)}, nil
			}
		}
	EOF
	(
		cd "$WORK/gosdk"
		go mod init proxies/gosdk >/dev/null 2>&1
		timeout 300 go get "$GO_SDK" >/dev/null 2>&1
		timeout 300 go mod tidy >/dev/null 2>&1
		timeout 300 go build -o "$WORK/gosdk-server" .
	)
}

# start_gosdk DIR PUBLIC_URL: the Go SDK's server in the background; sets UP.
start_gosdk() {
	local dir=$1 public=$2 local_url=
	timeout "$LIFETIME" "$WORK/gosdk-server" -public "$public" >"$dir/gosdk.out" 2>"$dir/gosdk.log" &
	PIDS+=($!)
	for _ in $(seq 100); do
		local_url=$(sed -n 's/^listening //p' "$dir/gosdk.out")
		[ -n "$local_url" ] && break
		sleep 0.1
	done
	UP=${local_url#http://127.0.0.1:}
	UP=${UP%%/*}
}

# run_gosdk CONFIG: the Go SDK's server behind nginx's TLS listener with
# CONFIG (recommended or buffered), and the probe through it.
run_gosdk() {
	local config=$1 dir="$WORK/go-sdk-nginx-$1-tls" port
	mkdir -p "$dir"
	port=$(free_port)
	local public="https://$HOSTNAME_:$port/mcp"
	start_gosdk "$dir" "$public"
	if [ -z "$UP" ]; then
		echo "VERDICT go-sdk nginx $config tls: the Go SDK's server did not start (see $dir)"
		stop_all
		return
	fi
	conf_nginx "$config" tls "$port" "$UP" "$dir"
	start_nginx "$dir"
	if ! wait_port "$port"; then
		echo "VERDICT go-sdk nginx $config tls: the proxy did not start (see $dir)"
		stop_all
		return
	fi
	probe_line "go-sdk nginx $config tls probe" "$dir" -url "$public" -resolve "$HOSTNAME_:$port:127.0.0.1" -resolve "$HOSTNAME_:80:127.0.0.1" -cacert "$CA"
	stop_all
}

# --- one run ---------------------------------------------------------------------
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe-proxies","version":"1"}}}'

# run_tls PROXY CONFIG
run_tls() {
	local proxy=$1 config=$2 dir="$WORK/$1-$2-tls" port
	mkdir -p "$dir"
	port=$(free_port)
	local public="https://$HOSTNAME_:$port/mcp" origin="https://$HOSTNAME_:$port"
	local metadata="https://$HOSTNAME_:$port/.well-known/oauth-protected-resource/mcp"
	start_serve "$dir" "$public"
	"conf_$proxy" "$config" tls "$port" "$UP" "$dir"
	"start_$proxy" "$dir"
	if ! wait_port "$port"; then
		echo "VERDICT $proxy $config tls: the proxy did not start (see $dir)"
		stop_all
		return
	fi
	local C=(curl -sS -m 10 --resolve "$HOSTNAME_:$port:127.0.0.1" --cacert "$CA")
	local got=() bad=0 code hdr sid
	# The metadata names the public URL (RFC 9728 §3.3).
	code=$("${C[@]}" -o "$dir/metadata.json" -w '%{http_code}' "$metadata" || true)
	if [ "$code" = 200 ] && python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["resource"]!=sys.argv[2])' "$dir/metadata.json" "$public" 2>/dev/null; then
		got+=("metadata 200 names the public URL")
	else
		got+=("metadata $code: resource is not $public"); bad=1
	fi
	# The 401's challenge points there.
	hdr=$("${C[@]}" -D - -o /dev/null -H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT" "$public" | tr -d '\r' || true)
	if grep -q "^[Ww][Ww][Ww]-[Aa]uthenticate: .*resource_metadata=\"$metadata\"" <<<"$hdr"; then
		got+=("401 names the public metadata")
	else
		got+=("401: $(sed -n '1p' <<<"$hdr"), challenge does not name $metadata"); bad=1
	fi
	# initialize from the public origin, as a browser client would.
	hdr=$("${C[@]}" -D - -o /dev/null -H "Authorization: Bearer $ALICE" -H "Origin: $origin" \
		-H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT" "$public" | tr -d '\r' || true)
	sid=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p' <<<"$hdr")
	code=$(sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' <<<"$hdr")
	if [ "$code" = 200 ] && [ -n "$sid" ]; then got+=("initialize 200"); else got+=("initialize ${code:-no answer}"); bad=1; fi
	if [ -n "$sid" ]; then
		local S=(-H "Authorization: Bearer $ALICE" -H "Mcp-Session-Id: $sid" -H "MCP-Protocol-Version: 2025-11-25")
		"${C[@]}" -o /dev/null -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" "${S[@]}" \
			-d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$public" || true
		# The GET stream: its headers, X-Accel-Buffering included, and how soon
		# its first byte came.
		hdr=$("${C[@]}" -D - -o /dev/null -w 'first byte after %{time_starttransfer} s\n' -H "Accept: text/event-stream" "${S[@]}" "$public" | tr -d '\r' || true)
		code=$(sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' <<<"$hdr")
		if [ "$code" = 200 ] && grep -qi '^x-accel-buffering: no' <<<"$hdr"; then
			got+=("GET stream 200 with X-Accel-Buffering, $(grep '^first byte' <<<"$hdr")")
		elif [ "$code" = 200 ]; then
			got+=("GET stream 200, X-Accel-Buffering not forwarded (nginx acts on it), $(grep '^first byte' <<<"$hdr")")
		else
			got+=("GET stream ${code:-no answer}"); bad=1
		fi
		code=$("${C[@]}" -o /dev/null -w '%{http_code}' -X DELETE "${S[@]}" "$public" || true)
		if [ "$code" = 204 ]; then got+=("DELETE 204"); else got+=("DELETE $code"); bad=1; fi
	fi
	code=$("${C[@]}" -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ALICE" -H "Origin: https://evil.example" \
		-H "Accept: application/json, text/event-stream" -H "Content-Type: application/json" -d "$INIT" "$public" || true)
	if [ "$code" = 403 ]; then got+=("foreign Origin 403"); else got+=("foreign Origin $code"); bad=1; fi
	local verdict=OK line
	[ "$bad" = 0 ] || verdict=FAIL
	line=$(printf '%s; ' "${got[@]}")
	echo "VERDICT $proxy $config tls: $verdict: ${line%; }"
	if [ "$PROBE_TLS" = 1 ]; then
		probe_line "$proxy $config tls probe" "$dir" -url "$public" -resolve "$HOSTNAME_:$port:127.0.0.1" -resolve "$HOSTNAME_:80:127.0.0.1" -cacert "$CA"
	fi
	stop_all
}

# probe_line TITLE DIR PROBE-ARGS...: run the probe, print its summary and
# every check it did not pass.
probe_line() {
	local title=$1 dir=$2 rc=0
	shift 2
	timeout "$PROBE_TIMEOUT" "$RAWMCP" probe "$@" "${PROBE_SLOW[@]}" "${PROBE_TRACE[@]}" -token "$ALICE" -token2 "$BOB" -tokens "$TESTDATA/probe-named.json" \
		-json >"$dir/probe.json" 2>"$dir/probe.err" || rc=$?
	if [ "$JSON" = 1 ]; then cp "$dir/probe.json" "$REPORTS/${title// /-}.json"; fi
	if [ "$JSON" = 1 ] && [ "$TRACE" = 1 ]; then cp "$dir/probe.err" "$REPORTS/${title// /-}.trace"; fi
	python3 - "$title" "$rc" "$dir/probe.json" <<-'EOF'
		import json, sys
		title, rc, path = sys.argv[1], sys.argv[2], sys.argv[3]
		try:
		    d = json.load(open(path))
		except Exception as e:
		    print(f"VERDICT {title}: probe exit {rc}, no report ({e})")
		    sys.exit(0)
		c = d.get("counts", {})
		summary = ", ".join(f"{c.get(k, 0)} {k}" for k in ("pass", "fail", "warn", "skip", "error", "info"))
		notpassed = [f"{x['id']} {x['verdict']}" for x in d["checks"] if x["verdict"] not in ("pass", "info")]
		print(f"VERDICT {title}: probe exit {rc}: {summary}; not passed: {', '.join(notpassed) or 'none'}")
	EOF
}

# run_plain PROXY CONFIG
run_plain() {
	local proxy=$1 config=$2 dir="$WORK/$1-$2-plain" port
	mkdir -p "$dir"
	port=$(free_port)
	start_serve "$dir" "http://127.0.0.1:$port/mcp"
	"conf_$proxy" "$config" plain "$port" "$UP" "$dir"
	"start_$proxy" "$dir"
	if ! wait_port "$port"; then
		echo "VERDICT $proxy $config plain: the proxy did not start (see $dir)"
		stop_all
		return
	fi
	probe_line "$proxy $config plain" "$dir" -url "http://127.0.0.1:$port/mcp"
	stop_all
}

for proxy in $ONLY; do
	if [ "$proxy" = go-sdk ]; then
		build_gosdk
		run_gosdk recommended
		run_gosdk buffered
		continue
	fi
	for config in minimal recommended; do
		run_tls "$proxy" "$config"
		run_plain "$proxy" "$config"
	done
done
if [ "$JSON" = 1 ]; then echo "reports in $REPORTS"; fi
