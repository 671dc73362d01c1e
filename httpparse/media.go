package httpparse

// Media types and content negotiation (RFC 9110 §8.3.1, §12.4.2, §12.5.1):
//
//	media-type      = type "/" subtype parameters
//	type            = token
//	subtype         = token
//	parameters      = *( OWS ";" OWS [ parameter ] )
//	parameter       = parameter-name "=" parameter-value
//	parameter-name  = token
//	parameter-value = ( token / quoted-string )
//
//	Accept      = #( media-range [ weight ] )
//	media-range = ( "*/*" / ( type "/" "*" ) / ( type "/" subtype ) ) parameters
//	weight      = OWS ";" OWS "q=" qvalue
//	qvalue      = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
//
// Types, subtypes, parameter names and (here) parameter values compare
// case-insensitively; no whitespace is allowed around "=".

import "bytes"

// MediaType is a media type parsed once: the server asks the same few
// of every request (Accepts, AcceptsBoth, ContentTypeIs), and parsing its
// own constants per request would cost more than the checks.
type MediaType struct {
	text             string
	typ, sub, params []byte
	valid            bool // type "/" subtype with well-formed parameters
	plain            bool // token "/" token: no wildcard, no parameters
}

// NewMediaType parses s, a "type/subtype" with optional parameters. A
// malformed s is kept as one that no request admits or names.
func NewMediaType(s string) MediaType {
	m := MediaType{text: s, plain: plainMediaType(s)}
	m.typ, m.sub, m.params, m.valid = parseMediaType([]byte(s))
	return m
}

// Accepts reports whether the request's Accept lines, taken together as
// one list (RFC 9110 §5.3), admit m. The most specific matching range
// decides (RFC 9110 §12.5.1): type/subtype with more parameters over
// fewer, then type/*, then */*; a range with parameters matches only a
// media type that carries the same ones. Between equally specific ranges
// the lower weight wins, so a q=0 is never outvoted by a repetition. q=0
// excludes (H-53). An element that does not parse admits nothing and the
// rest still count.
//
// A request without Accept admits nothing: RFC 9110 reads it as "anything
// goes", but the profile requires clients to list the types they take and
// answers 406 (T-P02). A malformed m is admitted by nothing either.
func (r *Request) Accepts(m *MediaType) bool {
	w := [1]acceptWant{{m: m}}
	r.scanAccept(w[:])
	return w[0].admitted()
}

// AcceptsBoth is Accepts for two media types at once, in one pass over the
// Accept lines: the answer for each is what Accepts gives for it alone.
func (r *Request) AcceptsBoth(a, b *MediaType) (okA, okB bool) {
	if r.acceptsBothLiterally(a, b) {
		return true, true
	}
	w := [2]acceptWant{{m: a}, {m: b}}
	r.scanAccept(w[:])
	return w[0].admitted(), w[1].admitted()
}

// acceptsBothLiterally is AcceptsBoth's shortcut for what nearly every
// client sends: one Accept line that is exactly "a, b" or "b, a", with
// plain type/subtype pairs and no parameters. Such a list admits both at
// weight 1 whatever else the rules say, so the ranges need no parsing; any
// other list, and any other spelling of this one, takes the full scan.
func (r *Request) acceptsBothLiterally(a, b *MediaType) bool {
	if !a.plain || !b.plain {
		return false
	}
	var value []byte
	for _, f := range r.Fields {
		if equalFold(f.Name, "accept") {
			if value != nil {
				return false
			}
			value = f.Value
		}
	}
	return isPair(value, a.text, b.text) || isPair(value, b.text, a.text)
}

// isPair reports whether v is exactly first, ", ", second.
func isPair(v []byte, first, second string) bool {
	return len(v) == len(first)+2+len(second) &&
		string(v[:len(first)]) == first && string(v[len(first):len(first)+2]) == ", " &&
		string(v[len(first)+2:]) == second
}

// plainMediaType reports whether s is token "/" token, neither "*": a
// media type without parameters that, listed as a range, matches itself
// and nothing more specific.
func plainMediaType(s string) bool {
	slash := -1
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '/' && slash < 0:
			slash = i
		case s[i] == '*' || !tcharSet[s[i]]:
			return false
		}
	}
	return slash > 0 && slash < len(s)-1
}

// acceptWant is one media type asked of the Accept list, and the most
// specific range seen for it so far.
type acceptWant struct {
	m     *MediaType
	found bool
	best  rangeRank
	bestQ int
}

// consider lets one parsed range vote for w.
func (w *acceptWant) consider(rg *acceptRange) {
	if !w.m.valid || !rg.matches(w.m.typ, w.m.sub) || !rg.paramsIn(w.m.params) {
		return
	}
	switch {
	case !w.found || w.best.less(rg.rank):
		w.found, w.best, w.bestQ = true, rg.rank, rg.q
	case rg.rank == w.best:
		w.bestQ = min(w.bestQ, rg.q)
	}
}

func (w *acceptWant) admitted() bool { return w.found && w.bestQ > 0 }

// scanAccept parses every range of every Accept line once and lets each
// want consider it.
func (r *Request) scanAccept(wants []acceptWant) {
	for _, f := range r.Fields {
		if !equalFold(f.Name, "accept") {
			continue
		}
		for v := f.Value; len(v) > 0; {
			var rg acceptRange
			rg, v = nextAcceptRange(v)
			if !rg.ok {
				continue
			}
			for i := range wants {
				wants[i].consider(&rg)
			}
		}
	}
}

// ContentTypeIs reports whether a Content-Type value names m ("type/subtype",
// compared case-insensitively; m's parameters are not asked for).
// Parameters may follow; a charset parameter, if present, must be utf-8
// (case-insensitive, token or quoted-string), since JSON is UTF-8 (RFC 8259
// §8.1). A malformed value, or a malformed m, is false (T-P01: 415).
func ContentTypeIs(value []byte, m *MediaType) bool {
	if m.plain && string(value) == m.text {
		return true // what nearly every client sends, with nothing to parse
	}
	typ, sub, params, ok := parseMediaType(value)
	if !ok || !equalFold(typ, m.typ) || !equalFold(sub, m.sub) { // a malformed m has no type
		return false
	}
	for i := 0; ; {
		var p param
		p, i = nextParam(params, i)
		switch {
		case p.kind == paramNone:
			return i == len(params)
		case p.kind == paramBad:
			return false
		case p.kind == paramOK && equalFold(p.name, "charset") && !paramValueEqualFold(p.value, []byte("utf-8")):
			return false
		}
	}
}

// parseMediaType splits type "/" subtype from the raw parameter section,
// which it checks as a whole.
func parseMediaType(v []byte) (typ, sub, params []byte, ok bool) {
	typ, i := takeToken(v, 0)
	if len(typ) == 0 || i == len(v) || v[i] != '/' {
		return nil, nil, nil, false
	}
	sub, i = takeToken(v, i+1)
	if len(sub) == 0 {
		return nil, nil, nil, false
	}
	params = v[i:]
	for j := 0; ; {
		var p param
		p, j = nextParam(params, j)
		if p.kind == paramNone {
			return typ, sub, params, j == len(params)
		}
		if p.kind == paramBad {
			return nil, nil, nil, false
		}
	}
}

// rangeRank orders media ranges by specificity (RFC 9110 §12.5.1).
type rangeRank struct {
	kind    int // 0 for */*, 1 for type/*, 2 for type/subtype
	nparams int
}

func (a rangeRank) less(b rangeRank) bool {
	return a.kind < b.kind || a.kind == b.kind && a.nparams < b.nparams
}

// acceptRange is one element of an Accept list.
type acceptRange struct {
	ok       bool
	typ, sub []byte
	params   []byte // raw parameter section before the weight
	rank     rangeRank
	q        int // weight in thousandths
}

func (rg *acceptRange) matches(typ, sub []byte) bool {
	return (rg.rank.kind == 0 || equalFold(rg.typ, typ)) &&
		(rg.rank.kind < 2 || equalFold(rg.sub, sub))
}

// paramsIn reports whether every parameter of the range appears, with an
// equal value, among have.
func (rg *acceptRange) paramsIn(have []byte) bool {
	for i := 0; ; {
		var p param
		p, i = nextParam(rg.params, i)
		switch p.kind {
		case paramNone, paramBad:
			return true
		case paramOK:
			if !hasParam(have, p) {
				return false
			}
		}
	}
}

func hasParam(params []byte, want param) bool {
	for i := 0; ; {
		var p param
		p, i = nextParam(params, i)
		switch p.kind {
		case paramNone, paramBad:
			return false
		case paramOK:
			if equalFold(p.name, want.name) && paramValueEqualFold(p.value, want.value) {
				return true
			}
		}
	}
}

// nextAcceptRange parses the element at the start of v and returns the
// rest of the list after its comma. An empty or malformed element comes
// back with ok false and the rest starts past the next comma outside a
// quoted-string (RFC 9110 §5.6.1: empty elements are skipped).
func nextAcceptRange(v []byte) (acceptRange, []byte) {
	rg, i := parseAcceptRange(v, skipOWS(v, 0))
	if rg.ok {
		return rg, v[i:]
	}
	return rg, v[skipElement(v, i):]
}

// parseAcceptRange parses media-range [ weight ] at i, then the comma or
// the end of the value.
func parseAcceptRange(v []byte, i int) (acceptRange, int) {
	var rg acceptRange
	rg.typ, i = takeToken(v, i)
	if len(rg.typ) == 0 || i == len(v) || v[i] != '/' {
		return rg, i
	}
	rg.sub, i = takeToken(v, i+1)
	switch {
	case len(rg.sub) == 0:
		return rg, i
	case string(rg.typ) == "*" && string(rg.sub) != "*":
		return rg, i // "*/json" is no media-range
	case string(rg.typ) == "*":
		rg.rank.kind = 0
	case string(rg.sub) == "*":
		rg.rank.kind = 1
	default:
		rg.rank.kind = 2
	}
	paramsStart, weighted := i, false
	rg.q = 1000
	for {
		p, next := nextParam(v, i)
		switch {
		case p.kind == paramNone:
			if next < len(v) && v[next] != ',' {
				return rg, next
			}
			if !weighted {
				rg.params = v[paramsStart:i]
			}
			rg.ok = true
			return rg, min(next+1, len(v))
		case p.kind == paramBad, weighted:
			return rg, next // the weight must end the element
		case p.kind == paramOK && equalFold(p.name, "q"):
			q, ok := parseQvalue(p.value)
			if !ok {
				return rg, next
			}
			rg.q, rg.params, weighted = q, v[paramsStart:i], true
		case p.kind == paramOK:
			rg.rank.nparams++
		}
		i = next
	}
}

// parseQvalue returns the weight in thousandths; a quoted-string is not a
// qvalue.
func parseQvalue(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > len("0.000") || (v[0] != '0' && v[0] != '1') {
		return 0, false
	}
	if len(v) > 1 && (v[1] != '.') {
		return 0, false
	}
	q := int(v[0]-'0') * 1000
	scale := 100
	for _, c := range v[min(2, len(v)):] {
		if !isDigit(c) || v[0] == '1' && c != '0' {
			return 0, false
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	return q, true
}

// skipElement returns the index just past the next comma at or after i
// that is not inside a quoted-string, or len(v).
func skipElement(v []byte, i int) int {
	for ; i < len(v); i++ {
		switch v[i] {
		case ',':
			return i + 1
		case '"':
			end, ok := quotedStringEnd(v, i)
			if !ok {
				return len(v)
			}
			i = end - 1
		}
	}
	return len(v)
}

type paramKind uint8

const (
	paramNone  paramKind = iota // no ";" here: the parameters end
	paramEmpty                  // ";" with no parameter, which the grammar allows
	paramOK
	paramBad
)

type param struct {
	kind        paramKind
	name, value []byte // value raw: a token or a quoted-string with its quotes
}

// nextParam reads OWS ";" OWS [ parameter ] at i. With paramNone the index
// returned is past the OWS, at the byte that is not ";".
func nextParam(v []byte, i int) (param, int) {
	i = skipOWS(v, i)
	if i == len(v) || v[i] != ';' {
		return param{kind: paramNone}, i
	}
	i = skipOWS(v, i+1)
	if i == len(v) || v[i] == ';' || v[i] == ',' {
		return param{kind: paramEmpty}, i
	}
	var p param
	p.name, i = takeToken(v, i)
	if len(p.name) == 0 || i == len(v) || v[i] != '=' {
		return param{kind: paramBad}, i
	}
	i++
	if i < len(v) && v[i] == '"' {
		end, ok := quotedStringEnd(v, i)
		if !ok {
			return param{kind: paramBad}, len(v)
		}
		p.value, i = v[i:end], end
	} else if p.value, i = takeToken(v, i); len(p.value) == 0 {
		return param{kind: paramBad}, i
	}
	p.kind = paramOK
	return p, i
}

// paramValueEqualFold compares two parameter values after removing quotes
// and quoted-pair escapes (RFC 9110 §5.6.6: token and quoted-string forms
// are equivalent; H-56), ignoring ASCII case.
func paramValueEqualFold(a, b []byte) bool {
	ra, rb := unquoter{v: a}, unquoter{v: b}
	for {
		ca, okA := ra.next()
		cb, okB := rb.next()
		if !okA || !okB {
			return okA == okB
		}
		if lowerASCII(ca) != lowerASCII(cb) {
			return false
		}
	}
}

// unquoter yields the bytes a well-formed token or quoted-string stands
// for.
type unquoter struct {
	v      []byte
	i      int
	inited bool
	quoted bool
}

func (u *unquoter) next() (byte, bool) {
	if !u.inited {
		u.inited = true
		if u.quoted = bytes.HasPrefix(u.v, []byte(`"`)); u.quoted {
			u.v = u.v[1 : len(u.v)-1]
		}
	}
	if u.i == len(u.v) {
		return 0, false
	}
	c := u.v[u.i]
	if u.quoted && c == '\\' {
		u.i++
		c = u.v[u.i]
	}
	u.i++
	return c, true
}
