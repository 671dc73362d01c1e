package scenario

import (
	"errors"
	"testing"

	"rawmcp/httpparse"
	"rawmcp/sseframe"
	"rawmcp/wire/client"
)

func TestCheck(t *testing.T) {
	ok := &httpparse.Response{Proto: "HTTP/1.1", Status: 202, Reason: "Accepted", Header: fields(
		"Date", "Mon, 30 Nov 2026 03:06:00 GMT", "Cache-Control", "no-store", "Content-Length", "0")}
	tests := []struct {
		name string
		resp *httpparse.Response
		want string // "" = the check passes
	}{
		{"T-11/the exact 202 passes", ok, ""},
		{
			name: "T-11/a status other than predicted",
			resp: &httpparse.Response{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: ok.Header},
			want: "want 202 Accepted, got HTTP/1.1 200 OK",
		},
		{
			name: "H-42/another reason phrase",
			resp: &httpparse.Response{Proto: "HTTP/1.1", Status: 202, Reason: "OK", Header: ok.Header},
			want: `status line: want "HTTP/1.1 202 Accepted", got "HTTP/1.1 202 OK"`,
		},
		{
			name: "H-49/a missing and an extra field, both named",
			resp: &httpparse.Response{Proto: "HTTP/1.1", Status: 202, Reason: "Accepted", Header: fields(
				"Date", "Mon, 30 Nov 2026 03:06:00 GMT", "Cache-Control", "no-store", "Content-Type", "application/json")},
			want: `header fields: missing "Content-Length: 0"; unexpected "Content-Type: application/json"`,
		},
		{
			name: "H-43/a Date that is not an IMF-fixdate",
			resp: &httpparse.Response{Proto: "HTTP/1.1", Status: 202, Reason: "Accepted", Header: fields(
				"Date", "Monday, 30-Nov-26 03:06:00 GMT", "Cache-Control", "no-store", "Content-Length", "0")},
			want: `header fields: missing "Date: <IMF-fixdate>"; unexpected "Date: Monday, 30-Nov-26 03:06:00 GMT"`,
		},
		{
			name: "T-P09/a malformed session id is shown redacted",
			resp: &httpparse.Response{Proto: "HTTP/1.1", Status: 202, Reason: "Accepted", Header: append(fields(
				"Mcp-Session-Id", "short"), ok.Header...)},
			want: `header fields: unexpected "Mcp-Session-Id: ` + client.SessionLabel("short") + `"`,
		},
		{
			name: "T-11/a body where none belongs",
			resp: &httpparse.Response{Proto: "HTTP/1.1", Status: 202, Reason: "Accepted", Header: ok.Header, Body: []byte("x")},
			want: `body: want "", got "x"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := check(tt.resp, nil, answer(202, "", nil))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("check = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckWithoutResponse(t *testing.T) {
	if err := check(nil, errSetup, answer(202, "", nil)); !errors.Is(err, errSetup) {
		t.Errorf("check = %v, want it to wrap the client's error", err)
	}
}

func TestEvents(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		events  int
		wantErr error
	}{
		{"S-15/priming event and one message", "id: g1-1\nretry: 2000\ndata:\n\nid: g1-2\ndata: {}\n\n", 2, nil},
		{"S-P02/a comment line is not the profile's framing", ": keepalive\nid: g1-1\ndata: {}\n\n", 0, errNotCanonical},
		{"S-P02/CRLF line ends are not the profile's framing", "id: g1-1\r\ndata: {}\r\n\r\n", 0, errNotCanonical},
		{"S-P02/an event without its own id is not the profile's framing", "id: g1-1\ndata: {}\n\ndata: {}\n\n", 0, errNotCanonical},
		{"S-11/a cut-off event", "id: g1-1\ndata: {}\n", 0, sseframe.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := events([]byte(tt.body))
			if !errors.Is(err, tt.wantErr) || len(evs) != tt.events {
				t.Errorf("events = %d, %v; want %d, %v", len(evs), err, tt.events, tt.wantErr)
			}
		})
	}
}

func TestIMFFixdate(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"Mon, 30 Nov 2026 03:06:00 GMT", true},
		{"Tue, 30 Nov 2026 03:06:00 GMT", false}, // the wrong weekday
		{"Mon, 30 Nov 2026 3:06:00 GMT", false},
		{"Mon, 30 Nov 2026 03:06:00 UTC", false},
	}
	for _, tt := range tests {
		t.Run("H-43/"+tt.in, func(t *testing.T) {
			if got := isIMFFixdate(tt.in); got != tt.want {
				t.Errorf("isIMFFixdate(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
