#!/usr/bin/env bash
# The servers people deploy, probed: the official Go SDK (StreamableHTTPHandler
# behind auth.RequireBearerToken, with its protected resource metadata
# handler), the official TypeScript SDK (StreamableHTTPServerTransport,
# stateful, no auth: its default) and mark3labs/mcp-go (StreamableHTTPServer,
# no auth: it has none; v1.2.1 serves 2026-07-28 too, beside its sessions)
# each run with their defaults on 127.0.0.1, and `rawmcp probe` checks each
# one.
#
# Two servers that speak MCP 2026-07-28 follow (MODERN=0 skips them): the
# official Go SDK's StreamableHTTPHandler with Stateless: true, and the
# TypeScript SDK v2 (@modelcontextprotocol/server) through createMcpHandler,
# mounted bare on node:http with toNodeHandler (its defaults: dual-era, no
# Origin/Host middleware), each with one tool, echo. Their probe runs with
# -json -trace: $WORK/probe-<server>.json and .trace (every exchange).
#
# The servers live in a scratch directory outside the repo (rawmcp itself
# keeps go-cmp as its only dependency). Needs go, node >= 18 and npm.
#
#   bash cmd/rawmcp/testdata/probe-sdks.sh           (from the repo root)
#   JSON=1 HTML=1 bash cmd/rawmcp/testdata/probe-sdks.sh
#
# The probe is built from $REPO. JSON=1 / HTML=1 also write
# $WORK/probe-<server>.json / .html (one more probe run each, with -json
# on stdout redirected, or -html FILE). TS_AUTH=1 adds a fourth server: the TypeScript SDK with its
# requireBearerAuth and mcpAuthMetadataRouter, as its example wires them.
# CURL=1 prints a table of hand-made curl exchanges per server (the SDKs'
# defaults, to compare with the probe); PROBE=0 skips the probe. With
# CURL=1, modern-exchanges.sh also sends each server the request shapes of
# the 2026-07-28 checks (the modern servers) or the L-01 pair (the legacy
# ones, and `rawmcp serve`, started for that alone); every raw exchange in
# $WORK/exchanges-<server>/<check id>.txt.
# CONFORMANCE=1 runs conformance-2026.sh (the official suite's
# server-stateless scenario) against each modern server.
# PROBE_FLAGS (e.g. -strict) is passed to every probe run.
# EXPLORE=N (default 100; 0 skips) also runs `rawmcp probe -explore N -seed
# $EXPLORE_SEED` (default 1) against each server: its report in
# $WORK/explore-<server>.txt, each finding's shortest walk saved in
# $WORK/explore-<server>.walks.json for -explore-replay.
#
# Exit 0 when every probe ran: a probe exit 1 (a MUST failed) is a finding
# about the server; any other probe exit, or a server that does not start,
# is a failure of this script.
set -euo pipefail

REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
WORK=${WORK:-/tmp/rawmcp-sdks}
JSON=${JSON:-0}
HTML=${HTML:-0}
CURL=${CURL:-0}
PROBE=${PROBE:-1}
TS_AUTH=${TS_AUTH:-0}
PROBE_FLAGS=${PROBE_FLAGS:-}
EXPLORE=${EXPLORE:-100}
EXPLORE_SEED=${EXPLORE_SEED:-1}
PROBE_TIMEOUT=${PROBE_TIMEOUT:-600}
GO_SDK=github.com/modelcontextprotocol/go-sdk@v1.8.0
MCP_GO=github.com/mark3labs/mcp-go@v1.2.1
TS_SDK=@modelcontextprotocol/sdk@1.32.2
MODERN=${MODERN:-1}
CONFORMANCE=${CONFORMANCE:-0}
TS2_SDK=(@modelcontextprotocol/server@2.4.0 @modelcontextprotocol/node@2.1.2 zod@4.6.7)
HERE="$REPO/cmd/rawmcp/testdata"

mkdir -p "$WORK/gosdk" "$WORK/mcpgo" "$WORK/ts" "$WORK/bin" "$WORK/gosdk-stateless" "$WORK/ts2"

# --- 1. the three server programs -------------------------------------------
cat >"$WORK/gosdk/main.go" <<'EOF'
// Command gosdk: the official Go SDK's StreamableHTTPHandler, default
// options, behind auth.RequireBearerToken, with its protected resource
// metadata handler.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
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
	port := flag.Int("port", 0, "port on 127.0.0.1 (0: any free port)")
	flag.Parse()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	prmPath := "/.well-known/oauth-protected-resource/mcp"

	server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-probe-target", Version: "1.0.0"}, nil)
	server.AddResource(&mcp.Resource{URI: "info://probe/readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "a resource for resources/list"},
			}}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "returns its text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)

	requireToken := auth.RequireBearerToken(verifier(), &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: base + prmPath,
		Scopes:              []string{scope},
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(handler))
	mux.Handle(prmPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: base + "/mcp",
		// .invalid never resolves: nothing ever reaches an authorization server.
		AuthorizationServers: []string{"https://as.invalid"},
		ScopesSupported:      []string{scope},
	}))
	fmt.Printf("listening %s/mcp\n", base)
	// http.Serve with no timeouts, as the SDK's examples (http.ListenAndServe) deploy it.
	log.Fatal(http.Serve(ln, mux))
}

// verifier accepts the tokens the script hands over in the environment:
// two principals, an expired one and one without the required scope.
// Any other token (wrong_audience, wrong_issuer included) is unknown.
func verifier() auth.TokenVerifier {
	type grant struct {
		user   string
		scopes []string
		ttl    time.Duration
	}
	grants := map[string]grant{}
	add := func(env string, g grant) {
		if t := os.Getenv(env); t != "" {
			grants[t] = g
		}
	}
	add("PROBE_TOKEN", grant{"alice", []string{scope}, time.Hour})
	add("PROBE_TOKEN2", grant{"bob", []string{scope}, time.Hour})
	add("PROBE_TOKEN_EXPIRED", grant{"alice", []string{scope}, -time.Hour})
	add("PROBE_TOKEN_LOW_SCOPE", grant{"alice", []string{"profile"}, time.Hour})
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		g, ok := grants[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: g.user, Scopes: g.scopes, Expiration: time.Now().Add(g.ttl)}, nil
	}
}
EOF

cat >"$WORK/mcpgo/main.go" <<'EOF'
// Command mcpgo: mark3labs/mcp-go's StreamableHTTPServer with its defaults
// (it has no bearer-token middleware of its own).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	port := flag.Int("port", 0, "port on 127.0.0.1 (0: any free port)")
	flag.Parse()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		log.Fatal(err)
	}

	s := server.NewMCPServer("mcp-go-probe-target", "1.0.0")
	s.AddResource(mcp.NewResource("info://probe/readme", "readme", mcp.WithMIMEType("text/plain")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "text/plain", Text: "a resource for resources/list",
			}}, nil
		})
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("returns its text"), mcp.WithString("text", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})

	// The mux Start(addr) builds (endpoint path /mcp, no timeouts), on a
	// listener of our own so that port 0 works.
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
	fmt.Printf("listening http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}
EOF

cat >"$WORK/ts/server.mjs" <<'EOF'
// The official TypeScript SDK: StreamableHTTPServerTransport, stateful
// (sessionIdGenerator), routed as the SDK's own simpleStreamableHttp example
// routes it: createMcpExpressApp(), a map of sessions, 404 for an unknown
// session id. The SDK leaves that routing to the application.
//
// AUTH=1 adds what the example adds for OAuth: requireBearerAuth and
// mcpAuthMetadataRouter, with a fixed-token verifier. The default is no auth.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const SCOPE = 'mcp:connect';
const port = Number(process.env.PORT ?? 0);
const withAuth = process.env.AUTH === '1';

const getServer = () => {
  const server = new McpServer({ name: 'ts-sdk-probe-target', version: '1.0.0' });
  server.registerResource('readme', 'info://probe/readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'a resource for resources/list' }],
  }));
  server.registerTool('echo', { description: 'returns its text', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
};

const app = createMcpExpressApp();
const sessions = new Map();
// Bind first: the resource URL in the auth metadata needs the port. Routes
// are added before the "listening" line, so no request sees them missing.
const listener = await new Promise((resolve) => {
  const l = app.listen(port, '127.0.0.1', () => resolve(l));
});
const mcpUrl = new URL(`http://127.0.0.1:${listener.address().port}/mcp`);

let auth = (_req, _res, next) => next();
if (withAuth) {
  const grants = new Map();
  const add = (env, g) => { if (process.env[env]) grants.set(process.env[env], g); };
  const hour = 3600;
  add('PROBE_TOKEN', { clientId: 'alice', scopes: [SCOPE], ttl: hour, resource: mcpUrl });
  add('PROBE_TOKEN2', { clientId: 'bob', scopes: [SCOPE], ttl: hour, resource: mcpUrl });
  add('PROBE_TOKEN_EXPIRED', { clientId: 'alice', scopes: [SCOPE], ttl: -hour, resource: mcpUrl });
  add('PROBE_TOKEN_LOW_SCOPE', { clientId: 'alice', scopes: ['profile'], ttl: hour, resource: mcpUrl });
  add('PROBE_TOKEN_WRONG_AUDIENCE', { clientId: 'alice', scopes: [SCOPE], ttl: hour, resource: new URL('https://other.invalid/mcp') });
  const verifier = {
    verifyAccessToken: async (token) => {
      const g = grants.get(token);
      if (!g) throw new InvalidTokenError('unknown token');
      return { token, clientId: g.clientId, scopes: g.scopes, expiresAt: Math.floor(Date.now() / 1000) + g.ttl, resource: g.resource };
    },
  };
  // .invalid never resolves: nothing ever reaches an authorization server.
  app.use(mcpAuthMetadataRouter({
    oauthMetadata: {
      issuer: 'https://as.invalid/',
      authorization_endpoint: 'https://as.invalid/authorize',
      token_endpoint: 'https://as.invalid/token',
      response_types_supported: ['code'],
    },
    resourceServerUrl: mcpUrl,
    scopesSupported: [SCOPE],
  }));
  auth = requireBearerAuth({
    verifier,
    requiredScopes: [SCOPE],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    expectedResource: mcpUrl,
  });
}

app.post('/mcp', auth, async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  try {
    const transport = sessionId ? sessions.get(sessionId) : undefined;
    if (transport) {
      await transport.handleRequest(req, res, req.body);
    } else if (!sessionId && isInitializeRequest(req.body)) {
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, t),
      });
      t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
      await getServer().connect(t);
      await t.handleRequest(req, res, req.body);
    } else if (sessionId) {
      res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    } else {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
    }
  } catch (err) {
    console.error('error handling MCP request:', err);
    if (!res.headersSent) {
      res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  }
});

// GET (standalone SSE stream) and DELETE (end the session) go to the session's transport.
const bySession = async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  if (!sessionId) {
    res.status(400).send('Missing session ID');
    return;
  }
  const transport = sessions.get(sessionId);
  if (!transport) {
    res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    return;
  }
  await transport.handleRequest(req, res);
};
app.get('/mcp', auth, bySession);
app.delete('/mcp', auth, bySession);
console.log(`listening ${mcpUrl.href}`);
EOF

cat >"$WORK/gosdk-stateless/main.go" <<'EOF'
// Command gosdk-stateless: the official Go SDK's StreamableHTTPHandler with
// Stateless: true (its 2026-07-28 serving; legacy requests get a
// synthesized initialize), otherwise default options and no middleware.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text"`
}

func main() {
	port := flag.Int("port", 0, "port on 127.0.0.1 (0: any free port)")
	flag.Parse()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-stateless-probe-target", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "returns its text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	fmt.Printf("listening http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}
EOF

cat >"$WORK/ts2/server.mjs" <<'EOF'
// The TypeScript SDK v2: createMcpHandler with its defaults (2026-07-28,
// and a stateless fallback for 2025 traffic), mounted bare on node:http
// through toNodeHandler. No Origin/Host middleware: the entry is
// validation-free by design and leaves that to the deployment.
import { createServer } from 'node:http';
import { z } from 'zod';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

const port = Number(process.env.PORT ?? 0);
const factory = () => {
  const server = new McpServer({ name: 'ts-sdk-v2-probe-target', version: '1.0.0' });
  server.registerTool('echo', { description: 'returns its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
};
const handler = toNodeHandler(createMcpHandler(factory));
const http = createServer((req, res) => {
  if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  handler(req, res);
});
http.listen(port, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${http.address().port}/mcp`);
});
EOF

# --- 2. dependencies, pinned ------------------------------------------------
(
	cd "$WORK/gosdk"
	[ -f go.mod ] || go mod init probesdks/gosdk >/dev/null 2>&1
	go get "$GO_SDK" >/dev/null 2>&1
	go mod tidy >/dev/null 2>&1
	go build -o "$WORK/bin/gosdk" .
)
(
	cd "$WORK/mcpgo"
	[ -f go.mod ] || go mod init probesdks/mcpgo >/dev/null 2>&1
	go get "$MCP_GO" >/dev/null 2>&1
	go mod tidy >/dev/null 2>&1
	go build -o "$WORK/bin/mcpgo" .
)
(
	cd "$WORK/ts"
	[ -f package.json ] || echo '{"name":"probesdks-ts","private":true,"type":"module"}' >package.json
	npm install --no-audit --no-fund --silent "$TS_SDK"
)
if [ "$MODERN" = 1 ]; then
	(
		cd "$WORK/gosdk-stateless"
		[ -f go.mod ] || go mod init probesdks/gosdkstateless >/dev/null 2>&1
		go get "$GO_SDK" >/dev/null 2>&1
		go mod tidy >/dev/null 2>&1
		go build -o "$WORK/bin/gosdk-stateless" .
	)
	(
		cd "$WORK/ts2"
		[ -f package.json ] || echo '{"name":"probesdks-ts2","private":true,"type":"module"}' >package.json
		# The v2 server needs Node >= 20.
		npm install --no-audit --no-fund --silent --save-exact "${TS2_SDK[@]}"
	)
fi
if [ "$PROBE" = 1 ] || [ "$EXPLORE" != 0 ] || [ "$CURL" = 1 ]; then
	(cd "$REPO" && go build -o "$WORK/bin/rawmcp" ./cmd/rawmcp)
fi

# --- 3. tokens: two principals and the named kinds of CHECKS.md -------------
token() { head -c 24 /dev/urandom | base64 | tr '+/' '-_' | tr -d '='; }
TOKEN=$(token)
TOKEN2=$(token)
T_EXPIRED=$(token)
T_LOW_SCOPE=$(token)
T_WRONG_AUDIENCE=$(token)
T_WRONG_ISSUER=$(token)
TOKENS="$WORK/tokens.json"
printf '{"wrong_audience":"%s","wrong_issuer":"%s","expired":"%s","low_scope":"%s"}\n' \
	"$T_WRONG_AUDIENCE" "$T_WRONG_ISSUER" "$T_EXPIRED" "$T_LOW_SCOPE" >"$TOKENS"
# The servers know the tokens they accept; wrong_issuer (and, for the Go SDK
# verifier, wrong_audience) is a token they have never seen.
TOKEN_ENV=(PROBE_TOKEN="$TOKEN" PROBE_TOKEN2="$TOKEN2" PROBE_TOKEN_EXPIRED="$T_EXPIRED"
	PROBE_TOKEN_LOW_SCOPE="$T_LOW_SCOPE" PROBE_TOKEN_WRONG_AUDIENCE="$T_WRONG_AUDIENCE")

# --- 4. start a server, stop it (one runs at a time) ------------------------
SERVER_PID=
stop() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		SERVER_PID=
	fi
}
trap stop EXIT

# start NAME CMD...: run CMD in the background and wait (at most 30 s) for
# its "listening URL" line and for the URL to answer HTTP; sets URL and
# SERVER_PID.
start() {
	local name=$1
	shift
	# Made before the server starts: the loop below reads it at once.
	: >"$WORK/$name.out"
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.log" &
	SERVER_PID=$!
	URL=
	for _ in $(seq 300); do
		URL=$(sed -n 's/^listening //p' "$WORK/$name.out" | head -n 1)
		if [ -n "$URL" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$URL")" != 000 ]; then
			return 0
		fi
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "$name: did not start; its stderr:" >&2
	cat "$WORK/$name.log" >&2
	return 1
}

# --- 5. curl exchanges (CURL=1) ----------------------------------------------
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
INITIALIZED='{"jsonrpc":"2.0","method":"notifications/initialized"}'
PING='{"jsonrpc":"2.0","id":2,"method":"ping"}'
ACCEPT='Accept: application/json, text/event-stream'
CT='Content-Type: application/json'
PV='MCP-Protocol-Version: 2025-11-25'

# row LABEL CURL-ARGS...: one exchange (bounded to 2 s: an SSE answer stays
# open), printed as: label | status | headers that tell | body prefix.
row() {
	local label=$1 code heads body
	shift
	# An SSE answer that sends nothing before the time limit leaves no body file.
	rm -f "$WORK/c.body" "$WORK/c.head"
	touch "$WORK/c.body" "$WORK/c.head"
	code=$(curl -sS -o "$WORK/c.body" -D "$WORK/c.head" -w '%{http_code}' --max-time 2 "$@" 2>/dev/null || true)
	heads=$(tr -d '\r' <"$WORK/c.head" | grep -iE '^(content-type|www-authenticate|allow|mcp-session-id):' |
		sed -E 's/^([Mm]cp-[Ss]ession-[Ii]d: ).*/\1<sid>/' | paste -sd ';' - || true)
	body=$(tr -d '\r\n' <"$WORK/c.body" | head -c 110)
	printf '%-28s | %s | %s | %s\n' "$label" "$code" "$heads" "$body" | redact
}
redact() {
	local s
	s=$(cat)
	for t in "$TOKEN" "$TOKEN2"; do s=${s//$t/<token>}; done
	[ -n "${SID:-}" ] && s=${s//$SID/<sid>}
	printf '%s\n' "$s"
}

# session: initialize + initialized with the headers in H; sets SID.
session() {
	SID=$({ curl -sS -D - -o /dev/null --max-time 2 "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -d "$INIT" || true; } |
		tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
	curl -sS -o /dev/null --max-time 2 "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $SID" -d "$INITIALIZED" || true
}

# curl_table NAME [TOKEN TOKEN2]: the exchanges against $URL, with the bearer
# tokens when the server has auth.
curl_table() {
	local name=$1 tok=${2:-} tok2=${3:-} other
	H=()
	[ -n "$tok" ] && H=(-H "Authorization: Bearer $tok")
	echo "### curl: $name ($URL)"
	row "initialize" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -d "$INIT"
	session
	echo "session id: $SID (${#SID} chars)"
	# An id of the same shape that the server never issued: a word prefix
	# ("mcp-session-") and the dashes kept, every other character replaced by
	# a random one of its class (hex digits stay hex).
	other=$(python3 -c 'import random,re,string,sys
sid = sys.argv[1]
prefix = re.match(r"([A-Za-z]+-)*", sid).group(0)
rest = sid[len(prefix):]
hexy = re.fullmatch(r"[0-9a-f-]*|[0-9A-F-]*", rest)
cls = ["0123456789abcdef", "0123456789ABCDEF"] if hexy else [string.digits, string.ascii_lowercase, string.ascii_uppercase]
print(prefix + "".join(next((random.choice(k) for k in cls if c in k), c) for c in rest))' "$SID")
	row "initialized (notification)" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $SID" -d "$INITIALIZED"
	row "ping" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $SID" -d "$PING"
	row "GET (SSE)" "$URL" "${H[@]}" -H 'Accept: text/event-stream' -H "$PV" -H "Mcp-Session-Id: $SID"
	row "own Origin" "$URL" "${H[@]}" -H "Origin: ${URL%/mcp}" -H "$ACCEPT" -H "$CT" -d "$INIT"
	row "foreign Origin" "$URL" "${H[@]}" -H 'Origin: http://evil.example' -H "$ACCEPT" -H "$CT" -d "$INIT"
	row "Origin: null" "$URL" "${H[@]}" -H 'Origin: null' -H "$ACCEPT" -H "$CT" -d "$INIT"
	row "foreign Host" "$URL" "${H[@]}" -H 'Host: evil.example' -H "$ACCEPT" -H "$CT" -d "$INIT"
	row "text/plain, foreign Origin" "$URL" "${H[@]}" -H 'Origin: http://evil.example' -H "$ACCEPT" -H 'Content-Type: text/plain' -d "$INIT"
	row "Accept: application/json" "$URL" "${H[@]}" -H 'Accept: application/json' -H "$CT" -d "$INIT"
	row "no token" "$URL" -H "$ACCEPT" -H "$CT" -d "$INIT"
	row "Basic credentials" "$URL" -H 'Authorization: Basic dXNlcjpwYXNz' -H "$ACCEPT" -H "$CT" -d "$INIT"
	row "Bearer not-a-token" "$URL" -H 'Authorization: Bearer not-a-token' -H "$ACCEPT" -H "$CT" -d "$INIT"
	if [ -n "$tok" ]; then
		row "session, no token" "$URL" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $SID" -d "$PING"
		row "Bearer <token> extra" "$URL" -H "Authorization: Bearer $tok extra" -H "$ACCEPT" -H "$CT" -d "$INIT"
		row "?access_token=, no header" "$URL?access_token=$tok" -H "$ACCEPT" -H "$CT" -d "$INIT"
		row "expired token" "$URL" -H "Authorization: Bearer $T_EXPIRED" -H "$ACCEPT" -H "$CT" -d "$INIT"
		row "low_scope token" "$URL" -H "Authorization: Bearer $T_LOW_SCOPE" -H "$ACCEPT" -H "$CT" -d "$INIT"
		row "wrong_audience token" "$URL" -H "Authorization: Bearer $T_WRONG_AUDIENCE" -H "$ACCEPT" -H "$CT" -d "$INIT"
		row "2nd principal, 1st's session" "$URL" -H "Authorization: Bearer $tok2" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $SID" -d "$PING"
		row "PRM (no token)" "${URL%/mcp}/.well-known/oauth-protected-resource/mcp"
	fi
	row "missing session id" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H "$PV" -d "$PING"
	row "unknown session id" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $other" -d "$PING"
	row "batch [ping,ping]" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $SID" -d "[$PING,$PING]"
	row "version 1999-01-01" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H 'MCP-Protocol-Version: 1999-01-01' -H "Mcp-Session-Id: $SID" -d "$PING"
	row "version 9999-01-01" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H 'MCP-Protocol-Version: 9999-01-01' -H "Mcp-Session-Id: $SID" -d "$PING"
	row "version 9999-01-01 on GET" "$URL" "${H[@]}" -H 'Accept: text/event-stream' -H 'MCP-Protocol-Version: 9999-01-01' -H "Mcp-Session-Id: $SID"
	row "version garbage" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H 'MCP-Protocol-Version: garbage' -H "Mcp-Session-Id: $SID" -d "$PING"
	row "GET, Accept: app/json" "$URL" "${H[@]}" -H 'Accept: application/json' -H "$PV" -H "Mcp-Session-Id: $SID"
	row "DELETE unknown, foreign Orig" -X DELETE "$URL" "${H[@]}" -H 'Origin: http://evil.example' -H "$PV" -H "Mcp-Session-Id: $other"
	row "second initialize" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $SID" -d "$INIT"
	row "PUT" -X PUT "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -d "$PING"
	row "DELETE" -X DELETE "$URL" "${H[@]}" -H "$PV" -H "Mcp-Session-Id: $SID"
	row "POST on the deleted session" "$URL" "${H[@]}" -H "$ACCEPT" -H "$CT" -H "$PV" -H "Mcp-Session-Id: $SID" -d "$PING"
	echo
	SID=
}

# --- 6. probe each server ----------------------------------------------------
status=0
# probe NAME ARGS...: run `rawmcp probe` against $URL, keep the report in
# $WORK/probe-NAME.txt and print its summary (the lines that count verdicts).
probe() {
	local name=$1 rc=0
	shift
	# shellcheck disable=SC2086 # PROBE_FLAGS is a list of flags
	timeout "$PROBE_TIMEOUT" "$WORK/bin/rawmcp" probe -url "$URL" "$@" $PROBE_FLAGS \
		>"$WORK/probe-$name.txt" 2>"$WORK/probe-$name.err" || rc=$?
	echo "### probe: $name ($URL), exit $rc, report in $WORK/probe-$name.txt"
	if grep -qiE '[0-9]+ (pass|fail|warn|skip)' "$WORK/probe-$name.txt"; then
		grep -iE '[0-9]+ (pass|fail|warn|skip)' "$WORK/probe-$name.txt"
	else
		tail -n 5 "$WORK/probe-$name.txt"
	fi
	case $rc in
	0 | 1) ;;
	*)
		echo "$name: the probe did not run to the end (exit $rc):" >&2
		head -n 20 "$WORK/probe-$name.err" >&2
		status=1
		return
		;;
	esac
	if [ "$JSON" = 1 ]; then
		# shellcheck disable=SC2086
		timeout "$PROBE_TIMEOUT" "$WORK/bin/rawmcp" probe -url "$URL" "$@" $PROBE_FLAGS -json >"$WORK/probe-$name.json" || [ $? -le 1 ] || status=1
	fi
	if [ "$HTML" = 1 ]; then
		# shellcheck disable=SC2086
		timeout "$PROBE_TIMEOUT" "$WORK/bin/rawmcp" probe -url "$URL" "$@" $PROBE_FLAGS -html "$WORK/probe-$name.html" >/dev/null || [ $? -le 1 ] || status=1
	fi
}

# explore NAME ARGS...: run `rawmcp probe -explore` against $URL and print
# its summary and the findings' lines (the shortest walks are in the report).
explore() {
	local name=$1 rc=0
	shift
	rm -f "$WORK/explore-$name.walks.json"
	timeout "$PROBE_TIMEOUT" "$WORK/bin/rawmcp" probe -url "$URL" "$@" -explore "$EXPLORE" -seed "$EXPLORE_SEED" \
		-explore-save "$WORK/explore-$name.walks.json" >"$WORK/explore-$name.txt" 2>"$WORK/explore-$name.err" || rc=$?
	echo "### explore: $name ($URL), exit $rc, report in $WORK/explore-$name.txt"
	grep -E '^(walks:|no finding|EX-[0-9]+ )' "$WORK/explore-$name.txt" || tail -n 5 "$WORK/explore-$name.txt"
	case $rc in
	0 | 1) ;;
	*)
		echo "$name: -explore did not run to the end (exit $rc):" >&2
		head -n 20 "$WORK/explore-$name.err" >&2
		status=1
		;;
	esac
}

# probe_trace NAME ARGS...: `rawmcp probe -json -trace` against $URL: the
# JSON report in $WORK/probe-NAME.json, every exchange in .trace.
probe_trace() {
	local name=$1 rc=0
	shift
	# shellcheck disable=SC2086
	timeout "$PROBE_TIMEOUT" "$WORK/bin/rawmcp" probe -url "$URL" "$@" $PROBE_FLAGS -json -trace \
		>"$WORK/probe-$name.json" 2>"$WORK/probe-$name.trace" || rc=$?
	echo "### probe -json -trace: $name ($URL), exit $rc, $WORK/probe-$name.json and .trace"
	case $rc in
	0 | 1) ;;
	*)
		echo "$name: the probe did not run to the end (exit $rc)" >&2
		status=1
		;;
	esac
}

# MODE says which revisions a server speaks: legacy (2025-11-25, the
# default), modern (2026-07-28, sessionless; the legacy session table is
# skipped) or both (mcp-go v1.2.1 serves 2026-07-28 beside its sessions).

# exchanges NAME [TOKEN]: modern-exchanges.sh against $URL, every shape for
# a server that speaks 2026-07-28, the L-01 pair for a legacy one.
exchanges() {
	local name=$1 tok=${2:-} legacy=1
	[ "${MODE:-legacy}" = legacy ] || legacy=0
	rm -rf "$WORK/exchanges-$name"
	echo "### raw exchanges: $name ($URL), in $WORK/exchanges-$name/"
	LEGACY=$legacy bash "$HERE/modern-exchanges.sh" "$URL" "$WORK/exchanges-$name" $tok | redact
}

# check NAME [TOKEN TOKEN2] -- ARGS...: the curl table and the probe for $URL.
check() {
	local name=$1
	shift
	local toks=()
	while [ "$1" != -- ]; do
		toks+=("$1")
		shift
	done
	shift
	if [ "$CURL" = 1 ]; then
		# The legacy session table makes no sense against a modern-only path.
		[ "${MODE:-legacy}" = modern ] || curl_table "$name" "${toks[@]}"
		exchanges "$name" "${toks[0]:-}"
	fi
	if [ "$CONFORMANCE" = 1 ] && [ "${MODE:-legacy}" != legacy ]; then
		# One install of the suite for every server; each server's results kept.
		WORK="$WORK/conformance" bash "$HERE/conformance-2026.sh" "$URL" || status=1
		rm -rf "$WORK/conformance-$name"
		cp -r "$WORK/conformance/results" "$WORK/conformance-$name"
	fi
	if [ "$PROBE" = 1 ]; then
		probe "$name" "$@"
		[ "${MODE:-legacy}" = legacy ] || probe_trace "$name" "$@"
	fi
	if [ "$EXPLORE" != 0 ]; then explore "$name" "$@"; fi
	# One server at a time: the next probe does not share the cores with it.
	stop
}

start go-sdk env "${TOKEN_ENV[@]}" "$WORK/bin/gosdk"
check go-sdk "$TOKEN" "$TOKEN2" -- -token "$TOKEN" -token2 "$TOKEN2" -tokens "$TOKENS"

start ts-sdk node "$WORK/ts/server.mjs"
check ts-sdk --

if [ "$TS_AUTH" = 1 ]; then
	start ts-sdk-auth env AUTH=1 "${TOKEN_ENV[@]}" node "$WORK/ts/server.mjs"
	check ts-sdk-auth "$TOKEN" "$TOKEN2" -- -token "$TOKEN" -token2 "$TOKEN2" -tokens "$TOKENS"
fi

start mcp-go "$WORK/bin/mcpgo"
MODE=both check mcp-go --

if [ "$MODERN" = 1 ]; then
	start go-sdk-stateless "$WORK/bin/gosdk-stateless"
	MODE=modern check go-sdk-stateless --

	start ts-sdk-v2 env PORT=0 node "$WORK/ts2/server.mjs"
	MODE=modern check ts-sdk-v2 --
fi

# rawmcp serve, a 2025-11-25 server: only the L-01 pair, to set beside the SDKs'.
if [ "$CURL" = 1 ]; then
	"$WORK/bin/rawmcp" serve >"$WORK/rawmcp-serve.out" 2>"$WORK/rawmcp-serve.log" &
	SERVER_PID=$!
	for _ in $(seq 100); do
		[ -s "$WORK/rawmcp-serve.out" ] && break
		sleep 0.1
	done
	URL=$(head -n 1 "$WORK/rawmcp-serve.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])')
	SERVE_TOKEN=$(head -n 1 "$WORK/rawmcp-serve.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
	TOKEN=$SERVE_TOKEN exchanges rawmcp-serve "$SERVE_TOKEN"
	stop
fi

if [ "$status" -eq 0 ]; then echo "every probe ran"; else echo "a probe did not run: FAIL"; fi
exit "$status"
