package wire_test

import (
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rawmcp/policy"
	"rawmcp/state"
	"rawmcp/wire"
	"rawmcp/wire/scenario"
)

// sessionLines returns the "session opened/ended" lines of a log, from
// "msg=" on, with the lifetime's value dropped (it depends on the clock).
func sessionLines(log string) []string {
	lifetime := regexp.MustCompile(` lifetime=\S+`)
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if i := strings.Index(l, `msg="session `); i >= 0 {
			out = append(out, lifetime.ReplaceAllString(l[i:], " lifetime=…"))
		}
	}
	return out
}

// TestSessionLifecycleLog: the operator's evidence. serve logs one line
// when a session opens (session, token and subject by correlation id,
// tenant) and one when it ends, saying how, with its lifetime; never a
// raw token, session id or subject.
func TestSessionLifecycleLog(t *testing.T) {
	corr := func(s string) string { return policy.Correlate([]byte(s)) }
	opened := func(f *scenario.Fixture, sid, token, subject string) string {
		return `msg="session opened" conn=1 session=` + corr(sid) + " token=" + corr(f.Tokens[token]) + " subject=" + corr(subject) + " tenant=acme"
	}
	ended := func(sid, subject, how string) string {
		return `msg="session ended" session=` + corr(sid) + " subject=" + corr(subject) + " tenant=acme how=" + how + " lifetime=…"
	}
	// The server's clock runs skew ahead of the wall clock: a case moves
	// it past the TTL instead of waiting for it.
	var skew atomic.Int64
	short := state.DefaultConfig()
	short.MaxSessions = 1
	pastTTL := func() { skew.Store(int64(short.TTL + time.Second)) }
	tests := []struct {
		name  string
		table *state.Config
		token string
		// end ends the session sid and returns the status of the request
		// that ended it.
		end     func(t *testing.T, f *scenario.Fixture, sid string) int
		status  int
		subject string
		how     string
	}{
		{"DELETE", nil, "alice", func(t *testing.T, f *scenario.Fixture, sid string) int {
			return do(t, f, sessionRequest(f, "DELETE", f.Tokens["alice"], sid).Bytes()).Status
		}, 204, "alice", "delete"},
		{"token revoked, on its next use", nil, "revocable", func(t *testing.T, f *scenario.Fixture, sid string) int {
			f.Revoke(f.TokenIDs["revocable"])
			return do(t, f, post(f, f.Tokens["revocable"], pingBody, inSession(sid)...).Bytes()).Status
		}, 401, "carol", "token-revoked"},
		{"revision changed, on its next use", nil, "revocable", func(t *testing.T, f *scenario.Fixture, sid string) int {
			f.SetRevision("carol", 2)
			return do(t, f, sessionRequest(f, "GET", f.Tokens["revocable"], sid).Bytes()).Status
		}, 401, "carol", "revision-changed"},
		{"TTL expiry, on its next use", &short, "alice", func(t *testing.T, f *scenario.Fixture, sid string) int {
			pastTTL()
			return do(t, f, post(f, f.Tokens["alice"], pingBody, inSession(sid)...).Bytes()).Status
		}, 404, "alice", "ttl-expired"},
		{"TTL expiry, found by another's initialize", &short, "alice", func(t *testing.T, f *scenario.Fixture, sid string) int {
			pastTTL()
			return do(t, f, post(f, f.Tokens["bob"], initializeBody).Bytes()).Status
		}, 200, "alice", "ttl-expired"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			skew.Store(0)
			configure := func(c *wire.Config) {
				logTo(&logs)(c)
				c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
			}
			f, err := scenario.Start(scenario.Options{Configure: configure, TableConfig: tc.table})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sid := openSession(t, f, tc.token)
			if status := tc.end(t, f, sid); status != tc.status {
				t.Errorf("the ending request got %d, want %d", status, tc.status)
			}
			got := sessionLines(logs.String())
			if len(got) < 2 || got[0] != opened(f, sid, tc.token, tc.subject) || got[1] != ended(sid, tc.subject, tc.how) {
				t.Errorf("session lines:\n%s\nwant first:\n%s\n%s", strings.Join(got, "\n"), opened(f, sid, tc.token, tc.subject), ended(sid, tc.subject, tc.how))
			}
			secrets := secretsOf(f, sid)
			secrets["subject"] = tc.subject
			if found := leaked(strings.Join(got, "\n"), secrets); len(found) > 0 {
				t.Errorf("the session lines carry %v", found)
			}
		})
	}
}

// TestRevokedTokenEndsOnlyItsHoldersSession: a revoked token names a
// session that is not its holder's: that session lives on.
func TestRevokedTokenEndsOnlyItsHoldersSession(t *testing.T) {
	f := startFixture(t, nil)
	sid := openSession(t, f, "alice")
	f.Revoke(f.TokenIDs["revocable"])
	if s := do(t, f, post(f, f.Tokens["revocable"], pingBody, inSession(sid)...).Bytes()).Status; s != 401 {
		t.Fatalf("revoked token: %d, want 401", s)
	}
	if s := do(t, f, post(f, f.Tokens["alice"], pingBody, inSession(sid)...).Bytes()).Status; s != 200 {
		t.Errorf("alice's session after carol's revoked token named it: %d, want 200", s)
	}
}
