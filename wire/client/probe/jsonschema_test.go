package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// schemaDoc is a schema document whose one definition, T, is def.
func schemaDoc(def string) string {
	return `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"T":` + def + `,` +
		`"Named":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}`
}

// TestValidatorRules: each rule of the subset, one behaviour per case:
// the violations an instance gets against definition T.
func TestValidatorRules(t *testing.T) {
	for _, tt := range []struct {
		name, def, instance string
		want                []violation
	}{
		{"a matching type passes", `{"type":"string"}`, `"x"`, nil},
		{"another type is reported with what it is", `{"type":"string"}`, `1`, []violation{{"$", "type: integer, not string"}}},
		{"a type list admits each of its types", `{"type":["integer","null"]}`, `null`, nil},
		{"1.0 is an integer", `{"type":"integer"}`, `1.0`, nil},
		{"1.5 is not an integer", `{"type":"integer"}`, `1.5`, []violation{{"$", "type: number, not integer"}}},
		{"an integer is a number", `{"type":"number"}`, `7`, nil},
		{"1e2 is an integer", `{"type":"integer"}`, `1e2`, nil},
		{"a huge exponent is judged without computing it", `{"type":"integer","maximum":1}`, `1e999999999999999999999`, []violation{{"$", "maximum: 1e999999999999999999999 > 1"}}},
		{"a required member missing", `{"type":"object","required":["tools"]}`, `{}`, []violation{{"$", `required: "tools" is missing`}}},
		{"a property is checked where present", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"1"}`, []violation{{"$.n", "type: string, not integer"}}},
		{"an absent optional property passes", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{}`, nil},
		{"additionalProperties false refuses an undeclared member", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`,
			[]violation{{"$.b", `additionalProperties: false: no member "b" is allowed`}}},
		{"additionalProperties as a schema checks the undeclared members", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"x":"1","y":2}`,
			[]violation{{"$.y", "type: integer, not string"}}},
		{"a member name that is no identifier is quoted in the path", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"io.x/y":2}`,
			[]violation{{`$["io.x/y"]`, "type: integer, not string"}}},
		{"items checks each element", `{"type":"array","items":{"type":"string"}}`, `["a",2]`, []violation{{"$[1]", "type: integer, not string"}}},
		{"maxItems", `{"type":"array","maxItems":1}`, `[1,2]`, []violation{{"$", "maxItems: 2 items > 1"}}},
		{"minimum", `{"type":"number","minimum":0}`, `-0.5`, []violation{{"$", "minimum: -0.5 < 0"}}},
		{"minimum is inclusive", `{"type":"number","minimum":0}`, `0`, nil},
		{"maximum", `{"type":"number","maximum":1}`, `1.01`, []violation{{"$", "maximum: 1.01 > 1"}}},
		{"const compares numbers by value", `{"const":2}`, `2.0`, nil},
		{"const refuses another value", `{"const":"2.0"}`, `"1.0"`, []violation{{"$", `const: "1.0", not "2.0"`}}},
		{"const compares objects whatever their member order", `{"const":{"a":1,"b":[true]}}`, `{"b":[true],"a":1}`, nil},
		{"enum admits a listed value", `{"enum":["public","private"]}`, `"private"`, nil},
		{"enum refuses another", `{"enum":["public","private"]}`, `"shared"`, []violation{{"$", `enum: "shared" is none of ["public","private"]`}}},
		{"allOf applies every branch", `{"allOf":[{"type":"object","required":["a"]},{"required":["b"]}]}`, `{"a":1}`, []violation{{"$", `required: "b" is missing`}}},
		{"anyOf passes when a branch matches", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `3`, nil},
		{"anyOf reports the branch that came closest", `{"anyOf":[{"type":"string"},{"$ref":"#/$defs/Named"}]}`, `{"name":1}`,
			[]violation{{"$", "anyOf: no branch matches (the closest: $.name: type: integer, not string)"}}},
		{"$ref checks the definition", `{"$ref":"#/$defs/Named"}`, `{}`, []violation{{"$", `required: "name" is missing`}}},
		{"$ref applies beside its siblings", `{"$ref":"#/$defs/Named","required":["x"]}`, `{"name":"n"}`, []violation{{"$", `required: "x" is missing`}}},
		{"description and format are annotations", `{"type":"string","format":"uri","description":"d"}`, `"not a uri"`, nil},
		{"the schema false admits nothing", `{"type":"object","properties":{"a":false}}`, `{"a":1}`, []violation{{"$.a", "false: nothing is allowed here"}}},
		{"a wrong type stops the node's other rules", `{"type":"object","required":["a"]}`, `[]`, []violation{{"$", "type: array, not object"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := compileSchema([]byte(schemaDoc(tt.def)))
			if err != nil {
				t.Fatal(err)
			}
			v, err := decodeJSON([]byte(tt.instance))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.validate("T", v)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidatorRefuses: a schema that uses what the validator does not
// implement is refused when compiled, never checked by half.
func TestValidatorRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, doc, says string
	}{
		{"a keyword not in the subset", schemaDoc(`{"type":"string","pattern":"^a"}`), `uses "pattern", which this validator does not implement`},
		{"a keyword nested in properties", schemaDoc(`{"properties":{"a":{"minLength":1}}}`), `#/$defs/T/properties/a uses "minLength"`},
		{"a root keyword not in the subset", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","$defs":{}}`, `the root uses "$id"`},
		{"another dialect", `{"$schema":"http://json-schema.org/draft-07/schema#","$defs":{}}`, `is "http://json-schema.org/draft-07/schema#", not https://json-schema.org/draft/2020-12/schema`},
		{"a reference outside the document", schemaDoc(`{"$ref":"https://example.com/s.json"}`), "is not a reference to a definition of this document"},
		{"a reference to nothing", schemaDoc(`{"$ref":"#/$defs/Nope"}`), "refers to #/$defs/Nope, which is not defined"},
		{"a type that is no JSON type", schemaDoc(`{"type":"int"}`), "names int, which is no JSON type"},
		{"an empty anyOf", schemaDoc(`{"anyOf":[]}`), "anyOf is not a non-empty array"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileSchema([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("compileSchema: %v; want an error saying %q", err, tt.says)
			}
		})
	}
}

// TestPinnedSchemas: the embedded schema files are the specification's
// at schemaCommit, byte for byte, and both compile: every keyword they use
// is one the validator implements.
func TestPinnedSchemas(t *testing.T) {
	want := map[string]string{
		"2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
		"2026-07-28": "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
	}
	for _, rev := range schemaRevisions {
		doc, err := schemaFiles.ReadFile("testdata/schema/" + rev + ".json")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(doc)
		if got := hex.EncodeToString(sum[:]); got != want[rev] {
			t.Errorf("%s: sha256 %s, want %s (schema/%s/schema.json at %s)", rev, got, want[rev], rev, schemaCommit)
		}
	}
	s, err := schemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rev, method, request, result string
	}{
		{"2025-11-25", "tools/list", "ListToolsRequest", "ListToolsResult"},
		{"2025-11-25", "ping", "PingRequest", "EmptyResult"},
		{"2026-07-28", "server/discover", "DiscoverRequest", "DiscoverResult"},
		{"2026-07-28", "subscriptions/listen", "SubscriptionsListenRequest", "SubscriptionsListenResult"},
	} {
		rs := s[tt.rev]
		if rs.methodDefs[tt.method] != tt.request || rs.resultDefs[tt.method] != tt.result {
			t.Errorf("%s %s: request %q result %q, want %q and %q", tt.rev, tt.method, rs.methodDefs[tt.method], rs.resultDefs[tt.method], tt.request, tt.result)
		}
	}
	if got := s["2026-07-28"].errorDefs[-32022]; got != "UnsupportedProtocolVersionError" {
		t.Errorf("2026-07-28 error -32022 is %q, want UnsupportedProtocolVersionError", got)
	}
}

// TestSchemaCheckPicksTheDefinition: which definition a received message
// is checked against, and what a result missing a required member gets.
func TestSchemaCheckPicksTheDefinition(t *testing.T) {
	s, err := schemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, rev, message string
		answered           wireAnswer
		def                string
		want               []violation
	}{
		{"a result for the request's id: its method's result", "2025-11-25", `{"jsonrpc":"2.0","id":7,"result":{}}`, wireAnswer{method: "tools/list", id: "7"},
			"ListToolsResult", []violation{{"$.result", `required: "tools" is missing`}}},
		{"a result for another id: the envelope only", "2025-11-25", `{"jsonrpc":"2.0","id":8,"result":{}}`, wireAnswer{method: "tools/list", id: "7"}, "JSONRPCResultResponse", nil},
		{"a 2026-07-28 result without resultType", "2026-07-28", `{"jsonrpc":"2.0","id":7,"result":{"tools":[],"ttlMs":0,"cacheScope":"public"}}`, wireAnswer{method: "tools/list", id: "7"},
			"ListToolsResult", []violation{{"$.result", `required: "resultType" is missing`}}},
		{"an input_required result", "2026-07-28", `{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required"}}`, wireAnswer{method: "tools/call", id: "7"},
			"InputRequiredResult", nil},
		{"an error: its code's definition", "2026-07-28", `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"x"}}`, wireAnswer{},
			"UnsupportedProtocolVersionError", []violation{{"$.error", `required: "data" is missing`}}},
		{"an error with a null id", "2025-11-25", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"x"}}`, wireAnswer{},
			"JSONRPCErrorResponse", []violation{{"$.id", "type: null, not string or integer"}}},
		{"a notification: its method's definition", "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, wireAnswer{},
			"ProgressNotification", []violation{{"$.params", `required: "progressToken" is missing`}}},
		{"an unknown notification: the generic one", "2025-11-25", `{"jsonrpc":"2.0","method":"x/y"}`, wireAnswer{}, "JSONRPCNotification", nil},
		{"neither result, error nor method", "2025-11-25", `{"jsonrpc":"2.0","id":1}`, wireAnswer{},
			"JSONRPCMessage", []violation{{"$", `anyOf: no branch matches (the closest: $: required: "method" is missing)`}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			def, got := s[tt.rev].check([]byte(tt.message), tt.answered)
			if def != tt.def {
				t.Errorf("checked against %s, want %s", def, tt.def)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzValidate: any schema the validator compiles, checked against any
// instance, gives the same violations twice, never panics, and reports
// nothing for an instance against the schema true; wrapping a definition
// in allOf changes nothing.
func FuzzValidate(f *testing.F) {
	f.Add(`{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":0}}}`, `{"a":-1}`)
	f.Add(`{"anyOf":[{"type":"string"},{"$ref":"#/$defs/Named"}]}`, `{"name":[1,{"x":null}]}`)
	f.Add(`{"type":"array","items":{"enum":[1,"a",null]},"maxItems":2}`, `[1.0,"a",true]`)
	f.Add(`{"const":{"a":[1e3]},"additionalProperties":false}`, `{"a":[1000]}`)
	f.Fuzz(func(t *testing.T, def, instance string) {
		s, err := compileSchema([]byte(schemaDoc(def)))
		if err != nil {
			return
		}
		wrapped, err := compileSchema([]byte(schemaDoc(`{"allOf":[` + def + `]}`)))
		if err != nil {
			t.Fatalf("T compiles but allOf [T] does not: %v", err)
		}
		v, err := decodeJSON([]byte(instance))
		if err != nil {
			return
		}
		first := s.validate("T", v)
		if diff := cmp.Diff(first, s.validate("T", v)); diff != "" {
			t.Fatalf("validated twice, differently:\n%s", diff)
		}
		if diff := cmp.Diff(first, wrapped.validate("T", v)); diff != "" {
			t.Fatalf("allOf [T] differs from T:\n%s", diff)
		}
		always, _ := compileSchema([]byte(schemaDoc(`true`)))
		if got := always.validate("T", v); len(got) != 0 {
			t.Fatalf("the schema true refused %s: %v", instance, got)
		}
	})
}
