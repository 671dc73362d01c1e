package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Result is what a run measured. It names the target by its URL without
// query, and carries no token, session id or response bytes.
type Result struct {
	URL      string `json:"url"`
	Method   string `json:"method"`
	Conns    int    `json:"conns"`
	Sessions int    `json:"sessions"`
	// Requests counts every request made, Failed those whose answer
	// failed its check or never came, by Fault in Errors.
	Requests          int64           `json:"requests"`
	Failed            int64           `json:"errors"`
	Errors            map[Fault]int64 `json:"error_kinds,omitempty"`
	Seconds           float64         `json:"seconds"`
	RequestsPerSecond float64         `json:"requests_per_second"`
	// Latency is over the requests that got an answer, in milliseconds.
	Latency         Latency `json:"latency_ms"`
	SessionsRenewed int64   `json:"sessions_renewed"`
	// Reconnects counts connections dialled again after the server
	// closed one.
	Reconnects int64 `json:"reconnects"`
}

// Latency percentiles in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pathOnly drops the query: it may carry what a report must not.
func pathOnly(target string) string {
	path, _, _ := strings.Cut(target, "?")
	return path
}

// WriteJSON writes r as one JSON object and a newline.
func (r Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes r for a reader.
func (r Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rawmcp bench: %s on %s (%s, %s)\n", r.Method, r.URL, count(r.Conns, "connection"), count(r.Sessions, "session"))
	fmt.Fprintf(&b, "  requests  %d in %.2fs: %.1f req/s\n", r.Requests, r.Seconds, r.RequestsPerSecond)
	fmt.Fprintf(&b, "  latency   p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms\n", r.Latency.P50, r.Latency.P90, r.Latency.P99, r.Latency.Max)
	fmt.Fprintf(&b, "  errors    %d\n", r.Failed)
	faults := make([]Fault, 0, len(r.Errors))
	for f := range r.Errors {
		faults = append(faults, f)
	}
	slices.Sort(faults)
	for _, f := range faults {
		fmt.Fprintf(&b, "    %8d  %s\n", r.Errors[f], f)
	}
	fmt.Fprintf(&b, "  sessions  %d initialized anew after a 404; %d reconnects\n", r.SessionsRenewed, r.Reconnects)
	_, err := io.WriteString(w, b.String())
	return err
}

// count writes n and noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
