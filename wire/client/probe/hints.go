package probe

import (
	"context"
	"time"
)

// Hint is what to try when PRE-01 found no MCP endpoint at the URL, ""
// when nothing suggests itself: an http:// URL whose address answers
// TLS ("is the URL https://...?"), or a path that answered 404 on an
// origin that answers initialize at /mcp ("is the URL .../mcp?"). It
// asks the target once more for each.
func Hint(ctx context.Context, target Target, opts Options, rep *Report) string {
	if rep == nil || len(rep.Results) == 0 || rep.Results[0].Verdict == Pass {
		return ""
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	if target.Scheme == "http" && speaksTLS(target, timeout) {
		return "the address answers TLS: is the URL https://" + target.Host + target.Path + "?"
	}
	pre := rep.Results[0]
	if target.Path == "/mcp" || len(pre.Exchanges) == 0 || pre.Exchanges[0].resp == nil || pre.Exchanges[0].resp.Status != 404 {
		return ""
	}
	other, err := ParseTarget(target.Scheme+"://"+target.Host+"/mcp", target.Resolve...)
	if err != nil {
		return ""
	}
	opts.Trace, opts.Progress = nil, nil
	if _, _, err := start(ctx, other, opts); err != nil {
		return ""
	}
	return "the path answered 404, and initialize is answered at " + other.URL + ": is that the URL?"
}
