package probe

// Protected Resource Metadata as a client finds it (AU-02, AU-11, DP-01,
// DP-04, DP-05), and where in an answer a value shows.

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"rawmcp/wire/client"
)

// metadata finds the Protected Resource Metadata as a client would
// (Authorization §4.2): the challenge's resource_metadata when it names
// this target, then the path-inserted and the root well-known paths. It
// sends no token there (RFC 9728 §3: the metadata is public) and never
// dials another host. It returns the answer that served a document (nil:
// none) and what was tried, for the reason; broke is set when an answer
// did not come at all.
func (t *checkRun) metadata() (doc *reply, where string, tried []string, broke *outcome) {
	req, _ := t.opening(drop("Authorization"))
	r := t.send(t.openingName()+" without a token, for the challenge", req.Bytes(), toResponse, 0)
	if r.resp == nil {
		o := t.errored("%s without a token %s", t.openingName(), r.describe())
		return nil, "", nil, &o
	}
	var paths []string
	if c, ok := r.bearer(); ok && c.Params["resource_metadata"] != "" {
		u, err := url.Parse(c.Params["resource_metadata"])
		switch {
		case err != nil || u.Scheme != t.p.target.Scheme || !strings.EqualFold(u.Host, t.p.target.Host) || u.RawQuery != "" || u.Fragment != "":
			tried = append(tried, "the challenge's resource_metadata (on another origin, not fetched)")
		default:
			paths = append(paths, u.EscapedPath())
			where = "at the challenge's resource_metadata"
		}
	}
	paths = append(paths, t.p.target.MetadataPaths...)
	for i, path := range paths {
		get := client.Request{Method: "GET", Path: path, Header: [][2]string{{"Host", t.p.target.Host}, {"Accept", "application/json"}}}
		m := t.send("GET the metadata, no token", get.Bytes(), toEnd, 0)
		switch {
		case m.resp == nil:
			o := t.errored("GET %s %s", path, m.describe())
			return nil, "", nil, &o
		case m.status() == 200:
			if where == "" || i > 0 {
				where = "at " + path
			}
			return m, where, tried, nil
		}
		tried = append(tried, path+" "+m.describe())
	}
	return nil, "", tried, nil
}

// metadataRequest GETs path without a token, with extra fields.
func (t *checkRun) metadataRequest(path string, extra [][2]string) []byte {
	get := client.Request{Method: "GET", Path: path, Header: append([][2]string{{"Host", t.p.target.Host}, {"Accept", "application/json"}}, extra...)}
	return get.Bytes()
}

// onOwnOrigin checks a resource_metadata value: absolute, on the URL's
// scheme and authority, without query or fragment. It returns its path,
// or what is wrong with it.
func (t *checkRun) onOwnOrigin(raw string) (path, fault string) {
	u, err := url.Parse(raw)
	own := t.p.target
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return "", strconv.Quote(raw) + " is not an absolute URL (RFC 9728 §5.1)"
	case u.Scheme != own.Scheme:
		return "", "is " + u.Scheme + ", not " + own.Scheme + " like the URL"
	case !strings.EqualFold(u.Host, own.Host):
		return "", "names the origin " + u.Scheme + "://" + u.Host + ", not the URL's " + own.origin()
	case u.RawQuery != "" || u.Fragment != "":
		return "", "carries a query or fragment"
	}
	return u.EscapedPath(), ""
}

// metadataResource reads a metadata answer's resource member.
func metadataResource(m *reply) (resource, fault string) {
	if m.resp == nil || m.status() != 200 {
		return "", ""
	}
	var prm struct {
		Resource *string `json:"resource"`
	}
	switch {
	case json.Unmarshal(m.resp.Body, &prm) != nil:
		return "", "not a JSON object"
	case prm.Resource == nil:
		return "", "no resource member"
	}
	return *prm.Resource, ""
}

// foundIn says where in an answer s appears (case-insensitive): which
// header field, or the body; "" if nowhere.
func foundIn(r *reply, s string) string {
	low := []byte(strings.ToLower(s))
	for _, f := range r.resp.Header {
		if bytes.Contains([]byte(strings.ToLower(f.Value)), low) {
			return f.Name
		}
	}
	if bytes.Contains(bytes.ToLower(r.resp.Body), low) {
		return "the body"
	}
	return ""
}
