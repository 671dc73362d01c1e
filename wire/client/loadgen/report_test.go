package loadgen_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/loadgen"
)

func TestWriteText(t *testing.T) {
	res := loadgen.Result{
		URL: "http://127.0.0.1:8080/mcp", Method: "ping", Conns: 8, Sessions: 1,
		Requests: 1000, Failed: 3, Seconds: 2, RequestsPerSecond: 500,
		Errors:          map[loadgen.Fault]int64{loadgen.FaultStatus: 2, loadgen.FaultTransport: 1},
		Latency:         loadgen.Latency{P50: 0.5, P90: 1, P99: 2.5, Max: 10},
		SessionsRenewed: 1, Reconnects: 2,
	}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `rawmcp bench: ping on http://127.0.0.1:8080/mcp (8 connections, 1 session)
  requests  1000 in 2.00s: 500.0 req/s
  latency   p50 0.500 ms  p90 1.000 ms  p99 2.500 ms  max 10.000 ms
  errors    3
           1  connection failed or timed out
           2  status not 200
  sessions  1 initialized anew after a 404; 2 reconnects
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}
