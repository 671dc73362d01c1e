package probe

import (
	"bytes"
	"embed"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"

	"rawmcp/wire/client"
)

// The specification's JSON schema of each revision the probe speaks, as
// published in github.com/modelcontextprotocol/modelcontextprotocol at
// schemaCommit (schema/<revision>/schema.json), kept byte for byte in
// testdata/schema/<revision>.json; TestPinnedSchemas holds their digests.
//
//go:embed testdata/schema/2025-11-25.json testdata/schema/2026-07-28.json
var schemaFiles embed.FS

// schemaCommit is the specification repository's commit the schemas are
// taken from (2026-08-22).
const schemaCommit = "b0f60ba5409db7a6582440a7b473cc0398890f15"

// schemaRevisions are the revisions with a pinned schema.
var schemaRevisions = []string{protocolVersion, modernVersion}

// revisionSchema is a revision's compiled schema and what the checks read
// of it: which definition a method's request, notification or result is,
// and which error definition a code has.
type revisionSchema struct {
	*jsonSchema
	methodDefs map[string]string // "tools/list" → "ListToolsRequest"
	resultDefs map[string]string // "tools/list" → "ListToolsResult"
	errorDefs  map[int]string    // -32022 → "UnsupportedProtocolVersionError"
}

// schemas compiles the pinned schemas once, the first time a run needs
// them.
var schemas = sync.OnceValues(func() (map[string]*revisionSchema, error) {
	out := map[string]*revisionSchema{}
	for _, rev := range schemaRevisions {
		doc, err := schemaFiles.ReadFile("testdata/schema/" + rev + ".json")
		if err != nil {
			return nil, err
		}
		s, err := compileSchema(doc)
		if err != nil {
			return nil, err
		}
		out[rev] = indexSchema(s, doc)
	}
	return out, nil
})

// unions are the definitions that gather others (ClientRequest, …): a
// method is looked up in the definition that declares it.
var unions = []string{"ClientRequest", "ClientNotification", "ClientResult", "ClientMessage",
	"ServerRequest", "ServerNotification", "ServerResult", "ServerMessage"}

// indexSchema finds, in the document, the definition of each method (its
// method member's const), the result of each request (XRequest's is
// XResult, or EmptyResult when there is none), and the error definition
// of each code (its error's code const), as the official suite does.
func indexSchema(s *jsonSchema, doc []byte) *revisionSchema {
	var raw struct {
		Defs map[string]struct {
			Properties struct {
				Method struct {
					Const *string `json:"const"`
				} `json:"method"`
				Error struct {
					AllOf []struct {
						Properties struct {
							Code struct {
								Const *int `json:"const"`
							} `json:"code"`
						} `json:"properties"`
					} `json:"allOf"`
				} `json:"error"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	json.Unmarshal(doc, &raw)
	rs := &revisionSchema{jsonSchema: s, methodDefs: map[string]string{}, resultDefs: map[string]string{}, errorDefs: map[int]string{}}
	names := make([]string, 0, len(raw.Defs))
	for name := range raw.Defs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if slices.Contains(unions, name) {
			continue
		}
		d := raw.Defs[name]
		if m := d.Properties.Method.Const; m != nil {
			rs.methodDefs[*m] = name
			if base, ok := strings.CutSuffix(name, "Request"); ok {
				rs.resultDefs[*m] = "EmptyResult"
				if _, ok := s.defs[base+"Result"]; ok {
					rs.resultDefs[*m] = base + "Result"
				}
			}
		}
		for _, part := range d.Properties.Error.AllOf {
			if c := part.Properties.Code.Const; c != nil {
				rs.errorDefs[*c] = name
			}
		}
	}
	return rs
}

// schemaNames are the pinned schemas a run's answers were checked
// against, as -json names them: one per revision the target speaks, or
// none when JR-11 did not run.
func schemaNames(r *Report) []string {
	out := []string{}
	for _, res := range r.Results {
		if res.Check.ID != jr11.ID || res.Verdict == Skip {
			continue
		}
		for _, rev := range r.Revisions {
			out = append(out, "github.com/modelcontextprotocol/modelcontextprotocol@"+schemaCommit[:12]+" schema/"+rev+"/schema.json")
		}
	}
	return out
}

// wireLog is every JSON-RPC message a run received, with what it
// answered: record notes each answer as the runner records it, so the
// schema scan sees the preflight's and the runner's own exchanges too.
type wireLog struct {
	mu      sync.Mutex
	answers []wireAnswer
}

// wireAnswer is one answer's JSON-RPC messages and the request they
// answer: its method and id, and whether it claimed 2026-07-28 (in its
// MCP-Protocol-Version or its _meta).
type wireAnswer struct {
	check    string
	method   string
	id       string
	modern   bool
	messages [][]byte
}

// note keeps the JSON-RPC messages of an answer to raw, if it has any.
func (l *wireLog) note(check string, raw []byte, r *reply) {
	msgs := rpcMessages(r)
	if len(msgs) == 0 {
		return
	}
	a := wireAnswer{check: check, messages: msgs, modern: requestField(raw, "MCP-Protocol-Version") == modernVersion}
	if _, body, ok := bytes.Cut(raw, []byte("\r\n\r\n")); ok && len(body) <= scanResponse {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) == nil {
			a.method, a.id = req.Method, string(req.ID)
			a.modern = a.modern || string(req.Params.Meta[metaVersion]) == `"`+modernVersion+`"`
		}
	}
	l.mu.Lock()
	l.answers = append(l.answers, a)
	l.mu.Unlock()
}

func (l *wireLog) snapshot() []wireAnswer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.answers)
}

// rpcMessages are the JSON-RPC messages of an answer declared JSON or an
// event stream: each a JSON object with a jsonrpc, method or result
// member, or an error object (an OAuth error body's error is a string).
func rpcMessages(r *reply) [][]byte {
	if r.resp == nil {
		return nil
	}
	var parts [][]byte
	body := r.resp.Body[:min(len(r.resp.Body), scanResponse)]
	switch mt := r.mediaType(); {
	case mt == "text/event-stream":
		for _, ev := range client.Events(body) {
			parts = append(parts, []byte(ev.Data))
		}
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) == nil {
			for _, m := range batch {
				parts = append(parts, m)
			}
		} else {
			parts = append(parts, bytes.Clone(body))
		}
	}
	var out [][]byte
	for _, p := range parts {
		var m map[string]json.RawMessage
		if json.Unmarshal(p, &m) != nil {
			continue
		}
		_, rpc := m["jsonrpc"]
		_, method := m["method"]
		_, result := m["result"]
		if rpc || method || result || bytes.HasPrefix(bytes.TrimSpace(m["error"]), []byte("{")) {
			out = append(out, p)
		}
	}
	return out
}

// jrGroup's schema check: JR-11.
var jr11 = Check{ID: "JR-11", Level: Must, Source: "MCP Basic §Messages and §Schema (the schema is the source of truth for every message); schema.json of 2025-11-25 and 2026-07-28 at " + "modelcontextprotocol@b0f60ba5",
	Section: "MCP 2025-11-25 and 2026-07-28 Basic §Schema", Keyword: "MUST", Binds: Server,
	Title:  "Every message matches the revision's schema",
	Sends:  "nothing: checks each JSON-RPC message received before the scans against the schema.json of the revision it was answered under",
	Passes: "each valid for the definition of its method, result or error code; reported once per definition, with the JSON path and the rule; format not asserted (the suite asserts uri)",
	Fix:    "Build every message in the shape the revision's schema.json gives it: the report names the definition, the JSON path and the rule broken. A result assembled by hand, a field renamed or left out, or an id of null are the usual causes.",
	Link:   "https://modelcontextprotocol.io/specification/2025-11-25/basic#schema",
	phase:  phaseScan, run: runJR11}

func runJR11(t *checkRun) outcome {
	schemas, err := schemas()
	if err != nil {
		return t.errored("the pinned schemas do not compile: %v", err)
	}
	type broken struct {
		def, revision, where string
		first                violation
		count                int
	}
	var found []*broken
	byKey := map[string]*broken{}
	counted := map[string]int{}
	// A legacy answer is judged by the schema of the version the target
	// negotiated (2025-11-25's when a run without the token never learnt
	// it); one with no pinned schema is counted, not judged.
	legacy := t.p.version
	if legacy == "" {
		legacy = protocolVersion
	}
	unpinned := 0
	for _, a := range t.p.wire.snapshot() {
		rev := legacy
		if a.modern && t.p.modern {
			rev = modernVersion
		}
		s := schemas[rev]
		if s == nil {
			unpinned += len(a.messages)
			continue
		}
		for _, m := range a.messages {
			counted[rev]++
			def, vs := s.check(m, a)
			if len(vs) == 0 {
				continue
			}
			key := rev + " " + def
			if b := byKey[key]; b != nil {
				b.count++
				continue
			}
			where := a.check
			if a.method != "" {
				where = a.method + " in " + a.check
			}
			b := &broken{def: def, revision: rev, where: where, first: vs[0], count: 1}
			byKey[key] = b
			found = append(found, b)
		}
	}
	checked := 0
	var per []string
	for _, rev := range schemaRevisions {
		if counted[rev] > 0 {
			checked += counted[rev]
			per = append(per, strconv.Itoa(counted[rev])+" against "+rev+"'s")
		}
	}
	if checked == 0 {
		if unpinned > 0 {
			return t.skip("%s answered under MCP %s, whose schema is not pinned (the probe holds those of %s): none checked", plural(unpinned, "message"), legacy, joinAnd(schemaRevisions))
		}
		return t.skip("no JSON-RPC message was received before the scan")
	}
	if unpinned > 0 {
		per = append(per, strconv.Itoa(unpinned)+" answered under "+legacy+", whose schema is not pinned, unchecked")
	}
	if len(found) > 0 {
		var parts, actual []string
		for _, b := range found {
			parts = append(parts, b.def+" ("+b.revision+"): "+b.first.String()+" ("+plural(b.count, "message")+", the first answering "+b.where+")")
			actual = append(actual, b.def+" "+b.first.String())
		}
		verb := "breaks"
		if len(found) > 1 {
			verb = "break"
		}
		return t.unmet("%s %s the schema: %s", plural(len(found), "message type"), verb, strings.Join(parts, "; ")).
			with("every message valid for its definition in schema.json", strings.Join(actual, "; "))
	}
	return t.pass("%s valid: %s schema", plural(checked, "message"), joinAnd(per))
}

// check validates one message, as the official suite does: a message
// with a method against its method's definition (or the generic request
// or notification); an error against its code's definition (or the
// generic error response); a result against the result definition of the
// request it answers, when it answers the request the answer is for (an
// input_required result against InputRequiredResult), and against the
// generic result response. An answer echoing the null id of a request
// the probe sent with one is not held to RequestId for it. It returns the
// definition that broke, or the most specific one that held.
func (s *revisionSchema) check(m []byte, a wireAnswer) (string, []violation) {
	v, err := decodeJSON(m)
	if err != nil {
		return "JSONRPCMessage", []violation{{"$", "not JSON: " + err.Error()}}
	}
	obj, _ := v.(map[string]any)
	if id, ok := obj["id"]; ok && id == nil && a.id == "null" {
		// The probe sent a null id on purpose (JR-02), which JSON-RPC has
		// the answer echo; the answer's other members are still judged.
		obj["id"] = json.Number("0")
	}
	if method, ok := obj["method"].(string); ok {
		def := s.methodDefs[method]
		if def == "" {
			def = "JSONRPCNotification"
			if _, ok := obj["id"]; ok {
				def = "JSONRPCRequest"
			}
		}
		return def, s.validate(def, v)
	}
	if e, ok := obj["error"].(map[string]any); ok {
		def := "JSONRPCErrorResponse"
		if code, ok := e["code"].(json.Number); ok {
			if c, err := code.Int64(); err == nil && s.errorDefs[int(c)] != "" {
				def = s.errorDefs[int(c)]
			}
		}
		return def, s.validate(def, v)
	}
	if result, ok := obj["result"]; ok {
		def := ""
		if r, _ := result.(map[string]any); r["resultType"] == "input_required" && s.defs["InputRequiredResult"] != nil {
			def = "InputRequiredResult"
		} else if id, _ := json.Marshal(obj["id"]); a.id != "" && string(id) == a.id {
			def = s.resultDefs[a.method]
		}
		if def != "" {
			if vs := s.validate(def, result); len(vs) > 0 {
				for i := range vs {
					vs[i].Path = "$.result" + strings.TrimPrefix(vs[i].Path, "$")
				}
				return def, vs
			}
		}
		if vs := s.validate("JSONRPCResultResponse", v); len(vs) > 0 || def == "" {
			return "JSONRPCResultResponse", vs
		}
		return def, nil
	}
	return "JSONRPCMessage", s.validate("JSONRPCMessage", v)
}
