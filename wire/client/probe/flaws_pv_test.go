package probe_test

import (
	"bytes"
	"slices"

	"rawmcp/wire/client/probe"
)

// acceptsVersion is a server that takes the version header value as if
// it were 2025-11-25.
func acceptsVersion(value string) flaw {
	return flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.get("MCP-Protocol-Version") == value {
			r.set("MCP-Protocol-Version", "2025-11-25")
		}
		return nil
	}}
}

var pvFlaws = []flawCase{
	{check: "PV-01", name: "a past protocol version is accepted", want: probe.Fail, says: "with a result for MCP-Protocol-Version: 1999-01-01", flaw: acceptsVersion("1999-01-01")},
	{check: "PV-01", name: "a refused version ends the session", want: probe.Fail, says: "and ended the session: the same request with the negotiated version then got 404",
		flaw: flaw{request: func(p *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("MCP-Protocol-Version") == "1999-01-01" && r.get("Mcp-Session-Id") != "" {
				end := *r
				end.method, end.body, end.header = "DELETE", nil, slices.Clone(r.header)
				end.set("MCP-Protocol-Version", "2025-11-25")
				p.forward(end.bytes())
			}
			return nil
		}}},
	{check: "PV-02", name: "a future protocol version is accepted", want: probe.Fail, says: "POST answered 200, GET answered 200 and DELETE answered 204, not 400", flaw: acceptsVersion("9999-01-01")},
	{check: "PV-03", name: "a malformed protocol version is accepted", want: probe.Fail, says: "with a result for MCP-Protocol-Version: garbage", flaw: acceptsVersion("garbage")},
	// PV-04 is informational: no answer is wrong, so the flaw shows in
	// what the check reports, not in its verdict.
	{check: "PV-04", name: "a missing version header is served as a default", want: probe.Info, says: "the server assumed a version",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Mcp-Session-Id") != "" && r.get("MCP-Protocol-Version") == "" {
				r.set("MCP-Protocol-Version", "2025-11-25")
			}
			return nil
		}}},
	// The version the server negotiated holds the other checks to its
	// rules: the header checks arrived in 2025-06-18 and the metadata and
	// scope checks later, and 2025-03-26 servers MUST receive batches.
	{check: "PV-06", name: "initialize proposing 2025-11-25 answered 2025-03-26, though 2025-11-25 is served", want: probe.Fail,
		says: "initialize proposing 2025-11-25 was answered 2025-03-26, though the server supports 2025-11-25",
		also: olderRevision(), flaw: negotiates("2025-03-26", true)},
	{check: "PV-05", name: "an unsupported proposal is countered with an older version than the server supports", want: probe.Warn,
		says: "answered protocolVersion 2025-03-26, though it answered 2025-11-25 when that was proposed",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if !bytes.Contains(r.body, []byte(`"protocolVersion":"2099-01-01"`)) {
				return ans
			}
			return bytes.Replace(ans, []byte(`"protocolVersion":"2025-11-25"`), []byte(`"protocolVersion":"2025-03-26"`), 1)
		}}},
	{check: "PV-05", name: "an unsupported proposal is echoed as the version", want: probe.Fail, says: "echoed 2099-01-01",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if !bytes.Contains(r.body, []byte(`"protocolVersion":"2099-01-01"`)) {
				return ans
			}
			return bytes.Replace(ans, []byte(`"protocolVersion":"2025-11-25"`), []byte(`"protocolVersion":"2099-01-01"`), 1)
		}}},
}

// negotiates is a server that answers every initialize with version,
// where rawmcp answers 2025-11-25 (the probe's sessions then carry it,
// which the flaw takes as 2025-11-25 again); with served, a request
// carrying 2025-11-25 is still served, so the server supports what it did
// not negotiate, and without, it is refused as a server of version alone
// refuses it.
func negotiates(version string, served bool) flaw {
	return flaw{
		request: func(_ *flawProxy, r *proxied) []byte {
			switch v := r.get("MCP-Protocol-Version"); {
			case v == version:
				r.set("MCP-Protocol-Version", "2025-11-25")
			case v == "2025-11-25" && !served:
				r.set("MCP-Protocol-Version", "2025-11-25-unsupported")
			}
			return nil
		},
		response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if !bytes.Contains(r.body, []byte(`"method":"initialize"`)) {
				return ans
			}
			return withBody(ans, func(body []byte) []byte {
				return bytes.Replace(body, []byte(`"protocolVersion":"2025-11-25"`), []byte(`"protocolVersion":"`+version+`"`), 1)
			})
		},
	}
}

// olderRevision is what a server that negotiated 2025-03-26 earns beside
// its flaw: the checks of rules that came later skip, JR-11 has no pinned
// schema of 2025-03-26 to hold its messages to, and JR-01 holds it
// to 2025-03-26's, under which rawmcp's refusal of a batch fails.
func olderRevision() map[string]probe.Verdict {
	want := map[string]probe.Verdict{"JR-01": probe.Fail}
	for _, id := range []string{"PV-01", "PV-02", "PV-03", "PV-04", "AU-02", "AU-09", "AU-11", "DP-04", "L-01", "JR-11"} {
		want[id] = probe.Skip
	}
	return want
}
