package scenario

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire"
)

func TestDemo(t *testing.T) {
	got := Demo(context.Background(), RunOptions{})
	want := Verdict{
		HTTPRoundTrips: 9, Profile: Profile, ProtocolVersion: "2025-11-25", Verdict: "PASS",
		Steps: []StepResult{
			{"GET Protected Resource Metadata", "HTTP/1.1 200 OK", true},
			{"initialize, proposing the Draft 2026-07-28", "HTTP/1.1 200 OK", true},
			{"notifications/initialized", "HTTP/1.1 202 Accepted", true},
			{"ping, answered as JSON", "HTTP/1.1 200 OK", true},
			{"resources/list, answered as SSE", "HTTP/1.1 200 OK", true},
			{"GET the notification stream", "HTTP/1.1 200 OK", true},
			{"GET again with Last-Event-ID", "HTTP/1.1 200 OK", true},
			{"DELETE the session", "HTTP/1.1 204 No Content", true},
			{"ping on the deleted session", "HTTP/1.1 404 Not Found", true},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Demo (-want +got):\n%s", diff)
	}
}

func TestVerdictJSON(t *testing.T) {
	v := Verdict{HTTPRoundTrips: 9, Profile: Profile, ProtocolVersion: "2025-11-25", Verdict: "PASS",
		FailedStep: "never printed", Detail: "never printed", Steps: []StepResult{{Name: "never printed"}}}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"http_round_trips":9,"profile":"loopback-streamable-http-teaching-profile-v1","protocol_version":"2025-11-25","verdict":"PASS"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// TestDemoFailsOnDeviation changes one server setting at a time; the demo
// must name the first step whose bytes differ from the profile.
func TestDemoFailsOnDeviation(t *testing.T) {
	tests := []struct {
		name       string
		configure  func(*wire.Config)
		cancel     bool
		failedStep string
		roundTrips int
	}{
		{
			name:       "S-P05/a priming retry under 2 s fails the GET step",
			configure:  func(c *wire.Config) { c.SSERetry = time.Second },
			failedStep: "GET the notification stream",
			roundTrips: 6,
		},
		{
			name:       "A-23/a response budget too small for the metadata fails the first step",
			configure:  func(c *wire.Config) { c.MaxResponse = 100 },
			failedStep: "GET Protected Resource Metadata",
			roundTrips: 1,
		},
		{
			name:       "T-P14/a cancelled run fails before its first request",
			cancel:     true,
			failedStep: "GET Protected Resource Metadata",
			roundTrips: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			v := Demo(ctx, RunOptions{Fixture: Options{Configure: tt.configure}})
			got := [3]any{v.Verdict, v.FailedStep, v.HTTPRoundTrips}
			want := [3]any{"FAIL", tt.failedStep, tt.roundTrips}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("verdict, failed step, round trips (-want +got):\n%s\ndetail: %s", diff, v.Detail)
			}
			if v.Detail == "" {
				t.Error("a FAIL must say what deviated")
			}
		})
	}
}
