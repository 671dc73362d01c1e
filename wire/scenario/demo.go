package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"rawmcp/httpparse"
	"rawmcp/sseframe"
	"rawmcp/wire"
	"rawmcp/wire/mcp"
)

// Verdict is the demo's result; its JSON is the one line `rawmcp demo`
// prints, members in alphabetical order.
type Verdict struct {
	HTTPRoundTrips  int    `json:"http_round_trips"`
	Profile         string `json:"profile"`
	ProtocolVersion string `json:"protocol_version"`
	Verdict         string `json:"verdict"` // "PASS" or "FAIL"

	// FailedStep names the step that deviated ("" on PASS) and Detail
	// says how, secrets redacted; Steps lists the steps that ran.
	FailedStep string       `json:"-"`
	Detail     string       `json:"-"`
	Steps      []StepResult `json:"-"`
}

// StepResult is one demo step and the status line it got.
type StepResult struct {
	Name       string
	StatusLine string
	OK         bool
}

// The verdicts.
const (
	Pass = "PASS"
	Fail = "FAIL"
)

// Report writes the steps for a reader, and on FAIL the deviation.
func (v Verdict) Report(w io.Writer) {
	for _, s := range v.Steps {
		mark := "ok  "
		if !s.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %-46s %s\n", mark, s.Name, s.StatusLine)
	}
	if v.Verdict != Pass {
		fmt.Fprintf(w, "demo failed at step %q: %s\n", v.FailedStep, v.Detail)
	}
}

// demo is the happy path's state between steps.
type demo struct {
	b *bench
	p *peer
	// firstGET is what the first GET delivered: priming event, notification.
	firstGET []sseframe.Event
}

// demoSteps is the whole happy path of a 2025-11-25 client, each step
// checked byte for byte against the profile.
var demoSteps = []struct {
	name string
	run  func(d *demo, name string) (*httpparse.Response, error)
}{
	{"GET Protected Resource Metadata", (*demo).metadata},
	{"initialize, proposing the Draft " + DraftVersion, (*demo).initialize},
	{"notifications/initialized", (*demo).initialized},
	{"ping, answered as JSON", (*demo).ping},
	{"resources/list, answered as SSE", (*demo).listResources},
	{"GET the notification stream", (*demo).get},
	{"GET again with Last-Event-ID", (*demo).resume},
	{"DELETE the session", (*demo).delete},
	{"ping on the deleted session", (*demo).afterDelete},
}

// Demo starts a server on a random 127.0.0.1 port, drives the whole happy
// path over real sockets with the raw client, checks every status, field
// and body, and shuts the server down. The verdict is PASS only if every
// step got exactly what the profile says and the server stopped cleanly.
func Demo(ctx context.Context, opts RunOptions) Verdict {
	return newRun(ctx, opts).demo()
}

func (r *run) demo() Verdict {
	v := Verdict{Profile: Profile, ProtocolVersion: mcp.ProtocolVersion, Verdict: Fail}
	b, err := r.start("demo")
	if err != nil {
		v.FailedStep, v.Detail = "start the server", err.Error()
		return v
	}
	d := &demo{b: b, p: b.peer("alice")}
	for _, step := range demoSteps {
		resp, err := step.run(d, step.name)
		result := StepResult{Name: step.name, OK: err == nil}
		if resp != nil {
			result.StatusLine = r.secret.Redact(statusLine(resp))
		}
		v.Steps = append(v.Steps, result)
		if err != nil {
			b.close()
			v.HTTPRoundTrips = r.roundTrips
			v.FailedStep, v.Detail = step.name, r.secret.Redact(err.Error())
			return v
		}
	}
	v.HTTPRoundTrips = r.roundTrips
	if err := b.close(); err != nil {
		v.FailedStep, v.Detail = "shut the server down", err.Error()
		return v
	}
	v.Verdict = Pass
	return v
}

// metadata: the path-suffixed PRM (RFC 9728 §3.1), public, resource
// code-point-identical to the canonical URI (A-22..A-26, A-P06).
func (d *demo) metadata(name string) (*httpparse.Response, error) {
	resp, err := d.p.send(name, metadataRequest(d.b.fx.Addr))
	doc := `{"resource":"` + d.b.fx.URL + `","authorization_servers":["` + Issuer +
		`"],"scopes_supported":["mcp:connect","resources:read"],"bearer_methods_supported":["header"],"resource_name":"rawmcp"}`
	return resp, check(resp, err, jsonAnswer(200, doc))
}

// initialize proposes the Draft; the server must counter with 2025-11-25
// as a normal result (T-53) and issue a session id (T-38, T-P09).
func (d *demo) initialize(name string) (*httpparse.Response, error) {
	resp, err := d.p.send(name, d.p.initializeRequest(1, DraftVersion))
	if err := check(resp, err, jsonAnswer(200, initializeResult(1), "Mcp-Session-Id", anySessionID)); err != nil {
		return resp, err
	}
	// The client accepts the counter-offer: 2025-11-25 is what it speaks.
	d.p.session, _ = resp.Get("Mcp-Session-Id")
	return resp, nil
}

// initializeResult is the answer to initialize whatever it proposed:
// 2025-11-25, the resources capability with listChanged (the GET stream's
// one notification), and the server's name and version (T-52, T-57).
func initializeResult(id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"protocolVersion":"` + mcp.ProtocolVersion +
		`","capabilities":{"resources":{"listChanged":true}},"serverInfo":{"name":"` + wire.ServerName +
		`","version":"` + wire.ServerVersion + `"}}}`
}

// initialized: 202 with an empty body framed by Content-Length: 0 (T-11,
// H-49).
func (d *demo) initialized(name string) (*httpparse.Response, error) {
	resp, err := d.p.send(name, d.p.initializedRequest())
	return resp, check(resp, err, answer(202, "", nil))
}

// ping: application/json, the empty result, the request's id (T-59, T-62).
func (d *demo) ping(name string) (*httpparse.Response, error) {
	resp, err := d.p.send(name, d.p.pingRequest(2))
	return resp, check(resp, err, jsonAnswer(200, `{"jsonrpc":"2.0","id":2,"result":{}}`))
}

// listResources: text/event-stream, one event with an id whose data is the
// response to request 3 (T-14, T-19), the tenant as one URI path segment.
func (d *demo) listResources(name string) (*httpparse.Response, error) {
	resp, err := d.p.send(name, d.p.listResourcesRequest(3))
	if err != nil {
		return resp, wantStatus(resp, err, 200)
	}
	if err := check(resp, nil, answer(200, acceptSSE, resp.Body)); err != nil {
		return resp, err
	}
	evs, err := events(resp.Body)
	if err != nil {
		return resp, err
	}
	want := `{"jsonrpc":"2.0","id":3,"result":{"resources":[{"uri":"kb://tenant/acme","name":"knowledge base","mimeType":"text/plain"}]}}`
	if len(evs) != 1 || evs[0].ID == "" || evs[0].Data != want {
		return resp, fmt.Errorf("want one event with an id and data %s, got %+v", want, evs)
	}
	return resp, nil
}

// listChanged is the one notification the GET stream carries.
const listChanged = `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`

// get: a priming event (id, retry of at least 2 s, empty data; T-15,
// S-15, S-P05), then the queued notification with an id of its own, then
// the stream ends (T-P12).
func (d *demo) get(name string) (*httpparse.Response, error) {
	resp, evs, err := d.stream(name, "")
	if err != nil {
		return resp, err
	}
	if len(evs) != 2 || evs[1].Data != listChanged || evs[1].ID == evs[0].ID {
		return resp, fmt.Errorf("want the priming event, then %s with an id of its own, got %+v", listChanged, evs)
	}
	d.firstGET = evs
	return resp, nil
}

// resume resumes from the priming id: only what the stream delivered
// after it comes back, the notification, with the same id and data (T-36).
func (d *demo) resume(name string) (*httpparse.Response, error) {
	if len(d.firstGET) != 2 {
		return nil, errors.New("no stream to resume")
	}
	resp, evs, err := d.stream(name, d.firstGET[0].ID)
	if err != nil {
		return resp, err
	}
	if len(evs) != 2 || evs[0].ID == d.firstGET[0].ID || evs[1] != d.firstGET[1] {
		return resp, fmt.Errorf("want a fresh priming event, then the notification again as %+v, got %+v", d.firstGET[1], evs)
	}
	return resp, nil
}

// stream sends a GET and checks what every GET answer shares.
func (d *demo) stream(name, cursor string) (*httpparse.Response, []sseframe.Event, error) {
	resp, err := d.p.send(name, d.p.getRequest(cursor))
	if err != nil {
		return resp, nil, wantStatus(resp, err, 200)
	}
	if err := check(resp, nil, answer(200, acceptSSE, resp.Body)); err != nil {
		return resp, nil, err
	}
	evs, err := events(resp.Body)
	if err != nil {
		return resp, nil, err
	}
	if len(evs) == 0 || evs[0].ID == "" || evs[0].Data != "" || evs[0].Retry < 2000 {
		return resp, nil, fmt.Errorf("want a priming event (id, retry >= 2000, empty data) first, got %+v", evs)
	}
	return resp, evs, nil
}

// delete: 204 with neither body nor Content-Length (T-45, H-47).
func (d *demo) delete(name string) (*httpparse.Response, error) {
	resp, err := d.p.send(name, d.p.deleteRequest())
	return resp, check(resp, err, expectation{status: 204, header: fields("Date", anyDate, "Cache-Control", "no-store")})
}

// afterDelete: the same session is 404 from now on (T-43), and the client
// must initialize again.
func (d *demo) afterDelete(name string) (*httpparse.Response, error) {
	resp, err := d.p.send(name, d.p.pingRequest(4))
	return resp, check(resp, err, refusal(404, codeSessionNotFound))
}
