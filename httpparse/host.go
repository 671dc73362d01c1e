package httpparse

import "bytes"

// validHost reports whether v is a Host field value (RFC 9110 §7.2,
// RFC 3986 §3.2.2, §3.2.3):
//
//	Host     = uri-host [ ":" port ]
//	uri-host = IP-literal / IPv4address / reg-name
//	port     = *DIGIT
//
// reg-name may be empty in RFC 3986; the profile refuses an empty host,
// since the server's Host allowlist (T-P15) can never match one. It also
// requires the port, when the colon is there, to be a 16-bit number: an
// empty or longer digit string names no TCP port.
func validHost(v []byte) bool {
	if len(v) > 0 && v[0] == '[' {
		literal, rest, closed := bytes.Cut(v[1:], []byte("]"))
		if !closed || !validIPLiteral(literal) {
			return false
		}
		port, hasPort := bytes.CutPrefix(rest, []byte(":"))
		return len(rest) == 0 || hasPort && validPort(port)
	}
	host, port, hasPort := bytes.Cut(v, []byte(":"))
	if hasPort && !validPort(port) {
		return false
	}
	return len(host) > 0 && validRegName(host)
}

// validRegName checks
//
//	reg-name = *( unreserved / pct-encoded / sub-delims )
//
// which also covers IPv4address, whose bytes are all unreserved: "999.1.1.1"
// is a valid (if unresolvable) reg-name, so no separate IPv4 branch can
// change the outcome.
func validRegName(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch {
		case regNameSet[b[i]]:
		case b[i] == '%' && i+2 < len(b) && hexdigSet[b[i+1]] && hexdigSet[b[i+2]]:
			i += 2
		default:
			return false
		}
	}
	return true
}

func validPort(b []byte) bool {
	if len(b) == 0 || len(b) > len("65535") {
		return false
	}
	n := 0
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n <= 65535
}

// validIPLiteral checks what is between the brackets:
//
//	IP-literal = "[" ( IPv6address / IPvFuture  ) "]"
//	IPvFuture  = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
//
// RFC 6874 zone identifiers ("%25eth0") are not accepted: a zone means
// nothing to a peer.
func validIPLiteral(b []byte) bool {
	if len(b) > 0 && (b[0] == 'v' || b[0] == 'V') {
		return validIPvFuture(b[1:])
	}
	return validIPv6(b)
}

func validIPvFuture(b []byte) bool {
	version, rest, dotted := bytes.Cut(b, []byte("."))
	if !dotted || len(version) == 0 || len(rest) == 0 {
		return false
	}
	for _, c := range version {
		if !hexdigSet[c] {
			return false
		}
	}
	for _, c := range rest {
		if !ipvFutureSet[c] {
			return false
		}
	}
	return true
}

// validIPv6 checks
//
//	IPv6address =                            6( h16 ":" ) ls32
//	            /                       "::" 5( h16 ":" ) ls32
//	            / [               h16 ] "::" 4( h16 ":" ) ls32
//	            / [ *1( h16 ":" ) h16 ] "::" 3( h16 ":" ) ls32
//	            / [ *2( h16 ":" ) h16 ] "::" 2( h16 ":" ) ls32
//	            / [ *3( h16 ":" ) h16 ] "::"    h16 ":"   ls32
//	            / [ *4( h16 ":" ) h16 ] "::"              ls32
//	            / [ *5( h16 ":" ) h16 ] "::"              h16
//	            / [ *6( h16 ":" ) h16 ] "::"
//	h16         = 1*4HEXDIG
//	ls32        = ( h16 ":" h16 ) / IPv4address
//
// in its equivalent counting form: groups of h16 separated by single
// colons, at most one "::" standing for at least one zero group, an
// IPv4address only as the last piece counting for two groups; eight
// groups without "::", at most seven with it.
func validIPv6(b []byte) bool {
	groups, elided, i := 0, false, 0
	if bytes.HasPrefix(b, []byte("::")) {
		elided, i = true, 2
		if i == len(b) {
			return true
		}
	}
	for {
		end := i
		for end < len(b) && b[end] != ':' {
			end++
		}
		piece := b[i:end]
		if end == len(b) && bytes.Contains(piece, []byte(".")) {
			if !validIPv4(piece) {
				return false
			}
			groups += 2
			break
		}
		if !validH16(piece) {
			return false
		}
		groups++
		if end == len(b) {
			break
		}
		if end+1 < len(b) && b[end+1] == ':' {
			if elided {
				return false
			}
			elided, i = true, end+2
			if i == len(b) {
				break
			}
			continue
		}
		i = end + 1
		if i == len(b) {
			return false
		}
	}
	if elided {
		return groups <= 7
	}
	return groups == 8
}

func validH16(b []byte) bool {
	if len(b) == 0 || len(b) > 4 {
		return false
	}
	for _, c := range b {
		if !hexdigSet[c] {
			return false
		}
	}
	return true
}

// validIPv4 checks
//
//	IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet
//	dec-octet   = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT / "25" %x30-35
//
// that is 0-255 without leading zeros.
func validIPv4(b []byte) bool {
	for octet := range 4 {
		end := 0
		for end < len(b) && isDigit(b[end]) {
			end++
		}
		if end == 0 || end > 3 || end > 1 && b[0] == '0' {
			return false
		}
		n := 0
		for _, c := range b[:end] {
			n = n*10 + int(c-'0')
		}
		if n > 255 {
			return false
		}
		b = b[end:]
		if octet < 3 {
			if len(b) == 0 || b[0] != '.' {
				return false
			}
			b = b[1:]
		}
	}
	return len(b) == 0
}
