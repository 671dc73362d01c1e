package probe

import (
	"encoding/json"
	"strconv"
)

// V2-03: the version header and _meta disagree.
var v203 = Check{ID: "V2-03", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header (\"MUST reject … 400 Bad Request and a HeaderMismatch\")", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:   "Version header and _meta must agree",
	Sends:  "server/discover with MCP-Protocol-Version: 2026-07-28 and _meta protocolVersion 2025-11-25",
	Passes: "400 with JSON-RPC error -32020 (HeaderMismatch), the id echoed; 400 with -32022 warns (the spec orders no precedence, the official suite wants -32020)",
	run:    runV203}

func runV203(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, id := t.metaRequest("server/discover", "", metaOf(protocolVersion, true, true))
	r := t.send("server/discover, _meta protocolVersion "+protocolVersion, req.Bytes(), toResponse, 0)
	if e := r.errorOf(); r.status() == 400 && e.Found && e.Code == codeUnsupportedVersion {
		return t.unmetAt(Should, "with _meta protocolVersion %s under the header %s answered 400 with -32022, not -32020: the mismatch is the first fault (the official suite's order)", protocolVersion, modernVersion).
			with("400 with JSON-RPC error -32020", r.said())
	}
	return t.refused(r, id, 400, codeHeaderMismatch, "with _meta protocolVersion "+protocolVersion+" under the header "+modernVersion)
}

// V2-04: the version header is missing.
var v204 = Check{ID: "V2-04", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header, §Server Validation", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:   "Version header required",
	Sends:  "server/discover without MCP-Protocol-Version (the _meta still says 2026-07-28)",
	Passes: "400 with JSON-RPC error -32020, the id echoed; on a target that also speaks 2025-11-25 another 4xx is reported (it MAY take the request for 2025-03-26)",
	run:    runV204}

func runV204(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, id := t.modernRequest("server/discover", "", drop("MCP-Protocol-Version"))
	r := t.send("server/discover without MCP-Protocol-Version", req.Bytes(), toResponse, 0)
	o := t.refused(r, id, 400, codeHeaderMismatch, "without MCP-Protocol-Version")
	if o.verdict != Pass && t.p.legacy && is4xx(r.status()) && !r.isResult(id) {
		return t.info("without MCP-Protocol-Version %s: a server that also serves older clients MAY take a request without the header for 2025-03-26 (Transports §Protocol Version Header)", r.describe()).
			with("400 with JSON-RPC error -32020", r.said())
	}
	return o
}

// unsupportedVersion sends server/discover claiming version in the
// header and _meta alike, and judges the UnsupportedProtocolVersionError.
func (t *checkRun) unsupportedVersion(version string) outcome {
	base, baseID, o := t.control("server/discover", "")
	if o != nil {
		return *o
	}
	var disc discoverResult
	var served []string
	base.resultOf(baseID, &disc)
	json.Unmarshal(disc.SupportedVersions, &served)
	req, id := t.metaRequest("server/discover", "", metaOf(version, true, true), set("MCP-Protocol-Version", version))
	r := t.send("server/discover as version "+version, req.Bytes(), toResponse, 0)
	how := "MCP-Protocol-Version " + version + " (in _meta too)"
	if o := t.refused(r, id, 400, codeUnsupportedVersion, how); o.verdict != Pass {
		return o
	}
	var data struct {
		Supported []string `json:"supported"`
		Requested *string  `json:"requested"`
	}
	want := "data{supported: a non-empty list of what server/discover lists, requested: " + strconv.Quote(version) + "}"
	if json.Unmarshal(r.errorOf().Data, &data) != nil || len(data.Supported) == 0 {
		return t.unmet("%s answered -32022 without a list of supported versions in data.supported: the client cannot retry", how).with(want, "data "+string(r.errorOf().Data))
	}
	if data.Requested == nil || *data.Requested != version {
		return t.unmet("%s answered -32022 whose data.requested is not %q", how, version).with(want, "data "+string(r.errorOf().Data))
	}
	for _, v := range data.Supported {
		if !contains(served, v) {
			return t.unmet("%s answered -32022 naming %q as supported, which server/discover does not list", how, v).with(want, "data "+string(r.errorOf().Data))
		}
	}
	return t.pass("%s answered 400 with -32022, supported %v", how, data.Supported)
}

// V2-05: a future version is refused with the supported list.
var v205 = Check{ID: "V2-05", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header; Versioning §Negotiation; schema UnsupportedProtocolVersionError", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:   "An unknown future version refused with the supported list",
	Sends:  "server/discover with 2099-12-31 in MCP-Protocol-Version and _meta",
	Passes: "400 with JSON-RPC error -32022, the id echoed, data.supported a non-empty subset of server/discover's supportedVersions, data.requested 2099-12-31",
	run:    func(t *checkRun) outcome { return t.unsupportedVersion("2099-12-31") }}

// V2-06: a past version is refused the same way (the spec's own example).
var v206 = Check{ID: "V2-06", Level: Must, Source: "MCP 2026-07-28 Transports §Protocol Version Header; Versioning §Negotiation (its example: 1900-01-01)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Transports §Protocol Version Header", Keyword: "MUST", Binds: Server,
	Line:   "An unknown past version refused with the supported list",
	Sends:  "server/discover with 1900-01-01 in MCP-Protocol-Version and _meta",
	Passes: "as V2-05, with data.requested 1900-01-01; the official suite sends no past version",
	run:    func(t *checkRun) outcome { return t.unsupportedVersion("1900-01-01") }}

// metaMissing sends server/discover with meta as _meta ("" for none) and
// wants 400 with -32602.
func (t *checkRun) metaMissing(meta, what string) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, id := t.metaRequest("server/discover", "{}", meta)
	r := t.send("server/discover with "+what, req.Bytes(), toResponse, 0)
	return t.refused(r, id, 400, codeInvalidParams, "with "+what)
}

// V2-07: _meta missing.
var v207 = Check{ID: "V2-07", Level: Must, Source: "MCP 2026-07-28 Basic §_meta (\"MUST reject it with … -32602 … status MUST be 400\")", Needs: NeedModern,
	Section: "MCP 2026-07-28 Basic §_meta", Keyword: "MUST", Binds: Server,
	Line:   "A request without _meta refused",
	Sends:  "server/discover with params {} (headers as usual)",
	Passes: "400 with JSON-RPC error -32602, the id echoed",
	run:    func(t *checkRun) outcome { return t.metaMissing("", "params {} (no _meta)") }}

// V2-08: clientCapabilities missing.
var v208 = Check{ID: "V2-08", Level: Must, Source: "MCP 2026-07-28 Basic §_meta (clientCapabilities Required: Yes)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Basic §_meta", Keyword: "MUST", Binds: Server,
	Line:   "A request without clientCapabilities refused",
	Sends:  "server/discover whose _meta has no clientCapabilities",
	Passes: "400 with JSON-RPC error -32602, the id echoed",
	run: func(t *checkRun) outcome {
		return t.metaMissing(metaOf(modernVersion, true, false), "_meta without clientCapabilities")
	}}

// V2-09: clientInfo is optional.
var v209 = Check{ID: "V2-09", Level: Must, Source: "MCP 2026-07-28 Basic §_meta (clientInfo Required: No)", Needs: NeedModern,
	Section: "MCP 2026-07-28 Basic §_meta", Keyword: "MUST", Binds: Server,
	Line:   "clientInfo is optional",
	Sends:  "server/discover whose _meta has no clientInfo",
	Passes: "the result, as with it",
	run:    runV209}

func runV209(t *checkRun) outcome {
	if _, _, o := t.control("server/discover", ""); o != nil {
		return *o
	}
	req, id := t.metaRequest("server/discover", "", metaOf(modernVersion, false, true))
	r := t.send("server/discover without clientInfo", req.Bytes(), toResponse, 0)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	if r.isResult(id) {
		return t.pass("served without clientInfo")
	}
	return t.unmet("without clientInfo (optional) %s", r.describe()).with("a result", r.said())
}
