package mcp

import (
	"bytes"
	"rawmcp/wire/rule"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/state"
	"rawmcp/wire/jsonrpc"
)

// TestResourceURI: resources/list names the tenant's knowledge base with
// the tenant as one percent-encoded UTF-8 path segment, so tenant text
// cannot add segments, a query or a fragment.
func TestResourceURI(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name, tenant, want string
	}{
		{"T-P/ASCII tenant stays readable", "acme", "kb://tenant/acme"},
		{"T-P/Unicode is UTF-8 percent-encoded", "Zürich", "kb://tenant/Z%C3%BCrich"},
		{"T-P/a slash cannot add a segment", "a/b", "kb://tenant/a%2Fb"},
		{"T-P/a question mark cannot start a query", "a?b", "kb://tenant/a%3Fb"},
		{"T-P/a hash cannot start a fragment", "a#b", "kb://tenant/a%23b"},
		{"T-P/a percent sign is itself encoded", "100%", "kb://tenant/100%25"},
		{"T-P/unreserved marks stay", "a-b.c_d~e", "kb://tenant/a-b.c_d~e"},
		{"T-P/spaces and sub-delims are encoded", "a b;c", "kb://tenant/a%20b%3Bc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Handler{Table: state.NewTable(state.DefaultConfig(), &fixedReader{}), ServerName: "rawmcp", ServerVersion: "test"}
			owner := state.Owner{Subject: "alice", Tenant: tc.tenant, Revision: 1}
			sid, _, err := h.Table.Create(owner, now)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := h.Table.Step(sid, owner, state.InputInitialized, now); err != nil {
				t.Fatal(err)
			}
			got := h.Post(&Call{Msg: decode(t, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`), SessionID: sid, Owner: owner, Now: now})
			want := `{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"` + tc.want + `","name":"knowledge base","mimeType":"text/plain"}]}}`
			if diff := cmp.Diff(want, string(got.Message)); diff != "" {
				t.Errorf("resources/list (-want +got):\n%s", diff)
			}
		})
	}
}

// fixedReader is a deterministic entropy source for session ids in tests.
type fixedReader struct{ n byte }

func (r *fixedReader) Read(p []byte) (int, error) {
	for i := range p {
		r.n++
		p[i] = r.n
	}
	return len(p), nil
}

func decode(t *testing.T, body string) jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.Decode([]byte(body))
	if err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return m
}

// TestPostHandsBackWhatItEnded: a session one of Post's table calls ends
// (found expired, or swept by an initialize) is put in Call.Ended after
// what the caller had there, for the caller to log.
func TestPostHandsBackWhatItEnded(t *testing.T) {
	cfg := state.DefaultConfig()
	cfg.MaxSessions = 1
	owner := state.Owner{Subject: "alice", Tenant: "acme", Revision: 1}
	created := time.Unix(1_700_000_000, 0)
	earlier := state.Ended{ID: "earlier", How: state.EndRevoked}
	for _, tc := range []struct {
		name    string
		body    string
		session bool // the call names the expired session
		outcome Outcome
		how     state.EndReason
	}{
		{"T-43/a ping finds its session expired", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, true, SessionGone, state.EndExpired},
		{"T-43/resources/list finds its session expired", `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, true, SessionGone, state.EndExpired},
		{"T-43/notifications/initialized finds its session expired", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, SessionGone, state.EndExpired},
		{"T-P18/an initialize sweeps the expired session to make its own",
			`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			false, Answered, state.EndExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Handler{Table: state.NewTable(cfg, &fixedReader{}), ServerName: "rawmcp", ServerVersion: "test"}
			sid, _, err := h.Table.Create(owner, created)
			if err != nil {
				t.Fatal(err)
			}
			c := &Call{Msg: decode(t, tc.body), Owner: owner, Now: created.Add(cfg.TTL), Ended: []state.Ended{earlier}}
			if tc.session {
				c.SessionID = sid
			}
			if got := h.Post(c); got.Outcome != tc.outcome {
				t.Errorf("outcome = %v, want %v", got.Outcome, tc.outcome)
			}
			want := []state.Ended{earlier, {ID: sid, Owner: owner, Lifetime: cfg.TTL, How: tc.how}}
			if diff := cmp.Diff(want, c.Ended); diff != "" {
				t.Errorf("Call.Ended (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPost drives the subset through one session in order; each step
// names the rule it checks and pins status, body shape and message.
func TestPost(t *testing.T) {
	cfg := state.DefaultConfig()
	cfg.MaxSessions = 1
	h := &Handler{Table: state.NewTable(cfg, &fixedReader{}), ServerName: "rawmcp", ServerVersion: "test"}
	owner := state.Owner{Subject: "alice", Tenant: "acme", Revision: 1}
	now := time.Unix(1_700_000_000, 0)
	call := func(sid, body string) Reply {
		return h.Post(&Call{Msg: decode(t, body), SessionID: sid, Owner: owner, Now: now})
	}
	init := call("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if init.SessionID == "" || init.Outcome != Answered {
		t.Fatalf("initialize = %+v", init)
	}
	sid := init.SessionID
	steps := []struct {
		name string
		sid  string
		body string
		want Reply
	}{
		{"T-P18/a second initialize with the table full fails closed", "",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			Reply{Outcome: TableFull}},
		{"T-51/initialize without clientInfo is -32602", "",
			`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
			Reply{Message: []byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params"}}`), Rule: rule.InitializeParams}},
		{"T-P06/resources/list before notifications/initialized is refused", sid,
			`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, Reply{Outcome: LifecycleRefused}},
		{"T-59/ping before notifications/initialized is answered", sid,
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			Reply{Message: []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`), Rule: rule.PingAnswered, Out: []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)}},
		{"T-11/notifications/initialized is accepted with 202", sid,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`, Reply{Outcome: Accepted}},
		{"T-P06/a second notifications/initialized is refused", sid,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`, Reply{Outcome: LifecycleRefused}},
		{"T-P04/a response is unsolicited", sid, `{"jsonrpc":"2.0","id":5,"result":{}}`, Reply{Outcome: Unsolicited}},
		{"T-12/an unknown notification is refused", sid, `{"jsonrpc":"2.0","method":"notifications/progress"}`, Reply{Outcome: NotificationRefused}},
		{"T-66/an unknown method is -32601 with its id", sid, `{"jsonrpc":"2.0","id":"q","method":"tools/call"}`,
			Reply{Message: []byte(`{"jsonrpc":"2.0","id":"q","error":{"code":-32601,"message":"Method not found"}}`), Rule: rule.MethodNotFound}},
		{"T-59/ping without a session is answered (Ping page)", "", `{"jsonrpc":"2.0","id":6,"method":"ping"}`,
			Reply{Message: []byte(`{"jsonrpc":"2.0","id":6,"result":{}}`), Rule: rule.PingAnswered, Out: []byte(`{"jsonrpc":"2.0","id":6,"result":{}}`)}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if diff := cmp.Diff(st.want, call(st.sid, st.body)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("T-14/resources/list is one SSE event holding the response", func(t *testing.T) {
		got := call(sid, `{"jsonrpc":"2.0","id":8,"method":"resources/list"}`)
		want := `{"jsonrpc":"2.0","id":8,"result":{"resources":[{"uri":"kb://tenant/acme","name":"knowledge base","mimeType":"text/plain"}]}}`
		if got.Outcome != Answered || got.Body != BodyEvent || len(got.EventID) == 0 || !bytes.Equal(got.Message, []byte(want)) {
			t.Errorf("reply = %+v, message %s", got, got.Message)
		}
	})
	t.Run("T-14/answers are written into Call.Out from its start, without allocating", func(t *testing.T) {
		out := make([]byte, 0, 512)
		for _, body := range []string{`{"jsonrpc":"2.0","id":10,"method":"ping"}`, `{"jsonrpc":"2.0","id":11,"method":"resources/list"}`} {
			msg := decode(t, body)
			got := h.Post(&Call{Msg: msg, SessionID: sid, Owner: owner, Now: now, Out: append(out[:0], "stale"...)})
			if len(got.Out) == 0 || &got.Out[0] != &out[:1][0] || !bytes.HasSuffix(got.Out, got.Message) {
				t.Errorf("%s: Out %q does not start Call.Out's buffer or end with the message %q", body, got.Out, got.Message)
			}
			if got.Body == BodyEvent && (!bytes.HasPrefix(got.Out, got.EventID) || got.EventID[0] != 'p') {
				t.Errorf("%s: event id %q is not Out's start %q", body, got.EventID, got.Out)
			}
			allocs := testing.AllocsPerRun(100, func() {
				h.Post(&Call{Msg: msg, SessionID: sid, Owner: owner, Now: now, Out: out})
			})
			if allocs != 0 {
				t.Errorf("%s: Post allocated %v times per call, want 0", body, allocs)
			}
		}
	})
	t.Run("T-P10/another owner's session is not found", func(t *testing.T) {
		other := owner
		other.Revision = 2
		got := h.Post(&Call{Msg: decode(t, `{"jsonrpc":"2.0","id":9,"method":"ping"}`), SessionID: sid, Owner: other, Now: now})
		if diff := cmp.Diff(Reply{Outcome: SessionGone}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("T-53/the result declares only resources with listChanged", func(t *testing.T) {
		want := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{"listChanged":true}},"serverInfo":{"name":"rawmcp","version":"test"}}}`
		if diff := cmp.Diff(want, string(init.Message)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
