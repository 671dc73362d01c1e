// A loopback proxy for conformance.sh: the MCP conformance suite sends no
// Authorization header and has no option for one, so this proxy adds the
// bearer token and passes everything else through.
//
//   RAWMCP_TOKEN=… node conformance-proxy.mjs http://127.0.0.1:RPORT EXCHANGES.jsonl
//
// It listens on 127.0.0.1 only, on a free port, and prints one JSON line
// {"url": "http://127.0.0.1:PPORT/mcp"} when ready. Each exchange is
// appended to EXCHANGES.jsonl as one JSON line (method, the Host, Origin
// and MCP-Protocol-Version it received, the Host and Origin it forwarded,
// the status), so conformance.sh can say why a scenario failed. The token
// is never logged.
//
// Host and Origin: the suite believes the proxy is the server, so it sends
// the proxy's authority as its own Host and Origin. The proxy stands in for
// rawmcp's port the way a port forward would: it rewrites exactly its own
// authority (127.0.0.1:PPORT, localhost:PPORT, and the http:// origins of
// both) to rawmcp's (127.0.0.1:RPORT, localhost:RPORT, ...), byte for byte,
// and forwards every other value unchanged. A foreign Host or Origin such
// as evil.example.com therefore reaches rawmcp as sent, and rawmcp's own
// allowlists, not the proxy, decide.
import { appendFileSync } from 'node:fs';
import http from 'node:http';

const [upstreamArg, exchangesFile] = process.argv.slice(2);
const token = process.env.RAWMCP_TOKEN;
if (!upstreamArg || !exchangesFile || !token) {
  console.error('usage: RAWMCP_TOKEN=… node conformance-proxy.mjs http://127.0.0.1:PORT EXCHANGES.jsonl');
  process.exit(2);
}
const upstream = new URL(upstreamArg);
if (upstream.protocol !== 'http:' || upstream.hostname !== '127.0.0.1' || !upstream.port) {
  console.error('conformance-proxy: the upstream must be http://127.0.0.1:PORT');
  process.exit(2);
}

// Hop-by-hop fields (RFC 9110 §7.6.1) belong to one connection, not to
// the message: each side frames its own connection.
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

// Filled in once the proxy knows its own port. A Map, not an object: a
// header value such as "constructor" must not find anything.
const rewrites = { host: new Map(), origin: new Map() };

function forwardedHeaders(raw) {
  const connectionTokens = new Set();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() === 'connection') {
      for (const t of raw[i + 1].split(',')) connectionTokens.add(t.trim().toLowerCase());
    }
  }
  const out = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    const lower = name.toLowerCase();
    if (hopByHop.has(lower) || connectionTokens.has(lower)) continue;
    const table = rewrites[lower];
    const value = table?.get(raw[i + 1]) ?? raw[i + 1];
    out.push(name, value);
  }
  return out;
}

function field(headers, name) {
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i].toLowerCase() === name) return headers[i + 1];
  }
  return undefined;
}

function record(req, sent, status) {
  appendFileSync(exchangesFile, JSON.stringify({
    method: req.method,
    host: req.headers.host,
    origin: req.headers.origin,
    version: req.headers['mcp-protocol-version'],
    forwardedHost: field(sent, 'host'),
    forwardedOrigin: field(sent, 'origin'),
    status,
  }) + '\n');
}

const server = http.createServer((req, res) => {
  const sent = forwardedHeaders(req.rawHeaders);
  sent.push('Authorization', `Bearer ${token}`);
  // An array of headers is sent as given: Node adds no Host of its own.
  const up = http.request({
    host: upstream.hostname,
    port: upstream.port,
    method: req.method,
    path: req.url,
    headers: sent,
    agent: false,
  });
  up.on('response', (upRes) => {
    record(req, sent, upRes.statusCode);
    const back = [];
    for (let i = 0; i < upRes.rawHeaders.length; i += 2) {
      if (!hopByHop.has(upRes.rawHeaders[i].toLowerCase())) back.push(upRes.rawHeaders[i], upRes.rawHeaders[i + 1]);
    }
    res.writeHead(upRes.statusCode, upRes.statusMessage, back);
    res.flushHeaders(); // an SSE stream's header must not wait for its first event
    upRes.pipe(res);
  });
  up.on('error', (err) => {
    record(req, sent, 502);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(502, { 'Content-Type': 'text/plain' });
    res.end(`conformance-proxy: ${err.message}\n`);
  });
  // The suite cancels SSE streams it has read enough of: close rawmcp's too.
  res.on('close', () => {
    if (!res.writableFinished) up.destroy();
  });
  req.pipe(up);
});

server.listen(0, '127.0.0.1', () => {
  const own = server.address().port;
  const theirs = upstream.port;
  for (const name of ['127.0.0.1', 'localhost']) {
    rewrites.host.set(`${name}:${own}`, `${name}:${theirs}`);
    rewrites.origin.set(`http://${name}:${own}`, `http://${name}:${theirs}`);
  }
  console.log(JSON.stringify({ url: `http://127.0.0.1:${own}/mcp` }));
});
