package wire

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire/jsonrpc"
	"rawmcp/wire/mcp"
	"rawmcp/wire/rule"
)

// Step is one row of the README's receive-order table as the code applies
// it: its label, the rules its answers name, and the requests that walk
// it ("POST", "GET", "DELETE" on /mcp, "GET metadata" on the well-known
// paths). Steps 1 and 2 belong to the connection, not to a method.
type Step struct {
	Label   string
	Rules   []rule.ID
	Methods []string
}

var mcpMethods = []string{"POST", "GET", "DELETE"}

// ReceiveOrder is checked against the README (TestREADMEReceiveOrder),
// against the code's decision tables (TestReceiveOrderMatchesCode), and
// against the receive-order cases (TestReceiveOrder covers every step for
// every method that walks it).
var ReceiveOrder = []Step{
	{"1", parseStepRules(), nil},
	{"2", []rule.ID{rule.InFlightGate, rule.ConnectionCap}, nil},
	{"3", []rule.ID{rule.HostNotOurs}, append(mcpMethods, "GET metadata")},
	{"4", []rule.ID{rule.OriginNotAllowed}, append(mcpMethods, "GET metadata")},
	{"5", []rule.ID{rule.ExactRouting, rule.MethodNotServed}, []string{"POST", "PUT", "BREW", "POST metadata"}},
	{"5a", []rule.ID{rule.MetadataPublic}, []string{"GET metadata"}},
	{"6", []rule.ID{rule.AcceptBothTypes, rule.ContentTypeJSON}, []string{"POST", "GET"}},
	{"7", []rule.ID{rule.LengthRequired, rule.ReadDeadline}, []string{"POST"}},
	{"8", []rule.ID{rule.StrictJSON, rule.OneJSONRPCMessage}, []string{"POST"}},
	{"9", []rule.ID{rule.NoCredentials, rule.InvalidToken, rule.MalformedAuthz}, mcpMethods},
	{"10", []rule.ID{rule.InitializeVersion, rule.VersionRequired}, mcpMethods},
	{"11", []rule.ID{rule.SessionRequired, rule.SessionIDSyntax, rule.SessionNotFound, rule.LifecycleOrder}, mcpMethods},
	{"12", []rule.ID{rule.TenantNotServed, rule.InsufficientScope}, mcpMethods},
	{"12a", []rule.ID{rule.EventIDSyntax, rule.CursorUnknown}, []string{"GET"}},
	{"13", []rule.ID{rule.VersionCounterOffer, rule.InitializeParams, rule.PingAnswered, rule.RequestAnsweredSSE,
		rule.MethodNotFound, rule.InvalidCursor, rule.NotificationAccepted, rule.GetStream, rule.DeleteEndsSession,
		rule.MetadataServed, rule.UnsolicitedResponse, rule.NotificationRefused, rule.SessionCapacity,
		rule.SessionNotFound, rule.LifecycleOrder, rule.InternalError}, append(mcpMethods, "GET metadata")},
}

// parseStepRules is every rule a refusal of step 1 can name.
func parseStepRules() []rule.ID {
	ids := []rule.ID{rule.ReadDeadline}
	for _, id := range parseRules {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestReceiveOrderMatchesCode: the steps name exactly the rules the code's
// tables decide with, so a rule added to a table must find its step.
func TestReceiveOrderMatchesCode(t *testing.T) {
	step := func(label string) []rule.ID {
		for _, s := range ReceiveOrder {
			if s.Label == label {
				return s.Rules
			}
		}
		t.Fatalf("no step %s", label)
		return nil
	}
	for reason, id := range denialRules {
		want := "9"
		if reason == policy.ReasonTenantForbidden || reason == policy.ReasonInsufficientScope {
			want = "12"
		}
		if !slices.Contains(step(want), id) {
			t.Errorf("policy.%s decides with %s, which step %s lacks", reason, id, want)
		}
	}
	for o, r := range outcomeAnswers {
		if mcp.Outcome(o) == mcp.Answered {
			continue
		}
		if !slices.Contains(step("13"), r.rule) {
			t.Errorf("an MCP outcome decides with %s, which step 13 lacks", r.rule)
		}
	}
	for _, s := range ReceiveOrder {
		for _, id := range s.Rules {
			if id.Text() == "" {
				t.Errorf("step %s names %s, which the rule table lacks", s.Label, id)
			}
		}
	}
}

var backticked = regexp.MustCompile("`([^`]+)`")

// tableRows returns the cells of the rows of the README table that starts
// with header.
func tableRows(t *testing.T, header string) [][]string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, header)
	if i < 0 {
		t.Fatalf("README has no table %q", header)
	}
	var rows [][]string
	for _, line := range strings.Split(text[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestREADMEReceiveOrder: the README's receive-order table lists the steps
// in the code's order, each with exactly the rules the code names there
// and the reason it stands where it does.
func TestREADMEReceiveOrder(t *testing.T) {
	rows := tableRows(t, "| # | step | why here | refusal | rules |")
	if len(rows) != len(ReceiveOrder) {
		t.Fatalf("README lists %d steps, the code %d", len(rows), len(ReceiveOrder))
	}
	for i, row := range rows {
		s := ReceiveOrder[i]
		var ids []string
		for _, m := range backticked.FindAllStringSubmatch(row[len(row)-1], -1) {
			ids = append(ids, m[1])
		}
		var want []string
		for _, id := range s.Rules {
			want = append(want, string(id))
		}
		slices.Sort(ids)
		slices.Sort(want)
		if row[0] != s.Label || !slices.Equal(ids, want) {
			t.Errorf("README step %s rules %v; the code's step %s: %v", row[0], ids, s.Label, want)
		}
		if len(row) != 5 || row[2] == "" {
			t.Errorf("README step %s gives no reason for its place", row[0])
		}
	}
}

// TestREADMELimits: every number in the README's limits table is the one
// the code uses.
func TestREADMELimits(t *testing.T) {
	lim := httpparse.DefaultLimits()
	cfg := NewConfig(nil, nil)
	table := state.DefaultConfig()
	kib := func(n int) string { return strconv.Itoa(n>>10) + " KiB" }
	secs := func(d time.Duration) string { return strconv.Itoa(int(d/time.Second)) + " s" }
	ms := func(d time.Duration) string { return strconv.Itoa(int(d/time.Millisecond)) + " ms" }
	want := map[string]string{
		"header fields": strconv.Itoa(lim.MaxFields),
		"header section (field lines after the request line)": kib(lim.MaxHeaderBytes),
		"one header value":            kib(lim.MaxValue),
		"request target (path)":       kib(lim.MaxTarget),
		"method token":                strconv.Itoa(lim.MaxMethod) + " bytes",
		"body":                        kib(int(lim.MaxBody)),
		"JSON nesting":                strconv.Itoa(jsonrpc.MaxDepth),
		"socket read":                 secs(cfg.ReadTimeout),
		"idle keep-alive connection":  secs(cfg.IdleTimeout),
		"requests in processing":      strconv.Itoa(cfg.MaxInFlight),
		"open connections":            strconv.Itoa(cfg.MaxConns),
		"live sessions":               strconv.Itoa(table.MaxSessions),
		"session TTL":                 secs(table.TTL),
		"SSE events per GET answer":   strconv.Itoa(table.MaxEventsPerSet),
		"response":                    kib(cfg.MaxResponse),
		"drain after an error answer": kib(drainLimit) + " or " + ms(drainTimeout),
	}
	rows := tableRows(t, "| what | limit | past it |")
	seen := map[string]bool{}
	for _, row := range rows {
		w, ok := want[row[0]]
		if !ok {
			t.Errorf("README limit %q is not checked against the code", row[0])
			continue
		}
		seen[row[0]] = true
		if !strings.HasPrefix(row[1], w) || len(row[1]) > len(w) && row[1][len(w)] >= '0' && row[1][len(w)] <= '9' {
			t.Errorf("README says %s is %q, the code %s", row[0], row[1], w)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("README's limits table lacks %q", name)
		}
	}
	if !strings.Contains(rowOf(rows, "idle keep-alive connection"), "SSE `retry` of "+secs(cfg.SSERetry)) {
		t.Errorf("README's idle row does not name the SSE retry of %s", secs(cfg.SSERetry))
	}
	if !strings.Contains(rowOf(rows, "SSE events per GET answer"), strconv.Itoa(table.KeepDelivered)+" delivered events kept") {
		t.Errorf("README's SSE row does not name the %d delivered events kept", table.KeepDelivered)
	}
}

func rowOf(rows [][]string, name string) string {
	for _, r := range rows {
		if r[0] == name {
			return strings.Join(r, " | ")
		}
	}
	return ""
}
