package probe_test

import "rawmcp/wire/client/probe"

var hoFlaws = []flawCase{
	{check: "HO-01", name: "a foreign Host is served (DNS rebinding)", want: probe.Fail, says: "a page on a DNS-rebinding name reaches the server",
		flaw: flaw{request: func(p *flawProxy, r *proxied) []byte {
			if r.get("Host") == "evil.example" {
				r.set("Host", p.upstream)
			}
			return nil
		}}},
	{check: "HO-02", name: "a foreign Origin is accepted on POST", want: probe.Fail, says: "any web page can drive the server",
		also: map[string]probe.Verdict{"HO-03": probe.Skip, "HO-04": probe.Skip}, // the same missing check, reported once
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Origin") == "http://evil.example" {
				r.drop("Origin")
			}
			return nil
		}}},
	{check: "HO-03", name: "a foreign Origin is accepted on GET and DELETE", want: probe.Fail, says: "not 403",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method != "POST" && r.get("Origin") == "http://evil.example" {
				r.drop("Origin")
			}
			return nil
		}}},
	{check: "HO-04", name: "Origin: null is accepted", want: probe.Fail, says: "for Origin: null",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.get("Origin") == "null" {
				r.drop("Origin")
			}
			return nil
		}}},
	{check: "HO-05", name: "the server's own origin is refused", want: probe.Warn, says: "answered 403 for its own origin",
		flaw: flaw{request: func(p *flawProxy, r *proxied) []byte {
			if r.get("Origin") == "http://"+p.upstream {
				return answer("403 Forbidden", "", "")
			}
			return nil
		}}},
	{check: "HO-06", name: "a cross-site text/plain POST is served as JSON", want: probe.Fail, says: "without a CORS preflight",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method == "POST" && r.get("Content-Type") == "text/plain" && r.get("Origin") == "http://evil.example" {
				r.drop("Origin")
				r.set("Content-Type", "application/json")
			}
			return nil
		}}},
}
