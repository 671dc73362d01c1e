package probe_test

import (
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"rawmcp/wire/client/clienttest"
	"rawmcp/wire/client/probe"
)

// The deployment group's flaws: each a hop in front of rawmcp (fronts in
// fronts_test.go) that breaks one thing a real proxy, TLS terminator or
// balancer is known to break. DP-01, DP-02 and DP-03 judge what only a
// public name or TLS shows, so their fronts say how the run reaches them
// (front) and what the same front earns without the flaw (base).
var dpFlaws = []flawCase{
	{check: "DP-01", name: "a gateway serves MCP in cleartext on a public name, with its own credential", want: probe.Fail,
		says: "http to a.example, which serves Protected Resource Metadata", front: cleartextGateway, base: gatewayVerdicts},
	{check: "DP-02", name: "the TLS front takes TLS 1.0 and 1.1", want: probe.Fail, says: "the server chose TLS 1.1",
		front: tlsFront(&tls.Config{MinVersion: tls.VersionTLS10}, false), base: rawmcpOverTLS},
	{check: "DP-03", name: "the cleartext twin of the https endpoint serves MCP", want: probe.Warn, says: "answered a Bearer challenge in cleartext",
		front: tlsFront(&tls.Config{}, true), base: rawmcpOverTLS},
	{check: "DP-04", name: "Host rewritten to the upstream: the challenge names the internal URL", want: probe.Fail,
		says: "the challenge's resource_metadata names the origin http://127.0.0.1:", flaw: flaw{response: challengeNamesUpstream}},
	{check: "DP-05", name: "X-Forwarded-Host trusted", want: probe.Fail, says: "evil.example in WWW-Authenticate", flaw: flaw{response: trustsForwardedHost}},
	{check: "DP-06", name: "a header dropped: mcp-session-id matched case-sensitively", want: probe.Fail,
		says: "a hop dropped mcp-session-id", flaw: flaw{request: dropsLowerCaseSessionID}},
	{check: "DP-07", name: "an event stream held until the upstream closes it", want: probe.Warn, says: "a hop holds the stream",
		flaw: flaw{deliver: holdsStreams}},
	{check: "DP-08", name: "the priming event's retry stripped", want: probe.Warn, says: "without retry", flaw: flaw{response: stripsRetry}},
	{check: "DP-09", name: "affinity lapses after 8 requests: a replica without the session", want: probe.Warn,
		says: "replicas without affinity", flaw: flaw{request: lapsingAffinity}, also: map[string]probe.Verdict{"RS-04": probe.Fail}}, // its burst outlasts the affinity
	{check: "DP-10", name: "an SSE answer served from a cache", want: probe.Fail, says: "Age (served by a cache)",
		flaw: flaw{response: fromCache}},
	{check: "DP-11", name: "the hop names its version", want: probe.Fail, says: `Server: "Apache/2.4.57 (Debian)"`, flaw: flaw{response: namesVersion}},
	{check: "DP-12", name: "CORS granted to any origin", want: probe.Warn, says: "got Access-Control-Allow-Origin: \"http://evil.example\"",
		flaw: flaw{request: corsForAnyOrigin}},
}

// tlsFront is rawmcp behind a TLS front for mcp.example.test with cfg,
// sending Strict-Transport-Security; with twin, its cleartext twin is a
// plain front on the same server that answers for the public name.
func tlsFront(cfg *tls.Config, twin bool) func(*testing.T, string) (probe.Target, probe.Options) {
	return func(t *testing.T, upstream string) (probe.Target, probe.Options) {
		pki := clienttest.NewCA(t, "rawmcp test CA")
		cert := pki.Leaf(t, publicName, time.Now().Add(24*time.Hour))
		port := startTLSFrontWith(t, upstream, cert, cfg.Clone(), hsts)
		if twin {
			twins.Store("127.0.0.1:"+port, startProxy(t, upstream, flaw{request: func(p *flawProxy, r *proxied) []byte {
				r.set("Host", p.upstream)
				return nil
			}}))
		}
		opts := fullOptions()
		opts.RootCAs = pki.Roots
		return aimed(t, publicName, port), opts
	}
}

// cleartextGateway is a gateway that answers for a.example over plain
// http and authenticates every request with its own token: the probe,
// sending none, is served, and the metadata still says the endpoint is
// protected. It is the only way DP-01 can fail with a run: a run never
// sends a token in cleartext to a host that is not loopback
// (ErrCleartextToken), which is DP-01's rule for a protected endpoint.
func cleartextGateway(t *testing.T, upstream string) (probe.Target, probe.Options) {
	public := servesPublicName()
	named := public.request
	public.request = func(p *flawProxy, r *proxied) []byte {
		// The metadata paths take no token (rawmcp refuses one there).
		if r.get("Authorization") == "" && !strings.HasPrefix(r.path, "/.well-known/") {
			r.set("Authorization", "Bearer "+alice)
		}
		return named(p, r)
	}
	addr := startProxy(t, upstream, public)
	_, port, _ := strings.Cut(addr, ":")
	resolve, _ := probe.ParseResolve("a.example:" + port + ":127.0.0.1")
	target, err := probe.ParseTarget("http://a.example:"+port+"/mcp", resolve)
	if err != nil {
		t.Fatal(err)
	}
	return target, probe.Options{Strict: true, Slow: true, Timeout: 20 * time.Second}
}

// gatewayVerdicts is what a tokenless run earns through the gateway,
// DP-01 aside: the target serves requests without a token, so every
// authorization check skips, and so do those that need -token or
// -token2.
func gatewayVerdicts() map[string]probe.Verdict {
	want := rawmcpVerdicts()
	for _, id := range []string{"AU-01", "AU-02", "AU-03", "AU-04", "AU-05", "AU-06", "AU-07", "AU-08", "AU-09", "AU-10", "AU-11",
		"SE-07", "SE-08", "DP-04", "DP-05"} {
		want[id] = probe.Skip
	}
	return want
}
