package probe_test

import (
	"bytes"

	"rawmcp/wire/client/probe"
)

var mmFlaws = []flawCase{
	{check: "MM-01", name: "a POST accepting only application/json is served", want: probe.Fail, says: "served a POST whose Accept",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Accept") == "application/json" {
				r.set("Accept", "application/json, text/event-stream")
			}
			return nil
		}}},
	{check: "MM-02", name: "a text/plain body is read as JSON", want: probe.Fail, says: "served a body declared text/plain",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Content-Type") == "text/plain" && r.get("Origin") == "" {
				r.set("Content-Type", "application/json")
			}
			return nil
		}}},
	{check: "MM-03", name: "a GET accepting only application/json gets the stream", want: probe.Fail, says: "served a GET whose Accept",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "GET" && r.path == "/mcp" && r.get("Accept") == "application/json" {
				r.set("Accept", "text/event-stream")
			}
			return nil
		}}},
	{check: "MM-04", name: "GET answers 405 without Allow", want: probe.Fail, says: "405 without Allow",
		also: map[string]probe.Verdict{"DP-08": probe.Skip}, // no GET stream to hold
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.method == "GET" && r.get("Last-Event-ID") == "" && isStatus(ans, "200") && field(ans, "Content-Type") == "text/event-stream" {
				return answer("405 Method Not Allowed", "", "")
			}
			return ans
		}}},
	{check: "MM-05", name: "405 to PUT without Allow", want: probe.Fail, says: "405 without Allow",
		also: map[string]probe.Verdict{"MM-04": probe.Skip}, // it comes after MM-05: "see MM-05"
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.method == "PUT" {
				return withoutField(ans, "Allow")
			}
			return ans
		}}},
	{check: "MM-06", name: "a notification is answered 200", want: probe.Fail, says: "answered 200: an accepted notification gets 202",
		also: map[string]probe.Verdict{"JR-06": probe.Skip}, // the same rule for a POSTed response: "see MM-06"
		flaw: flaw{response: func(_ *flawProxy, _ *proxied, ans []byte) []byte {
			return bytes.Replace(ans, []byte("HTTP/1.1 202 Accepted"), []byte("HTTP/1.1 200 OK"), 1)
		}}},
	// PV-04 reports whatever a ping without the version header gets, so
	// only the scan of the run's requests notices the 202.
	{check: "MM-07", name: "a ping without MCP-Protocol-Version is acknowledged 202, not answered", want: probe.Fail, says: "PV-04's ping answered 202",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Mcp-Session-Id") != "" && r.get("MCP-Protocol-Version") == "" && bytes.Contains(r.body, []byte(`"method":"ping"`)) {
				return answer("202 Accepted", "", "")
			}
			return nil
		}}},
}
