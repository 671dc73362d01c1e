#!/usr/bin/env bash
# Real MCP clients against `rawmcp serve`: the official Go SDK, the official
# TypeScript SDK and mark3labs/mcp-go each run initialize -> ping ->
# resources/list -> close with the demo token in an Authorization header.
#
# The clients live in a scratch directory outside the repo (rawmcp itself
# keeps go-cmp as its only dependency). Needs go, node >= 18 and npm.
#
#   bash cmd/rawmcp/testdata/realclients.sh          (from the repo root)
#   WORK=/tmp/rawmcp-clients HOLD=5 bash cmd/rawmcp/testdata/realclients.sh
#
# HOLD (seconds, default 0) keeps each session open that long before close,
# so the GET stream's retry/Last-Event-ID polling shows in the log.
set -euo pipefail

REPO=${REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}
WORK=${WORK:-/tmp/rawmcp-clients}
HOLD=${HOLD:-0}
GO_SDK=github.com/modelcontextprotocol/go-sdk@v1.8.0
MCP_GO=github.com/mark3labs/mcp-go@v1.2.1
TS_SDK=@modelcontextprotocol/sdk@1.32.2

mkdir -p "$WORK/goclient" "$WORK/mcpgoclient" "$WORK/tsclient" "$WORK/bin"

# --- 1. the three client programs -------------------------------------------
cat >"$WORK/goclient/main.go" <<'EOF'
// Command goclient: the official Go SDK against rawmcp serve.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds the Authorization header to every request the SDK sends.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func main() {
	url := flag.String("url", "", "MCP endpoint")
	token := flag.String("token", "", "bearer token")
	hold := flag.Duration("hold", 0, "wait this long before close")
	flag.Parse()
	if err := run(*url, *token, *hold); err != nil {
		fmt.Fprintln(os.Stderr, "go-sdk: FAIL:", err)
		os.Exit(1)
	}
}

func run(url, token string, hold time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second+hold)
	defer cancel()
	transport := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-probe", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	init := session.InitializeResult()
	fmt.Printf("go-sdk: protocolVersion=%s server=%s/%s\n", init.ProtocolVersion, init.ServerInfo.Name, init.ServerInfo.Version)
	if err := session.Ping(ctx, nil); err != nil {
		session.Close()
		return fmt.Errorf("ping: %w", err)
	}
	fmt.Println("go-sdk: ping ok")
	res, err := session.ListResources(ctx, nil)
	if err != nil {
		session.Close()
		return fmt.Errorf("resources/list: %w", err)
	}
	for _, r := range res.Resources {
		fmt.Printf("go-sdk: resource %s\n", r.URI)
	}
	time.Sleep(hold)
	if err := session.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	fmt.Println("go-sdk: closed")
	return nil
}
EOF

cat >"$WORK/mcpgoclient/main.go" <<'EOF'
// Command mcpgoclient: mark3labs/mcp-go against rawmcp serve.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	url := flag.String("url", "", "MCP endpoint")
	token := flag.String("token", "", "bearer token")
	listen := flag.Bool("listen", false, "also open the standalone GET stream (WithContinuousListening)")
	hold := flag.Duration("hold", 0, "wait this long before close")
	flag.Parse()
	if err := run(*url, *token, *listen, *hold); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-go: FAIL:", err)
		os.Exit(1)
	}
}

func run(url, token string, listen bool, hold time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second+hold)
	defer cancel()
	opts := []transport.StreamableHTTPCOption{
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}),
	}
	if listen {
		opts = append(opts, transport.WithContinuousListening())
	}
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		return fmt.Errorf("new client: %w", err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-probe", Version: "1.0.0"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	fmt.Printf("mcp-go: protocolVersion=%s server=%s/%s\n", init.ProtocolVersion, init.ServerInfo.Name, init.ServerInfo.Version)
	if err := c.Ping(ctx); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	fmt.Println("mcp-go: ping ok")
	res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		return fmt.Errorf("resources/list: %w", err)
	}
	for _, r := range res.Resources {
		fmt.Printf("mcp-go: resource %s\n", r.URI)
	}
	time.Sleep(hold)
	// mcp-go's DELETE does not carry WithHTTPHeaders: rawmcp answers 401.
	if err := c.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	fmt.Println("mcp-go: closed")
	return nil
}
EOF

cat >"$WORK/tsclient/client.mjs" <<'EOF'
// The official TypeScript SDK against rawmcp serve.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, holdMs = '0'] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: 'ts-sdk-probe', version: '1.0.0' });
client.onerror = (err) => console.error('ts-sdk: transport error:', err.message);

try {
  await client.connect(transport);
  const info = client.getServerVersion();
  console.log(`ts-sdk: protocolVersion=${transport.protocolVersion} server=${info.name}/${info.version}`);
  await client.ping();
  console.log('ts-sdk: ping ok');
  const res = await client.listResources();
  for (const r of res.resources) console.log(`ts-sdk: resource ${r.uri}`);
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  await transport.terminateSession(); // DELETE; client.close() alone sends none
  await client.close();
  console.log('ts-sdk: closed');
} catch (err) {
  console.error('ts-sdk: FAIL:', err.message);
  process.exit(1);
}
EOF

# --- 2. dependencies, pinned ------------------------------------------------
(
	cd "$WORK/goclient"
	[ -f go.mod ] || go mod init realclients/goclient >/dev/null 2>&1
	go get "$GO_SDK" >/dev/null 2>&1
	go mod tidy >/dev/null 2>&1
	go build -o "$WORK/bin/goclient" .
)
(
	cd "$WORK/mcpgoclient"
	[ -f go.mod ] || go mod init realclients/mcpgoclient >/dev/null 2>&1
	go get "$MCP_GO" >/dev/null 2>&1
	go mod tidy >/dev/null 2>&1
	go build -o "$WORK/bin/mcpgoclient" .
)
(
	cd "$WORK/tsclient"
	[ -f package.json ] || echo '{"name":"tsclient","private":true,"type":"module"}' >package.json
	npm install --no-audit --no-fund --silent "$TS_SDK"
)

# --- 3. build rawmcp and start serve ----------------------------------------
(cd "$REPO" && go build -o "$WORK/bin/rawmcp" ./cmd/rawmcp)

rm -f "$WORK/serve.out" "$WORK/serve.log"
"$WORK/bin/rawmcp" serve -addr 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.log" &
SERVE_PID=$!
trap 'kill -INT "$SERVE_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	[ -s "$WORK/serve.out" ] && break
	sleep 0.1
done
FIRST=$(head -n 1 "$WORK/serve.out")
URL=$(node -e 'console.log(JSON.parse(process.argv[1]).url)' "$FIRST")
TOKEN=$(node -e 'console.log(JSON.parse(process.argv[1]).token)' "$FIRST")
echo "serve: $(echo "$FIRST" | sed 's/"token":"[^"]*"/"token":"<redacted>"/')"

# --- 4. the three clients ---------------------------------------------------
status=0
"$WORK/bin/goclient" -url "$URL" -token "$TOKEN" -hold "${HOLD}s" || status=1
(cd "$WORK/tsclient" && node client.mjs "$URL" "$TOKEN" "$((HOLD * 1000))") || status=1
"$WORK/bin/mcpgoclient" -url "$URL" -token "$TOKEN" -hold "${HOLD}s" || status=1

# --- 5. stop serve, show its log ---------------------------------------------
kill -INT "$SERVE_PID"
wait "$SERVE_PID" || status=1
trap - EXIT
echo "--- rawmcp serve log (stderr)"
cat "$WORK/serve.log"
if [ "$status" -eq 0 ]; then echo "all three clients: PASS"; else echo "a client or serve failed: FAIL"; fi
exit "$status"
