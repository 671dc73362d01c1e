package httpparse

import (
	"strings"
	"testing"
)

const (
	jsonType = "application/json"
	sseType  = "text/event-stream"
)

func TestAccepts(t *testing.T) {
	cases := []struct {
		name      string
		accept    []string // one Accept line each
		mediaType string
		want      bool
	}{
		{"T-P02/no Accept admits nothing", nil, jsonType, false},
		{"T-P02/empty Accept admits nothing", []string{""}, jsonType, false},
		{"T-P02/both types listed, JSON", []string{"application/json, text/event-stream"}, jsonType, true},
		{"T-P02/both types listed, SSE", []string{"application/json, text/event-stream"}, sseType, true},
		{"T-P02/only JSON listed", []string{"application/json"}, sseType, false},
		{"T-P02/same type, other subtype", []string{"text/plain"}, sseType, false},
		{"T-P02/both types listed the other way round", []string{"text/event-stream, application/json"}, jsonType, true},
		{"T-P02/both types listed without the space", []string{"application/json,text/event-stream"}, sseType, true},
		{"H-53/the usual list, then a line that excludes SSE", []string{"application/json, text/event-stream", "text/event-stream;q=0"}, sseType, false},
		{"H-53/a line that excludes JSON, then the usual list", []string{"application/json;q=0", "application/json, text/event-stream"}, jsonType, false},
		{"H-53/the usual list with a weight on the second", []string{"application/json, text/event-stream;q=0"}, sseType, false},
		{"H-53/the usual list with a third element that excludes", []string{"application/json, text/event-stream, application/json;q=0"}, jsonType, false},
		{"H-53/the usual two types with spaces and no comma", []string{"application/json  text/event-stream"}, jsonType, false},
		{"H-53/the usual list with a space too many", []string{"application/json,  text/event-stream"}, sseType, true},
		{"T-P02/types on separate lines form one list", []string{"application/json", "text/event-stream"}, sseType, true},
		{"H-53/*/* admits any type", []string{"*/*"}, sseType, true},
		{"H-53/type/* admits its subtypes", []string{"application/*"}, jsonType, true},
		{"H-53/type/* admits no other type", []string{"application/*"}, sseType, false},
		{"H-54/type and subtype case-insensitive", []string{"Application/JSON"}, jsonType, true},
		{"H-54/mediaType argument case-insensitive", []string{"text/event-stream"}, "TEXT/Event-Stream", true},
		{"H-53/q=0 excludes", []string{"application/json;q=0"}, jsonType, false},
		{"H-53/q=0.000 excludes", []string{"application/json; q=0.000"}, jsonType, false},
		{"H-53/Q is case-insensitive", []string{"application/json;Q=0"}, jsonType, false},
		{"H-53/q=0. excludes", []string{"application/json;q=0."}, jsonType, false},
		{"H-53/smallest positive weight admits", []string{"application/json;q=0.001"}, jsonType, true},
		{"H-53/q=1.000 admits", []string{"application/json;q=1.000"}, jsonType, true},
		{"H-53/OWS around the semicolon", []string{"application/json \t; \tq=0.5"}, jsonType, true},
		{"H-53/exact range with q=0 beats */*", []string{"*/*, application/json;q=0"}, jsonType, false},
		{"H-53/*/* still admits the others", []string{"*/*, application/json;q=0"}, sseType, true},
		{"H-53/exact range beats type/* with q=0", []string{"application/*;q=0, application/json"}, jsonType, true},
		{"H-53/*/*;q=0 leaves the listed type", []string{"*/*;q=0, text/event-stream"}, sseType, true},
		{"H-53/*/*;q=0 excludes the rest", []string{"*/*;q=0, text/event-stream"}, jsonType, false},
		{"H-53/equal ranges: the lower weight wins", []string{"application/json, application/json;q=0"}, jsonType, false},
		{"H-53/equal ranges across lines", []string{"application/json;q=0", "application/json;q=1"}, jsonType, false},
		{"H-53/q above 1 makes the element admit nothing", []string{"application/json;q=2"}, jsonType, false},
		{"H-53/q=1.001 is malformed", []string{"application/json;q=1.001"}, jsonType, false},
		{"H-53/four decimals are malformed", []string{"application/json;q=0.1234"}, jsonType, false},
		{"H-53/quoted q is malformed", []string{`application/json;q="0.5"`}, jsonType, false},
		{"H-53/spaces around = are malformed", []string{"application/json; q = 0.5"}, jsonType, false},
		{"H-53/parameter after the weight is malformed", []string{"text/event-stream;q=0.5;x=y"}, sseType, false},
		{"H-53/a malformed q=0 does not exclude", []string{"application/json;q=0;x, application/json"}, jsonType, true},
		{"H-53/malformed element leaves the others", []string{"bad, application/json"}, jsonType, true},
		{"H-53/*/subtype is no range", []string{"*/json, text/event-stream"}, jsonType, false},
		{"H-53/*/subtype leaves the others", []string{"*/json, text/event-stream"}, sseType, true},
		{"H-53/type without subtype", []string{"application"}, jsonType, false},
		{"H-53/trailing slash", []string{"application/"}, jsonType, false},
		{"H-53/empty elements are skipped", []string{",, ,application/json,"}, jsonType, true},
		{"H-53/comma inside a quoted parameter", []string{`text/plain;x="a,b", application/json`}, jsonType, true},
		{"H-53/unterminated quote swallows the rest", []string{`text/plain;x="a, application/json`}, jsonType, false},
		{"H-53/junk between elements", []string{"application/json text/event-stream"}, jsonType, false},
		{"H-53/range parameters must be in the type", []string{"application/json;charset=utf-8"}, jsonType, false},
		{"H-54/range parameters compare case-insensitively", []string{"text/plain;Format=Flowed"}, `text/plain;format="flowed"`, true},
		{"H-53/type may carry more parameters than the range", []string{"application/json"}, "application/json;charset=utf-8", true},
		{"H-53/range with parameters is more specific", []string{"application/json;level=1;q=0, application/json"}, "application/json;level=1", false},
		{"H-53/range with parameters is more specific, listed last", []string{"application/json, application/json;level=1;q=0"}, "application/json;level=1", false},
		{"H-53/range with more parameters is more specific", []string{"text/plain;a=1;q=0, text/plain;a=1;b=2"}, "text/plain;b=2;a=1", true},
		{"H-53/range with parameters skips other types", []string{"application/json;level=1;q=0, application/json"}, jsonType, true},
		{"H-53/malformed mediaType argument", []string{"*/*"}, "application", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := withAccept(t, c.accept)
			if got := req.Accepts(media(c.mediaType)); got != c.want {
				t.Errorf("Accepts(%q) with Accept %q = %v, want %v", c.mediaType, c.accept, got, c.want)
			}
			// The same answer from the one-pass form, in either position,
			// beside the other MCP type and beside itself.
			other := jsonType
			if c.mediaType == jsonType {
				other = sseType
			}
			wantOther := req.Accepts(media(other))
			if gotA, gotB := req.AcceptsBoth(media(c.mediaType), media(other)); gotA != c.want || gotB != wantOther {
				t.Errorf("AcceptsBoth(%q, %q) with Accept %q = %v, %v, want %v, %v", c.mediaType, other, c.accept, gotA, gotB, c.want, wantOther)
			}
			if gotA, gotB := req.AcceptsBoth(media(other), media(c.mediaType)); gotA != wantOther || gotB != c.want {
				t.Errorf("AcceptsBoth(%q, %q) with Accept %q = %v, %v, want %v, %v", other, c.mediaType, c.accept, gotA, gotB, wantOther, c.want)
			}
			if gotA, gotB := req.AcceptsBoth(media(c.mediaType), media(c.mediaType)); gotA != c.want || gotB != c.want {
				t.Errorf("AcceptsBoth(%q, %q) with Accept %q = %v, %v, want %v twice", c.mediaType, c.mediaType, c.accept, gotA, gotB, c.want)
			}
		})
	}
}

func TestContentTypeIs(t *testing.T) {
	cases := []struct {
		name  string
		value string
		want  bool
	}{
		{"T-P01/exact", "application/json", true},
		{"H-54/case-insensitive", "Application/JSON", true},
		{"T-P01/charset=utf-8", "application/json;charset=utf-8", true},
		{"H-54/charset value case-insensitive", "application/json; charset=UTF-8", true},
		{"H-54/charset name case-insensitive", "application/json; Charset=utf-8", true},
		{"H-56/quoted charset", `application/json;charset="utf-8"`, true},
		{"H-56/quoted-pair inside charset", `application/json;charset="ut\f-8"`, true},
		{"T-P01/other parameters allowed", "application/json;foo=bar;x=\"a b\"", true},
		{"T-P01/empty parameter allowed", "application/json;", true},
		{"T-P01/OWS before the semicolon", "application/json \t; charset=utf-8", true},
		{"T-P01/charset latin1", "application/json;charset=latin1", false},
		{"T-P01/charset utf8 without hyphen", "application/json;charset=utf8", false},
		{"T-P01/second charset not utf-8", "application/json;charset=utf-8;charset=latin1", false},
		{"T-P01/spaces around =", "application/json; charset = utf-8", false},
		{"T-P01/empty parameter value", "application/json;charset=", false},
		{"T-P01/parameter without =", "application/json;charset", false},
		{"T-P01/unterminated quote", `application/json;x="abc`, false},
		{"T-P01/backslash ending a quote", `application/json;x="abc\`, false},
		{"T-P01/parameter without semicolon", "application/json charset=utf-8", false},
		{"T-P01/another type", "text/plain", false},
		{"T-P01/a longer subtype", "application/json-patch+json", false},
		{"T-P01/a prefix", "application/jso", false},
		{"T-P01/no subtype", "application", false},
		{"T-P01/empty", "", false},
		{"T-P01/wildcard is no media type", "*/*", false},
		{"T-P01/a list is no media type", "application/json, text/plain", false},
		{"T-P01/leading OWS", " application/json", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ContentTypeIs([]byte(c.value), media(jsonType)); got != c.want {
				t.Errorf("ContentTypeIs(%q, %q) = %v, want %v", c.value, jsonType, got, c.want)
			}
		})
	}
	t.Run("T-P01/malformed mediaType argument", func(t *testing.T) {
		if ContentTypeIs([]byte("application/json"), media("application json")) {
			t.Error("got true, want false")
		}
	})
	t.Run("T-P01/a value equal to a malformed mediaType argument", func(t *testing.T) {
		if ContentTypeIs([]byte("application"), media("application")) {
			t.Error("got true, want false")
		}
	})
}

func TestParseQvalue(t *testing.T) {
	valid := map[string]int{"0": 0, "0.": 0, "0.5": 500, "0.25": 250, "0.125": 125, "1": 1000, "1.": 1000, "1.0": 1000, "1.000": 1000}
	for v, want := range valid {
		if got, ok := parseQvalue([]byte(v)); !ok || got != want {
			t.Errorf("H-53/parseQvalue(%q) = %d, %v; want %d, true", v, got, ok, want)
		}
	}
	for _, v := range strings.Fields(`"" 2 00 01 .5 0.0000 1.5 1.01 0,5 0.a -0 +1`) {
		if v == `""` {
			v = ""
		}
		if got, ok := parseQvalue([]byte(v)); ok {
			t.Errorf("H-53/parseQvalue(%q) = %d, true; want false", v, got)
		}
	}
}

// FuzzAccepts checks, for any Accept lines and any two media types, that
// the one-pass AcceptsBoth answers as Accepts does for each type alone, in
// either order: the two wants never leak into each other. The seeds are
// TestAccepts' values.
func FuzzAccepts(f *testing.F) {
	f.Add("application/json, text/event-stream", "", jsonType, sseType)
	f.Add("*/*, application/json;q=0", "text/event-stream;q=0.5", jsonType, sseType)
	f.Add("application/json;level=1;q=0, application/json", "", "application/json;level=1", jsonType)
	f.Add(`text/plain;x="a,b", application/json`, "text/plain;Format=Flowed", `text/plain;format="flowed"`, "text/*")
	f.Add("application/*;q=0, application/json", "*/*;q=0", jsonType, "application")
	f.Fuzz(func(t *testing.T, line1, line2, a, b string) {
		raw := "GET / HTTP/1.1\r\nHost: a\r\nAccept: " + line1 + "\r\nAccept: " + line2 + "\r\n\r\n"
		var req Request
		if _, err := Parse([]byte(raw), 0, DefaultLimits(), &req); err != nil {
			return // lines the parser refuses never reach Accepts
		}
		wantA, wantB := req.Accepts(media(a)), req.Accepts(media(b))
		if gotA, gotB := req.AcceptsBoth(media(a), media(b)); gotA != wantA || gotB != wantB {
			t.Fatalf("AcceptsBoth(%q, %q) = %v, %v; Accepts gives %v, %v", a, b, gotA, gotB, wantA, wantB)
		}
		if gotB, gotA := req.AcceptsBoth(media(b), media(a)); gotA != wantA || gotB != wantB {
			t.Fatalf("AcceptsBoth(%q, %q) = %v, %v; Accepts gives %v, %v", b, a, gotB, gotA, wantB, wantA)
		}
	})
}

// TestPlainMediaType: AcceptsBoth and ContentTypeIs skip parsing only for
// a type/subtype pair of tokens, no wildcard, no parameters.
func TestPlainMediaType(t *testing.T) {
	for s, want := range map[string]bool{
		"application/json": true, "text/event-stream": true, "a/b": true,
		"": false, "/": false, "a/": false, "/b": false, "a": false, "a/b/c": false,
		"*/*": false, "text/*": false, "a/b;c=d": false, "a /b": false, "a/b ": false,
	} {
		if got := plainMediaType(s); got != want {
			t.Errorf("plainMediaType(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestAcceptsBothOtherTypes: the one-pass form gives Accepts' answers for
// types that are not plain too, even when the Accept line lists them
// literally, as "a, b".
func TestAcceptsBothOtherTypes(t *testing.T) {
	for _, c := range []struct {
		name, a, b   string
		wantA, wantB bool
	}{
		{"H-53/a type listed with q=0 is excluded", "text/plain;q=0", jsonType, false, true},
		{"H-53/a second type listed with q=0 is excluded", jsonType, "text/plain;q=0", true, false},
		{"H-53/a malformed type admits nothing", "application", sseType, false, true},
		{"H-53/a wildcard admits itself", "*/*", sseType, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var req Request
			raw := "GET / HTTP/1.1\r\nHost: a\r\nAccept: " + c.a + ", " + c.b + "\r\n\r\n"
			if _, err := Parse([]byte(raw), 0, DefaultLimits(), &req); err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if gotA, gotB := req.AcceptsBoth(media(c.a), media(c.b)); gotA != c.wantA || gotB != c.wantB {
				t.Errorf("AcceptsBoth(%q, %q) = %v, %v, want %v, %v", c.a, c.b, gotA, gotB, c.wantA, c.wantB)
			}
		})
	}
}

// withAccept parses a request with one Accept line for each of lines.
func withAccept(t *testing.T, lines []string) *Request {
	t.Helper()
	raw := "GET / HTTP/1.1\r\nHost: a\r\n"
	for _, l := range lines {
		raw += "Accept: " + l + "\r\n"
	}
	var req Request
	if _, err := Parse([]byte(raw+"\r\n"), 0, DefaultLimits(), &req); err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return &req
}

// media is NewMediaType for a test's literal.
func media(s string) *MediaType {
	m := NewMediaType(s)
	return &m
}

// TestAcceptLineNames: an Accept line is one whatever the case of its
// name (RFC 9110 §5.1), and only a field named Accept is one.
func TestAcceptLineNames(t *testing.T) {
	for _, c := range []struct {
		name, head string
		wantJSON   bool
		wantSSE    bool
	}{
		{"H-54/lower-case name", "accept: application/json, text/event-stream\r\n", true, true},
		{"H-54/upper-case name on a second line", "Accept: application/json\r\nACCEPT: text/event-stream;q=0\r\n", true, false},
		{"T-P02/Accept-Encoding is no Accept line", "Accept-Encoding: application/json, text/event-stream\r\n", false, false},
		{"T-P02/X-Accept is no Accept line", "X-Accept: application/json, text/event-stream\r\n", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var req Request
			if _, err := Parse([]byte("POST /mcp HTTP/1.1\r\nHost: a\r\n"+c.head+"\r\n"), 0, DefaultLimits(), &req); err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if gotJSON, gotSSE := req.AcceptsBoth(media(jsonType), media(sseType)); gotJSON != c.wantJSON || gotSSE != c.wantSSE {
				t.Errorf("AcceptsBoth = %v, %v, want %v, %v", gotJSON, gotSSE, c.wantJSON, c.wantSSE)
			}
		})
	}
}

// TestAcceptsBothLiterally: the shortcut is taken for exactly the one
// spelling it is for. (Where it is not, the full scan answers the same,
// only slower, so TestAccepts cannot tell; this test can.)
func TestAcceptsBothLiterally(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"the usual line", []string{"application/json, text/event-stream"}, true},
		{"the usual line the other way round", []string{"text/event-stream, application/json"}, true},
		{"without the space", []string{"application/json,text/event-stream"}, false},
		{"with a second space", []string{"application/json,  text/event-stream"}, false},
		{"with trailing whitespace, which is not the value's", []string{"application/json, text/event-stream \t"}, true},
		{"one type only", []string{"application/json"}, false},
		{"a longer second type", []string{"application/json, text/event-streams"}, false},
		{"the usual line and a second one", []string{"application/json, text/event-stream", "*/*"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := withAccept(t, c.lines)
			if got := req.acceptsBothLiterally(media(jsonType), media(sseType)); got != c.want {
				t.Errorf("acceptsBothLiterally with Accept %q = %v, want %v", c.lines, got, c.want)
			}
		})
	}
}
