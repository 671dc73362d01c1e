package probe_test

import (
	"bytes"

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
	{check: "PV-05", name: "an unsupported proposal is echoed as the version", want: probe.Fail, says: "echoed 2099-01-01",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if !bytes.Contains(r.body, []byte(`"protocolVersion":"2099-01-01"`)) {
				return ans
			}
			return bytes.Replace(ans, []byte(`"protocolVersion":"2025-11-25"`), []byte(`"protocolVersion":"2099-01-01"`), 1)
		}}},
}
