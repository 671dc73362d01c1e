package loadgen_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/loadgen"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		want      loadgen.Target
	}{
		{"T-06/127.0.0.1 with a port", "http://127.0.0.1:8080/mcp", loadgen.Target{Dial: "127.0.0.1:8080", Host: "127.0.0.1:8080", Path: "/mcp"}},
		{"T-06/all of 127.0.0.0/8 is loopback", "http://127.1.2.3/mcp", loadgen.Target{Dial: "127.1.2.3:80", Host: "127.1.2.3", Path: "/mcp"}},
		{"T-06/::1", "http://[::1]:8080/mcp", loadgen.Target{Dial: "[::1]:8080", Host: "[::1]:8080", Path: "/mcp"}},
		{"T-06/localhost is dialled as 127.0.0.1 and named as given", "http://localhost:9/mcp", loadgen.Target{Dial: "127.0.0.1:9", Host: "localhost:9", Path: "/mcp"}},
		{"an empty path is /", "http://127.0.0.1:9", loadgen.Target{Dial: "127.0.0.1:9", Host: "127.0.0.1:9", Path: "/"}},
		{"the query is kept, the fragment dropped", "http://127.0.0.1:9/mcp?x=1#f", loadgen.Target{Dial: "127.0.0.1:9", Host: "127.0.0.1:9", Path: "/mcp?x=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := loadgen.ParseTarget(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("target (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTargetRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		want      error
	}{
		{"T-06/a private address", "http://10.0.0.1:8080/mcp", loadgen.ErrNotLoopback},
		{"T-06/the unspecified address", "http://0.0.0.0:8080/mcp", loadgen.ErrNotLoopback},
		{"T-06/the IPv6 unspecified address", "http://[::]:8080/mcp", loadgen.ErrNotLoopback},
		{"T-06/a public name", "http://example.com/mcp", loadgen.ErrNotLoopback},
		{"T-06/a name that resolves to loopback is still a name", "http://127.0.0.1.nip.io/mcp", loadgen.ErrNotLoopback},
		{"T-06/a scoped IPv6 link-local address", "http://[fe80::1%25lo]:80/mcp", loadgen.ErrNotLoopback},
		{"https is not spoken", "https://127.0.0.1/mcp", loadgen.ErrBadURL},
		{"user info", "http://user:pass@127.0.0.1/mcp", loadgen.ErrBadURL},
		{"no host", "http:///mcp", loadgen.ErrBadURL},
		{"port 0", "http://127.0.0.1:0/mcp", loadgen.ErrBadURL},
		{"a port past 65535", "http://127.0.0.1:65536/mcp", loadgen.ErrBadURL},
		{"not a URL", "127.0.0.1:8080", loadgen.ErrBadURL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := loadgen.ParseTarget(tc.url); !errors.Is(err, tc.want) {
				t.Errorf("ParseTarget(%q) = %v, want %v", tc.url, err, tc.want)
			}
		})
	}
}

// TestMainRefusesNonLoopback: rawmcp bench exits before dialling anything
// that is not loopback.
func TestMainRefusesNonLoopback(t *testing.T) {
	for _, url := range []string{"http://10.0.0.1:8080/mcp", "http://example.com/mcp", "http://0.0.0.0:8080/mcp"} {
		t.Run("T-06/"+url, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := loadgen.Main([]string{"-url", url, "-requests", "1"}, &out, &errOut)
			want := "rawmcp bench: " + loadgen.ErrNotLoopback.Error() + "\n"
			if code != loadgen.ExitUsage || out.Len() != 0 || errOut.String() != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, %q", code, out.String(), errOut.String(), loadgen.ExitUsage, want)
			}
		})
	}
}
