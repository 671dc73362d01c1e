package probe

import (
	"bytes"
	"maps"
	"slices"
)

// Judging by the version negotiated: a server that answers initialize
// with 2025-03-26 or 2025-06-18 is held to that revision's rules, not to
// 2025-11-25's. A check whose rule arrived in a later revision says so
// in Check.Since, and the runner skips it with the reason; a check whose
// rule differs between revisions applies the negotiated one's in its run
// function (JR-01's batches, the Origin check's 403).

// Revisions whose rules some checks tell apart.
const (
	// rev20250326 allowed JSON-RPC batches, and servers MUST receive them
	// (Basic §Batching); it has no MCP-Protocol-Version header and no
	// Protected Resource Metadata.
	rev20250326 = "2025-03-26"
	// rev20250618 brought the MCP-Protocol-Version header and Protected
	// Resource Metadata (RFC 9728), and removed batches.
	rev20250618 = "2025-06-18"
)

// notInRevision is the skip reason of a check whose rule the negotiated
// revision does not have, "" when it applies. A target whose revision is
// unknown (a run without the token it needs) is held to 2025-11-25's.
func (p *prober) notInRevision(c *Check) string {
	v := p.version
	if c.Since == "" || v == "" || v >= c.Since {
		return ""
	}
	return "the rule arrived in MCP " + c.Since + "; the target negotiated " + v + ", which has no such rule"
}

// before reports a negotiated revision earlier than since: the target
// negotiated one, and it is older.
func (p *prober) before(since string) bool {
	return p.version != "" && p.version < since
}

// noteNegotiated records the version an initialize answer chose for an
// initialize that proposed the probe's own version.
func (p *prober) noteNegotiated(request []byte, r *reply) {
	_, body, _ := bytes.Cut(request, []byte("\r\n\r\n"))
	if !bytes.Contains(body, []byte(`"method":"initialize"`)) || !bytes.Contains(body, []byte(`"protocolVersion":"`+protocolVersion+`"`)) || !is2xx(r.status()) {
		return
	}
	v := negotiatedVersion(r)
	if v == "" {
		return
	}
	p.mu.Lock()
	if p.negotiated == nil {
		p.negotiated = map[string]bool{}
	}
	p.negotiated[v] = true
	p.mu.Unlock()
}

// negotiatedVersions are Report.Negotiated.
func (p *prober) negotiatedVersions() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.negotiated))
}
