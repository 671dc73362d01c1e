package probe_test

import (
	"bytes"

	"rawmcp/wire/client/probe"
)

var ehFlaws = []flawCase{
	{check: "EH-01", name: "every answer echoes the Authorization header", want: probe.Fail, says: "the token marker (in EH-01)",
		flaw: flaw{response: func(_ *flawProxy, r *proxied, ans []byte) []byte {
			auth := r.get("Authorization")
			if auth == "" {
				return ans
			}
			return withField(ans, "X-Debug-Authorization", auth)
		}}},
	{check: "EH-02", name: "error answers are HTML", want: probe.Fail, says: "401 is HTML",
		flaw: flaw{response: func(_ *flawProxy, _ *proxied, ans []byte) []byte {
			if bytes.HasPrefix(ans, []byte("HTTP/1.1 4")) {
				return bytes.Replace(ans, []byte("Content-Type: application/json"), []byte("Content-Type: text/html"), 1)
			}
			return ans
		}}},
}
