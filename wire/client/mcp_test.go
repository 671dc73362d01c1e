package client

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMCPRequest (Transports §2.1 item 2, §2.2 item 2): the fields of a
// 2025-11-25 client, in one order, each only when it has a value.
func TestMCPRequest(t *testing.T) {
	full := MCP{Host: "127.0.0.1:1", Path: "/mcp", UserAgent: "ua/1", Authorization: "Bearer t", Session: "s", Version: "2025-11-25"}
	tests := []struct {
		name   string
		m      MCP
		method string
		body   []byte
		want   string
	}{
		{"a POST carries both Accept types and Content-Type", full, "POST", []byte("{}"),
			"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\nUser-Agent: ua/1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" +
				"Authorization: Bearer t\r\nMcp-Session-Id: s\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: 2\r\n\r\n{}"},
		{"a GET accepts an event stream", full, "GET", nil,
			"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\nUser-Agent: ua/1\r\nAccept: text/event-stream\r\n" +
				"Authorization: Bearer t\r\nMcp-Session-Id: s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"},
		{"a DELETE carries no Accept", full, "DELETE", nil,
			"DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\nUser-Agent: ua/1\r\n" +
				"Authorization: Bearer t\r\nMcp-Session-Id: s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"},
		{"empty values send no field", MCP{Host: "h", Path: "/"}, "POST", []byte("{}"),
			"POST / HTTP/1.1\r\nHost: h\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(tt.m.Request(tt.method, tt.body).Bytes())); diff != "" {
				t.Errorf("Request (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff(full.Request("POST", []byte("{}")), full.Post([]byte("{}"))); diff != "" {
		t.Errorf("Post (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(full.Request("GET", nil), full.Get()); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(full.Request("DELETE", nil), full.Delete()); diff != "" {
		t.Errorf("Delete (-want +got):\n%s", diff)
	}
}

func TestRequestEditor(t *testing.T) {
	base := Request{Method: "GET", Path: "/", Header: [][2]string{{"Host", "h"}, {"X-A", "1"}, {"Accept", "a"}, {"x-a", "2"}}}
	tests := []struct {
		name string
		edit func(Request) Request
		want [][2]string
	}{
		{"Set takes the place of the first field of the name and removes the others",
			func(r Request) Request { return r.Set("X-a", "3") },
			[][2]string{{"Host", "h"}, {"X-a", "3"}, {"Accept", "a"}}},
		{"Set appends a field not there",
			func(r Request) Request { return r.Set("Origin", "o") },
			[][2]string{{"Host", "h"}, {"X-A", "1"}, {"Accept", "a"}, {"x-a", "2"}, {"Origin", "o"}}},
		{"Set to an empty value keeps the field",
			func(r Request) Request { return r.Set("accept", "") },
			[][2]string{{"Host", "h"}, {"X-A", "1"}, {"accept", ""}, {"x-a", "2"}}},
		{"Drop removes every field of the name",
			func(r Request) Request { return r.Drop("X-A") },
			[][2]string{{"Host", "h"}, {"Accept", "a"}}},
		{"Drop of a field not there changes nothing",
			func(r Request) Request { return r.Drop("Origin") },
			[][2]string{{"Host", "h"}, {"X-A", "1"}, {"Accept", "a"}, {"x-a", "2"}}},
		{"Add appends after the fields of the name",
			func(r Request) Request { return r.Add("Host", "h2") },
			[][2]string{{"Host", "h"}, {"X-A", "1"}, {"Accept", "a"}, {"x-a", "2"}, {"Host", "h2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([][2]string(nil), base.Header...)
			got := tt.edit(base)
			if diff := cmp.Diff(tt.want, got.Header); diff != "" {
				t.Errorf("Header (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, base.Header); diff != "" {
				t.Errorf("the edited request changed (-want +got):\n%s", diff)
			}
		})
	}
	// A variant made by Add from a request with room to spare shares no
	// array with a second variant.
	roomy := Request{Header: make([][2]string, 1, 4)}
	a, b := roomy.Add("A", "1"), roomy.Add("B", "2")
	if a.Header[1] != [2]string{"A", "1"} || b.Header[1] != [2]string{"B", "2"} {
		t.Errorf("variants share their headers: %q, %q", a.Header, b.Header)
	}
}
