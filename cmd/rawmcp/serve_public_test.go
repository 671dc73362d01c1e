package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client"
)

// TestServeRefusesPublicURL: a -public-url that is not a resource
// identifier is a usage error that says what is wrong, and never echoes
// the URL (userinfo could hold a password).
func TestServeRefusesPublicURL(t *testing.T) {
	const scheme = "rawmcp serve: -public-url: not an absolute URL starting with http:// or https:// (lowercase)\n"
	const host = "rawmcp serve: -public-url: the host is empty or not a lowercase DNS name, IPv4 address or [IPv6] literal\n"
	const port = "rawmcp serve: -public-url: the port must be 1-65535 without a leading zero, and the scheme's default (443, 80) left out\n"
	const path = "rawmcp serve: -public-url: the path must be one or more /segments of letters, digits and - . _ ~, without a trailing slash, outside /.well-known/ (e.g. /mcp)\n"
	for _, tt := range []struct {
		name, url, stderr string
	}{
		{"A-28/not absolute", "/mcp", scheme},
		{"A-28/no scheme", "mcp.example.test:8443/mcp", scheme},
		{"A-28/not http or https", "ftp://mcp.example.test/mcp", scheme},
		{"A-28/a query", "https://mcp.example.test/mcp?tenant=a", "rawmcp serve: -public-url: a query is not allowed in a resource identifier (RFC 8707 §2)\n"},
		{"A-28/a fragment", "https://mcp.example.test/mcp#top", "rawmcp serve: -public-url: a fragment is not allowed in a resource identifier (RFC 8707 §2)\n"},
		{"A-28/userinfo, not echoed", "https://alice:s3cret@mcp.example.test/mcp", "rawmcp serve: -public-url: userinfo (user@) is not allowed: a resource identifier carries no credentials\n"},
		{"A-28/an empty host", "https:///mcp", host},
		{"A-28/an uppercase host", "https://MCP.example.test/mcp", host},
		{"A-28/the default port spelled out", "https://mcp.example.test:443/mcp", port},
		{"A-28/port 65536, one past the limit", "https://mcp.example.test:65536/mcp", port},
		{"A-28/no path", "https://mcp.example.test", path},
		{"A-28/a trailing slash", "https://mcp.example.test/mcp/", path},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := rawmcp(t, "serve", "-public-url", tt.url)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit status %d, stdout %q; want %d and nothing", code, stdout, exitUsage)
			}
			if diff := cmp.Diff(tt.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServePublicURL starts `rawmcp serve -public-url` and checks, through
// the local URL it prints, what a proxy passing the client's Host and
// Origin would see: served, the challenge and the metadata naming the
// public URL, and a foreign Host or Origin still refused.
func TestServePublicURL(t *testing.T) {
	const public = "https://mcp.example.test:8443/mcp"
	const metadataURL = "https://mcp.example.test:8443/.well-known/oauth-protected-resource/mcp"
	cmd := exec.Command(binary, "serve", "-public-url", public)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the first line: %v; stderr:\n%s", err, stderr.String())
	}
	var first map[string]string
	if err := json.Unmarshal(line, &first); err != nil {
		t.Fatalf("first line %q: %v", line, err)
	}
	local, token := first["local_url"], first["token"]
	addr := strings.TrimSuffix(strings.TrimPrefix(local, "http://127.0.0.1:"), "/mcp")
	want := map[string]string{"local_url": "http://127.0.0.1:" + addr + "/mcp", "metadata_url": metadataURL, "token": token, "url": public}
	if diff := cmp.Diff(want, first); diff != "" || token == "" {
		t.Errorf("first line (-want +got):\n%s", diff)
	}
	addr = "127.0.0.1:" + addr
	type result struct {
		Status                   int
		Challenge, MetadataField string
	}
	do := func(method, path, host, origin, bearer string) result {
		h := [][2]string{{"Host", host}}
		var body []byte
		if method == "POST" {
			h = append(h, [2]string{"Accept", "application/json, text/event-stream"}, [2]string{"Content-Type", "application/json"})
			body = []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		}
		if origin != "" {
			h = append(h, [2]string{"Origin", origin})
		}
		if bearer != "" {
			h = append(h, [2]string{"Authorization", "Bearer " + bearer})
		}
		c := client.New(addr)
		defer c.Close()
		resp, err := c.Do(client.Request{Method: method, Path: path, Header: h, Body: body}.Bytes(), false)
		if err != nil {
			t.Fatal(err)
		}
		challenge, _ := resp.Get("WWW-Authenticate")
		var doc struct{ Resource string }
		json.Unmarshal(resp.Body, &doc)
		return result{resp.Status, challenge, doc.Resource}
	}
	const host, origin = "mcp.example.test:8443", "https://mcp.example.test:8443"
	for _, tt := range []struct {
		name string
		got  result
		want result
	}{
		{"T-P15/the public Host and Origin are served", do("POST", "/mcp", host, origin, token), result{200, "", ""}},
		{"A-22/the 401 names the public metadata URL", do("POST", "/mcp", host, origin, ""), result{401, `Bearer resource_metadata="` + metadataURL + `", scope="mcp:connect"`, ""}},
		{"A-24/the metadata names the public URL", do("GET", "/.well-known/oauth-protected-resource/mcp", host, origin, ""), result{200, "", public}},
		{"T-P15/a foreign Host is 403", do("POST", "/mcp", "evil.example:8443", origin, token), result{403, "", ""}},
		{"T-P16/a foreign Origin is 403", do("POST", "/mcp", host, "https://evil.example:8443", token), result{403, "", ""}},
	} {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
