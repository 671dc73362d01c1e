package httpparse

import "bytes"

// Parse parses one request head at the start of buf into *req, which the
// caller reuses from request to request; parsing allocates nothing.
//
// scanned is how many bytes of this same buf prefix the previous call
// examined and found incomplete (0 on the first call): Parse resumes where
// that call stopped, so a head that arrives one byte at a time costs
// linear work in total (picohttpparser's last_len, against slowloris). The
// resume point lives in req; with another Request, or any other scanned
// value, Parse starts over at byte 0, which is slower but gives the same
// result.
//
// It returns n, the length of the head including the final CRLF CRLF; the
// body, ContentLength bytes, follows at buf[n:]. ErrNeedMore means the head
// is incomplete and no limit is crossed yet. Any other error is an *Error
// naming the first fault in the order described in the package doc; req is
// only meaningful when err is nil.
func Parse(buf []byte, scanned int, lim Limits, req *Request) (n int, err error) {
	if scanned <= 0 || scanned > len(buf) || scanned != req.scan.examined {
		req.reset()
	}
	n, err = req.scanHead(buf, &lim)
	if err == ErrNeedMore {
		req.scan.examined = len(buf)
		return 0, err
	}
	req.scan.examined = 0
	if err != nil {
		return 0, err
	}
	req.materialize(buf)
	if err := req.checkHead(lim); err != nil {
		return 0, err
	}
	return n, nil
}

// phase is where the scanner stands in the head.
type phase uint8

const (
	phaseStart     phase = iota // before the request line, which may follow one CRLF
	phaseMethod                 // in the method token
	phaseTarget                 // in the request-target
	phaseVersion                // in the HTTP-version
	phaseLineStart              // at the start of a field line or of the final empty line
	phaseName                   // in a field name
	phaseValueOWS               // after the colon, in the leading OWS
	phaseValue                  // in a field value
	phaseValueTail              // a value at its length limit: only trailing OWS may follow
)

// scanState is everything the scanner needs to continue from pos: the
// phase, the offsets of the elements begun so far, and the field count.
type scanState struct {
	examined     int // len(buf) of the call that saved this state with ErrNeedMore
	pos          int
	phase        phase
	pctOwed      uint8 // HEXDIGs still owed by a %HH escape in the target
	methodStart  int
	targetStart  int
	versionStart int
	headerStart  int // first byte after the request line's CRLF
	lineStart    int
	nameEnd      int
	valueStart   int
	nfields      int
}

func fault(status int, reason Reason, offset int) error {
	return &Error{Status: status, Reason: reason, Offset: offset}
}

func (s *scanState) needMore(p int) (int, error) {
	s.pos = p
	return 0, ErrNeedMore
}

// scanHead runs the byte-level state machine over buf from the saved
// position. Each phase spins in a tight table loop and looks at the byte
// that stopped it; every decision depends only on bytes already seen, so
// a fault is reported as soon as its byte arrives and at the same place
// whether the head came whole or in pieces.
//
// The phases stay cases of one loop rather than one reader function each
// (h11's shape): a reader per phase costs a call per phase change, four
// per field line, which BenchmarkParse measured slower.
func (r *Request) scanHead(buf []byte, lim *Limits) (int, error) {
	s := &r.scan
	p := s.pos
	maxFields := min(lim.MaxFields, MaxFieldsCap)
	for {
		switch s.phase {
		case phaseStart:
			start, err := requestLineStart(buf)
			if err != nil {
				return 0, err
			}
			s.methodStart, p, s.phase = start, start, phaseMethod

		case phaseMethod:
			// request-line = method SP request-target SP HTTP-version
			// method       = token
			// (RFC 9112 §3, §3.1); exactly one SP, nothing before (H-P02).
			end := min(len(buf), s.methodStart+lim.MaxMethod)
			for p < end && tcharSet[buf[p]] {
				p++
			}
			if p == len(buf) {
				return s.needMore(p)
			}
			switch c := buf[p]; {
			case c == ' ' && p > s.methodStart:
				p++
				s.targetStart, s.phase = p, phaseTarget
			case c == ' ':
				return 0, fault(400, ReasonInvalidRequestLine, p)
			case tcharSet[c]:
				// Longer than any method the server implements (RFC 9112 §3).
				return 0, fault(501, ReasonMethodTooLong, p)
			case c == '\n':
				return 0, fault(400, ReasonBareLF, p)
			default:
				return 0, fault(400, ReasonInvalidMethod, p)
			}

		case phaseTarget:
			if p == s.targetStart {
				if p == len(buf) {
					return s.needMore(p)
				}
				if err := targetFormFault(buf[p], p); err != nil {
					return 0, err
				}
			}
			limit := s.targetStart + lim.MaxTarget
			for p < len(buf) {
				c := buf[p]
				if s.pctOwed == 0 && pathSet[c] && p < limit {
					p++
					continue
				}
				if c == ' ' {
					break
				}
				if err := s.targetByte(c, p, limit); err != nil {
					return 0, err
				}
				p++
			}
			if p == len(buf) {
				return s.needMore(p)
			}
			if s.pctOwed != 0 {
				return 0, fault(400, ReasonInvalidPercentEscape, p)
			}
			p++
			s.versionStart, s.phase = p, phaseVersion

		case phaseVersion:
			// HTTP-version = HTTP-name "/" DIGIT "." DIGIT
			// HTTP-name    = %s"HTTP"
			// (RFC 9112 §2.3), eight bytes then CRLF: a longer run can
			// only be a malformed line, so it is refused without waiting.
			end := min(len(buf), s.versionStart+len("HTTP/1.1"))
			for p < end && buf[p] != '\r' && buf[p] != '\n' {
				p++
			}
			if p == len(buf) {
				return s.needMore(p)
			}
			switch buf[p] {
			case '\n':
				return 0, fault(400, ReasonBareLF, p)
			case '\r':
			default:
				// Nine bytes or more: "HTTP/1.10", "HTTP/1.1 " (H-P02).
				return 0, fault(400, ReasonInvalidVersion, s.versionStart)
			}
			if p+1 == len(buf) {
				return s.needMore(p)
			}
			if buf[p+1] != '\n' {
				return 0, fault(400, ReasonBareCR, p)
			}
			http10, err := checkVersion(buf[s.versionStart:p], s.versionStart)
			if err != nil {
				return 0, err
			}
			r.HTTP10 = http10
			p += 2
			s.headerStart, s.phase = p, phaseLineStart

		case phaseLineStart:
			// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5)
			if p == len(buf) {
				return s.needMore(p)
			}
			c := buf[p]
			if c == '\r' {
				// The empty line that ends the head (RFC 9112 §2.1).
				if p+1 == len(buf) {
					return s.needMore(p)
				}
				if buf[p+1] != '\n' {
					return 0, fault(400, ReasonBareCR, p)
				}
				return p + 2, nil
			}
			switch {
			case p >= s.headerStart+lim.MaxHeaderBytes:
				return 0, fault(431, ReasonHeaderSectionTooLarge, p)
			case s.nfields >= maxFields:
				return 0, fault(431, ReasonTooManyFields, p)
			case c == '\n':
				return 0, fault(400, ReasonBareLF, p)
			case isOWS(c) && s.nfields == 0:
				// RFC 9112 §2.2: reject rather than skip (H-05, H-P03).
				return 0, fault(400, ReasonWhitespaceAfterRequestLine, p)
			case isOWS(c):
				// obs-fold = OWS CRLF RWS (RFC 9112 §5.2): reject, never
				// repair (H-P03; the probe checks any server by H-19).
				return 0, fault(400, ReasonObsFold, p)
			case c == ':':
				return 0, fault(400, ReasonEmptyFieldName, p)
			}
			s.lineStart, s.phase = p, phaseName

		case phaseName:
			// field-name = token (RFC 9110 §5.1)
			budget := s.headerStart + lim.MaxHeaderBytes
			p += tokenRun(buf[p:min(len(buf), budget)]) // p <= budget, as phaseLineStart and needMore leave it
			if p == len(buf) {
				return s.needMore(p)
			}
			switch c := buf[p]; {
			case p >= budget:
				return 0, fault(431, ReasonHeaderSectionTooLarge, p)
			case c == ':':
				if err := r.noteName(buf[s.lineStart:p], s.lineStart); err != nil {
					return 0, err
				}
				s.nameEnd = p
				p++
				s.phase = phaseValueOWS
			case isOWS(c):
				// RFC 9112 §5.1: MUST reject with 400 (H-17).
				return 0, fault(400, ReasonSpaceBeforeColon, p)
			case c == '\n':
				return 0, fault(400, ReasonBareLF, p)
			case c == '\r':
				return 0, fault(400, ReasonMissingColon, p)
			default:
				return 0, fault(400, ReasonInvalidFieldName, p)
			}

		case phaseValueOWS:
			end := min(len(buf), s.headerStart+lim.MaxHeaderBytes)
			for p < end && isOWS(buf[p]) {
				p++
			}
			if p == len(buf) {
				return s.needMore(p)
			}
			s.valueStart, s.phase = p, phaseValue

		case phaseValue:
			budget := s.headerStart + lim.MaxHeaderBytes
			// max(p, ...): a MaxValue below zero must not slice backwards.
			p += valueRun(buf[p:max(p, min(len(buf), budget, s.valueStart+lim.MaxValue))])
			if p+1 < min(len(buf), budget) && buf[p] == '\r' && buf[p+1] == '\n' {
				// The usual end of a line, taken here without the calls
				// to valueStop and endFieldLine, which decide the same.
				r.addField(buf, p)
				p += 2
				continue
			}
			if p == len(buf) {
				return s.needMore(p)
			}
			if isOWS(buf[p]) {
				// Stopped at MaxValue on whitespace, which may still be
				// trailing OWS outside the value (or at the budget, which
				// phaseValueTail refuses too).
				s.phase = phaseValueTail
				continue
			}
			var err error
			if p, err = r.valueStop(buf, p, budget); err != nil {
				return 0, err
			}

		case phaseValueTail:
			budget := s.headerStart + lim.MaxHeaderBytes
			end := min(len(buf), budget)
			for p < end && isOWS(buf[p]) {
				p++
			}
			if p == len(buf) {
				return s.needMore(p)
			}
			var err error
			if p, err = r.valueStop(buf, p, budget); err != nil {
				return 0, err
			}
		}
	}
}

// requestLineStart skips the one empty line a server SHOULD ignore before
// the request line (RFC 9112 §2.2, H-04); a second one is refused, as a
// stream of empty lines would otherwise hold the connection for free.
func requestLineStart(buf []byte) (int, error) {
	switch {
	case len(buf) == 0:
		return 0, ErrNeedMore
	case buf[0] == '\n':
		return 0, fault(400, ReasonBareLF, 0)
	case buf[0] != '\r':
		return 0, nil
	case len(buf) == 1:
		return 0, ErrNeedMore
	case buf[1] != '\n':
		return 0, fault(400, ReasonBareCR, 0)
	case len(buf) == 2:
		return 0, ErrNeedMore
	case buf[2] == '\r':
		return 0, fault(400, ReasonLeadingEmptyLines, 2)
	case buf[2] == '\n':
		return 0, fault(400, ReasonBareLF, 2)
	}
	return 2, nil
}

// targetFormFault checks the first byte of the request-target: only
// origin-form starts with "/" (RFC 9112 §3.2). absolute-form, which a
// server MUST otherwise accept, authority-form and asterisk-form are all
// refused, because this server is only ever addressed directly (profile).
func targetFormFault(c byte, p int) error {
	switch c {
	case '/':
		return nil
	case ' ', '\r':
		return fault(400, ReasonInvalidRequestLine, p)
	case '\n':
		return fault(400, ReasonBareLF, p)
	}
	return fault(400, ReasonTargetNotOriginForm, p)
}

// targetByte judges a target byte outside the fast path, other than the SP
// that ends it: the length limit first (RFC 9112 §3: 414 for a target
// longer than the server will parse), then line ends, the percent-escape
// and the profile's refusals.
func (s *scanState) targetByte(c byte, p, limit int) error {
	switch {
	case p >= limit:
		return fault(414, ReasonTargetTooLong, p)
	case c == '\n':
		return fault(400, ReasonBareLF, p)
	case c == '\r':
		return fault(400, ReasonInvalidRequestLine, p)
	case s.pctOwed > 0:
		if !hexdigSet[c] {
			return fault(400, ReasonInvalidPercentEscape, p)
		}
		s.pctOwed--
	case c == '%':
		s.pctOwed = 2
	case c == '?':
		return fault(400, ReasonTargetQuery, p)
	case c == '#':
		return fault(400, ReasonTargetFragment, p)
	default:
		return fault(400, ReasonInvalidTarget, p)
	}
	return nil
}

// checkVersion accepts exactly HTTP/1.1 and HTTP/1.0, and reports which
// (true: 1.0). HTTP/1.0 is what reverse proxies such as nginx speak
// upstream by default; the server answers it as HTTP/1.1 with 1.0
// semantics (RFC 9110 §6.2). Another well-formed version is refused with
// 505 (RFC 9110 §15.6.6): a higher minor is not worth the ambiguity in a
// profile that is strict everywhere else.
func checkVersion(v []byte, offset int) (http10 bool, err error) {
	switch string(v) {
	case "HTTP/1.1":
		return false, nil
	case "HTTP/1.0":
		return true, nil
	}
	if len(v) == 8 && bytes.HasPrefix(v, []byte("HTTP/")) && isDigit(v[5]) && v[6] == '.' && isDigit(v[7]) {
		return false, fault(505, ReasonVersionNotSupported, offset)
	}
	return false, fault(400, ReasonInvalidVersion, offset)
}

// noteName records a singleton or list field the parser interprets and
// refuses a second line of a singleton (H-P05, H-16 for Host).
func (r *Request) noteName(name []byte, lineStart int) error {
	class, single := classifyName(name)
	switch class {
	case classSingleton:
		if r.singletons[single] != 0 {
			return fault(400, ReasonDuplicateField, lineStart)
		}
		r.singletons[single] = uint8(r.scan.nfields + 1)
	case classTransferEncoding:
		r.hasTE = true
	case classConnection:
		r.hasConn = true
	}
	return nil
}

// valueStop judges the byte that stopped a value loop: the end of the
// line, a forbidden byte, or a value byte past MaxValue.
func (r *Request) valueStop(buf []byte, p, budget int) (int, error) {
	switch c := buf[p]; {
	case p >= budget:
		return 0, fault(431, ReasonHeaderSectionTooLarge, p)
	case c == '\r':
		return r.endFieldLine(buf, p, budget)
	case c == '\n':
		return 0, fault(400, ReasonBareLF, p)
	case !fieldValueSet[c]:
		// CTLs other than HTAB, DEL (RFC 9110 §5.5, H-20, H-P04).
		return 0, fault(400, ReasonInvalidFieldValue, p)
	default:
		return 0, fault(431, ReasonFieldValueTooLong, p)
	}
}

// endFieldLine takes the CRLF at p and records the field, its value
// trimmed of trailing OWS (RFC 9112 §5.1).
func (r *Request) endFieldLine(buf []byte, p, budget int) (int, error) {
	s := &r.scan
	if p+1 == len(buf) {
		return s.needMore(p)
	}
	if buf[p+1] != '\n' {
		return 0, fault(400, ReasonBareCR, p)
	}
	if p+1 >= budget {
		return 0, fault(431, ReasonHeaderSectionTooLarge, p+1)
	}
	r.addField(buf, p)
	return p + 2, nil
}

// addField records the field line whose CRLF is at p, its value trimmed
// of trailing OWS, and moves on to the next line.
func (r *Request) addField(buf []byte, p int) {
	s := &r.scan
	end := p
	for end > s.valueStart && isOWS(buf[end-1]) {
		end--
	}
	r.spans[s.nfields] = fieldSpan{s.lineStart, s.nameEnd, s.valueStart, end}
	s.nfields++
	s.phase = phaseLineStart
}

// materialize cuts the slices out of the final buffer. Each is capped at
// its length so an append by the caller cannot overwrite the next bytes.
func (r *Request) materialize(buf []byte) {
	s := &r.scan
	methodEnd, pathEnd := s.targetStart-1, s.versionStart-1
	r.MethodToken = buf[s.methodStart:methodEnd:methodEnd]
	r.Path = buf[s.targetStart:pathEnd:pathEnd]
	r.Method = lookupMethod(r.MethodToken)
	for i, sp := range r.spans[:s.nfields] {
		// Field by field, not a composite literal: that one is built on
		// the stack and copied, and the copy's wide loads stall on the
		// narrow stores just made.
		f := &r.fields[i]
		f.Name = buf[sp.nameStart:sp.nameEnd:sp.nameEnd]
		f.Value = buf[sp.valueStart:sp.valueEnd:sp.valueEnd]
	}
	r.Fields = r.fields[:s.nfields]
}
