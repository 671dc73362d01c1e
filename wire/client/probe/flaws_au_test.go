package probe_test

import (
	"bytes"
	"strings"

	"rawmcp/wire/client/probe"
)

// takesAs is a server that takes the token Authorization carries (the
// whole value) as alice's.
func takesAs(value string) flaw {
	return flaw{request: func(_ *flawProxy, r *proxied) []byte {
		if r.get("Authorization") == value {
			r.set("Authorization", "Bearer "+alice)
		}
		return nil
	}}
}

var auFlaws = []flawCase{
	{check: "AU-01", name: "a missing token gets 401 without a challenge", want: probe.Fail, says: "401 without WWW-Authenticate",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if r.get("Authorization") == "" && bytes.Contains(r.body, []byte(`"method":"initialize"`)) {
				return withoutField(ans, "WWW-Authenticate")
			}
			return ans
		}}},
	{check: "AU-02", name: "the metadata names another resource", want: probe.Fail, says: "/other\", not the URL",
		also: map[string]probe.Verdict{"DP-04": probe.Skip}, // it reads the same resource member: "see AU-02"
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if !strings.HasPrefix(r.path, "/.well-known/") {
				return ans
			}
			return withBody(ans, func(body []byte) []byte {
				return bytes.Replace(body, []byte(`/mcp","authorization_servers"`), []byte(`/other","authorization_servers"`), 1)
			})
		}}},
	{check: "AU-03", name: "a garbage token is accepted", want: probe.Fail, says: "for a garbage token, not 401", flaw: takesAs("Bearer not-a-token")},
	{check: "AU-04", name: "Basic credentials get an error code", want: probe.Warn, says: "with Authorization: Basic: 401 with error=",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			if strings.HasPrefix(r.get("Authorization"), "Basic ") {
				return bytes.Replace(ans, []byte("WWW-Authenticate: Bearer "), []byte(`WWW-Authenticate: Bearer error="invalid_token", `), 1)
			}
			return ans
		}}},
	{check: "AU-05", name: "a token in the query is accepted", want: probe.Fail, says: "with a token in the query and none in the header",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if path, query, ok := strings.Cut(r.path, "?"); ok && strings.HasPrefix(query, "access_token=") {
				r.path = path
				r.set("Authorization", "Bearer "+alice)
			}
			return nil
		}}},
	{check: "AU-06", name: "the scheme is matched case-sensitively", want: probe.Fail, says: "the scheme is case-insensitive",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if strings.HasPrefix(r.get("Authorization"), "bearer ") {
				r.set("Authorization", "Bearer unknown-scheme")
			}
			return nil
		}}},
	{check: "AU-07", name: "a token for another audience is accepted", want: probe.Fail, says: "the wrong_audience token was accepted", flaw: takesAs("Bearer " + wrongAud)},
	{check: "AU-08", name: "an expired token is accepted", want: probe.Fail, says: "the expired token was accepted", flaw: takesAs("Bearer " + expired)},
	{check: "AU-09", name: "a token without the scope is served", want: probe.Warn, says: "(initialize and resources/list): scope is not enforced on these methods", flaw: takesAs("Bearer " + lowScope)},
	{check: "AU-10", name: "GET and DELETE are served without a token", want: probe.Fail, says: "GET answered 200 text/event-stream and DELETE answered 204, not 401",
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if r.method != "POST" && r.get("Mcp-Session-Id") != "" && r.get("Authorization") == "" {
				r.set("Authorization", "Bearer "+alice)
			}
			return nil
		}}},
	{check: "AU-11", name: "the metadata needs a token", want: probe.Fail, says: "no metadata answered 200 without a token",
		also: map[string]probe.Verdict{"AU-02": probe.Skip, "DP-04": probe.Skip}, // they read the same metadata: "see AU-11"
		flaw: flaw{request: func(_ *flawProxy, r *proxied) []byte {
			if strings.HasPrefix(r.path, "/.well-known/") && r.get("Authorization") == "" {
				return []byte("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 0\r\n\r\n")
			}
			return nil
		}}},
}
