package httpparse

import (
	"bytes"
	"math"
)

// checkHead runs the checks that need the whole header section (RFC 9110
// §5.3: no acting on a request before all of its lines are in), in the
// order the package doc gives: Host, Transfer-Encoding, Content-Length,
// Connection, Expect, body size.
func (r *Request) checkHead(lim Limits) error {
	host, ok := r.Get(SingletonHost)
	if !ok {
		// RFC 9112 §3.2: MUST answer 400 to an HTTP/1.1 request without
		// Host (H-15). HTTP/1.0 may omit it, but not here: without Host
		// the DNS-rebinding allowlist has nothing to check.
		return fault(400, ReasonMissingHost, r.scan.headerStart)
	}
	if !validHost(host) {
		return fault(400, ReasonInvalidHost, r.lineOffset(SingletonHost))
	}
	if r.hasTE {
		if err := r.checkTransferEncoding(); err != nil {
			return err
		}
	}
	if v, ok := r.Get(SingletonContentLength); ok {
		n, ok := parseContentLength(v)
		if !ok {
			return fault(400, ReasonInvalidContentLength, r.lineOffset(SingletonContentLength))
		}
		r.ContentLength = n
	}
	if r.hasConn {
		if err := r.checkConnection(); err != nil {
			return err
		}
	}
	if v, ok := r.Get(SingletonExpect); ok {
		// RFC 9110 §10.1.1: 100-continue is the only expectation defined;
		// others MAY get 417 (H-52).
		if !equalFold(v, "100-continue") {
			return fault(417, ReasonUnsupportedExpectation, r.lineOffset(SingletonExpect))
		}
		// A 100-continue in an HTTP/1.0 request MUST be ignored (RFC
		// 9110 §10.1.1, H-51): a 1.0 client cannot read an interim 100.
		r.ExpectContinue = !r.HTTP10
	}
	if r.ContentLength > lim.MaxBody {
		// Decided from the head alone, so the body is never read: 413
		// for a fixed limit (H-P07, H-36).
		return fault(413, ReasonBodyTooLarge, r.lineOffset(SingletonContentLength))
	}
	return nil
}

// lineOffset is where the singleton's line starts, for an error's Offset.
func (r *Request) lineOffset(s Singleton) int {
	if r.singletons[s] == 0 {
		return r.scan.headerStart
	}
	return r.spans[r.singletons[s]-1].nameStart
}

// parseContentLength parses
//
//	Content-Length = 1*DIGIT
//
// (RFC 9110 §8.6): no sign, no spaces, no comma list even of equal values
// (the MAY-collapse of RFC 9112 §6.3 is not taken, H-25), and a value past
// int64 is refused rather than wrapped (H-24).
func parseContentLength(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if !isDigit(c) {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// checkTransferEncoding refuses every Transfer-Encoding: this server frames
// request bodies by Content-Length only, as net/http's transfer.go keeps to
// one coding ("strict and simple"). The list is
//
//	Transfer-Encoding = #transfer-coding
//	transfer-coding   = token *( OWS ";" OWS transfer-parameter )
//
// with repeated lines forming one list (RFC 9110 §5.3) and names compared
// case-insensitively (RFC 9112 §7). The status says why (RFC 9112 §6.1,
// §6.3, H-P06):
//
//   - with Content-Length as well: 400 (H-26), the smuggling shape;
//   - a list that is malformed, or whose final coding is not a bare
//     "chunked", or that names chunked twice: 400 (H-27);
//   - otherwise, a well-framed chunked body: 501, the coding not
//     implemented (H-28).
func (r *Request) checkTransferEncoding() error {
	first := -1
	var lastCoding []byte
	lastHasParams, chunkedBeforeLast := false, false
	for i, f := range r.Fields {
		if !equalFold(f.Name, "transfer-encoding") {
			continue
		}
		if first < 0 {
			first = i
			if _, ok := r.Get(SingletonContentLength); ok {
				return fault(400, ReasonTransferEncodingWithContentLength, r.spans[i].nameStart)
			}
		}
		for elem := range listElements(f.Value) {
			coding, _, hasParams := bytes.Cut(elem, []byte(";"))
			coding = trimOWS(coding)
			if !isToken(coding) {
				return fault(400, ReasonInvalidTransferEncoding, r.spans[i].nameStart)
			}
			if equalFold(lastCoding, "chunked") {
				chunkedBeforeLast = true
			}
			lastCoding, lastHasParams = coding, hasParams
		}
	}
	offset := r.spans[first].nameStart
	isChunked := equalFold(lastCoding, "chunked")
	switch {
	case lastCoding == nil, isChunked && lastHasParams:
		// chunked has no parameters (RFC 9112 §7.1).
		return fault(400, ReasonInvalidTransferEncoding, offset)
	case chunkedBeforeLast, !isChunked:
		return fault(400, ReasonChunkedNotFinal, offset)
	}
	return fault(501, ReasonTransferEncodingNotImplemented, offset)
}

// checkConnection reads the connection options (RFC 9110 §7.6.1):
//
//	Connection        = #connection-option
//	connection-option = token
//
// case-insensitively; "close" ends the connection after the response
// (RFC 9112 §9.6, H-37).
func (r *Request) checkConnection() error {
	for i, f := range r.Fields {
		if !equalFold(f.Name, "connection") {
			continue
		}
		for opt := range listElements(f.Value) {
			if !isToken(opt) {
				return fault(400, ReasonInvalidConnection, r.spans[i].nameStart)
			}
			if equalFold(opt, "close") {
				r.Close = true
			}
		}
	}
	return nil
}
