// Package rule names every rule rawmcp applies: the server's answers, the
// traces, the attacks and the probe all speak of a decision by its ID, and
// this package is the only place an ID is spelled. IDs are the
// requirements rawmcp numbers, by family: T- the MCP 2025-11-25 transport,
// lifecycle and JSON-RPC, A- its authorization, H- HTTP/1.1, S- server-sent
// events, D- a deployment's hops (the probe's only). P-rules (T-P01,
// A-P08, H-P14, ...) are the profile's own, stricter choices.
package rule

// ID names one rule, e.g. "T-43".
type ID string

// Level is how binding a rule is.
type Level uint8

const (
	// MUST covers MUST, MUST NOT and REQUIRED in the cited source.
	MUST Level = iota + 1
	// SHOULD covers SHOULD, SHOULD NOT and RECOMMENDED.
	SHOULD
	// MAY: the source allows it; rawmcp chose to do it.
	MAY
	// PROFILE: mandatory in rawmcp, stricter than the cited source.
	PROFILE
)

func (l Level) String() string {
	switch l {
	case MUST:
		return "MUST"
	case SHOULD:
		return "SHOULD"
	case MAY:
		return "MAY"
	case PROFILE:
		return "PROFILE"
	}
	return "unknown"
}

// Rule is one entry of the table.
type Rule struct {
	ID     ID
	Level  Level
	Source string // the spec section or RFC the rule rests on
	Text   string // one sentence: what the rule makes the server do
}

// Text is id's sentence, or "" for an ID the table does not hold (a test
// keeps every constant in the table, each with a sentence), so
// Text() == "" is how to ask whether the table holds an id.
func (id ID) Text() string { return byID[id].Text }

// Level is id's level.
func (id ID) Level() Level { return byID[id].Level }

// Source is id's source.
func (id ID) Source() string { return byID[id].Source }

// All returns every rule, in table order: the server's, then those only
// the probe cites, then those cited that decide no answer.
func All() []Rule {
	return append(append(append([]Rule(nil), table...), clientTable...), citedTable...)
}

var byID = func() map[ID]Rule {
	m := make(map[ID]Rule, len(table)+len(clientTable)+len(citedTable))
	for _, r := range All() {
		if _, dup := m[r.ID]; dup {
			panic("rule: " + string(r.ID) + " is in the table twice")
		}
		m[r.ID] = r
	}
	return m
}()
