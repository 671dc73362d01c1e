package probe

import (
	"strings"
)

// challenge is one challenge of a WWW-Authenticate field.
type challenge struct {
	Scheme string            // as sent; compare case-insensitively
	Params map[string]string // names lower-cased, values unquoted
	// Repeated lists parameters that appeared twice.
	Repeated []string
}

// challenges parses WWW-Authenticate values (RFC 9110 §11.6.1):
//
//	WWW-Authenticate = 1#challenge
//	challenge   = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//	auth-param  = token BWS "=" BWS ( token / quoted-string )
//
// A comma separates both challenges and parameters: an element that
// starts with a token followed by a space begins a new challenge, one of
// the form name=value continues the current one. A token68 is kept as the
// parameter "" . Malformed elements are skipped, never repaired into
// something the server did not send.
func challenges(values []string) []challenge {
	var out []challenge
	for _, v := range values {
		for _, element := range splitOutsideQuotes(v) {
			element = strings.TrimSpace(element)
			if element == "" {
				continue
			}
			name, rest, isParam := cutParam(element)
			if !isParam {
				scheme, after, _ := strings.Cut(element, " ")
				if !isToken(scheme) {
					continue
				}
				out = append(out, challenge{Scheme: scheme, Params: map[string]string{}})
				after = strings.TrimLeft(after, " ")
				if after == "" {
					continue
				}
				name, rest, isParam = cutParam(after)
				if !isParam {
					out[len(out)-1].Params[""] = after // token68
					continue
				}
			}
			if len(out) == 0 {
				continue // a parameter before any scheme
			}
			c := &out[len(out)-1]
			value, ok := paramValue(rest)
			if !ok {
				continue
			}
			if _, dup := c.Params[name]; dup {
				c.Repeated = append(c.Repeated, name)
			}
			c.Params[name] = value
		}
	}
	return out
}

// cutParam splits `name = value`, name a token (lower-cased).
func cutParam(s string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(s, "=")
	name = strings.TrimRight(name, " \t")
	if !ok || !isToken(name) || strings.HasPrefix(value, "=") || strings.TrimSpace(value) == "" {
		return "", "", false
	}
	return strings.ToLower(name), strings.TrimLeft(value, " \t"), true
}

// paramValue reads token / quoted-string, unescaping quoted-pairs.
func paramValue(s string) (string, bool) {
	s = strings.TrimRight(s, " \t")
	if !strings.HasPrefix(s, `"`) {
		return s, isToken(s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			i++
			b.WriteByte(s[i])
		case '"':
			return b.String(), i == len(s)-1
		default:
			b.WriteByte(s[i])
		}
	}
	return "", false
}

// splitOutsideQuotes splits a field value at commas that are not inside
// a quoted-string.
func splitOutsideQuotes(v string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch {
		case quoted && v[i] == '\\':
			i++
		case v[i] == '"':
			quoted = !quoted
		case v[i] == ',' && !quoted:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// isToken reports token = 1*tchar (RFC 9110 §5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// bearer returns the Bearer challenge of an answer, if it has one.
func (r *reply) bearer() (challenge, bool) {
	if r.resp == nil {
		return challenge{}, false
	}
	for _, c := range challenges(r.resp.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return c, true
		}
	}
	return challenge{}, false
}
