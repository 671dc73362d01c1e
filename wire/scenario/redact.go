package scenario

import (
	"bytes"
	"sort"
	"strings"
	"sync"

	"rawmcp/policy"
)

// redactor knows every secret a run has seen, the fixture tokens and the
// session ids the servers issued, and replaces each with a short
// correlation id (policy.Correlate), so a trace or a failure message can
// say "the same token as before" without carrying it (A-33, A-P07).
//
//	Authorization: Bearer <token:1a2b3c4d>
//	Mcp-Session-Id: <session:5e6f7a8b>
type redactor struct {
	mu      sync.Mutex
	secrets []secret // longest first, so no secret is replaced inside another
}

type secret struct {
	value string
	label string
}

func tokenLabel(token string) string    { return "<token:" + policy.Correlate([]byte(token)) + ">" }
func sessionLabel(id string) string     { return "<session:" + policy.Correlate([]byte(id)) + ">" }
func (r *redactor) addToken(t string)   { r.add(t, tokenLabel(t)) }
func (r *redactor) addSession(s string) { r.add(s, sessionLabel(s)) }

func (r *redactor) add(value, label string) {
	if value == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.secrets {
		if s.value == value {
			return
		}
	}
	r.secrets = append(r.secrets, secret{value, label})
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i].value) > len(r.secrets[j].value) })
}

// redact replaces every known secret in s with its label.
func (r *redactor) redact(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec.value, sec.label)
	}
	return s
}

// found returns the labels of the known secrets that occur in b: the leak
// check's question, answered without ever printing a secret.
func (r *redactor) found(b []byte) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var labels []string
	for _, sec := range r.secrets {
		if bytes.Contains(b, []byte(sec.value)) {
			labels = append(labels, sec.label)
		}
	}
	return labels
}

// redactField hides the value of a field that carries a secret by its
// position, whether or not the run knows the value: a forged session id or
// a token of another server is as unfit for a trace as a real one.
func redactField(name, value string) string {
	switch {
	case strings.EqualFold(name, "Authorization"):
		scheme, credentials, ok := strings.Cut(value, " ")
		if !ok {
			return tokenLabel(value)
		}
		return scheme + " " + tokenLabel(strings.TrimLeft(credentials, " "))
	case strings.EqualFold(name, "Mcp-Session-Id"):
		return sessionLabel(value)
	}
	return value
}
