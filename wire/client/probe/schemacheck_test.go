package probe

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe/testdata/schemacheck"
)

// TestSchemaSubset: the validator the report tests rely on applies each
// keyword of its subset, and refuses a schema outside it, so a document
// that validates does so for a reason.
func TestSchemaSubset(t *testing.T) {
	schema := `{"type": "object", "additionalProperties": false, "required": ["a"],
	  "properties": {
	    "a": {"type": "array", "minItems": 1, "uniqueItems": true, "items": {"$ref": "#/definitions/n"}},
	    "s": {"type": "string", "pattern": "^2", "format": "date-time"},
	    "e": {"enum": ["one", 2]},
	    "m": {"type": "object", "additionalProperties": {"type": "boolean"}},
	    "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
	    "one": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
	    "u": {"type": ["string", "null"], "format": "uri"}
	  },
	  "definitions": {"n": {"type": "integer", "minimum": 1, "maximum": 9}}}`
	s, err := schemacheck.Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"valid", `{"a": [1, 2], "s": "2026-01-01T00:00:00Z", "e": 2, "m": {"k": true}, "any": "z", "one": 1.5, "u": null}`, nil},
		{"a required member missing", `{}`, []string{"/: required member a is missing"}},
		{"a member not allowed", `{"a": [1], "b": 1}`, []string{"/: member b is not allowed"}},
		{"a type", `{"a": {}}`, []string{"/a: is object, not array"}},
		{"minItems", `{"a": []}`, []string{"/a: has 0 items, fewer than 1"}},
		{"uniqueItems, numbers by value", `{"a": [1, 1.0]}`, []string{"/a: items 0 and 1 are equal"}},
		{"$ref, minimum and maximum", `{"a": [0, 10]}`, []string{"/a/0: 0 is below the minimum 1", "/a/1: 10 is above the maximum 9"}},
		{"integer", `{"a": [1.5]}`, []string{"/a/0: is number, not integer"}},
		{"pattern and format", `{"a": [1], "s": "y"}`, []string{`/s: "y" does not match ^2`, `/s: "y" is not a date-time`}},
		{"enum", `{"a": [1], "e": "two"}`, []string{`/e: "two" is none of [one 2]`}},
		{"additionalProperties as a schema", `{"a": [1], "m": {"k": 1}}`, []string{"/m/k: is integer, not boolean"}},
		{"anyOf", `{"a": [1], "any": true}`, []string{"/any: 0 of the 2 alternatives of anyOf hold"}},
		{"oneOf holds once only", `{"a": [1], "one": 1}`, []string{"/one: 2 of the 2 alternatives of oneOf hold"}},
		{"uri", `{"a": [1], "u": "no-scheme"}`, []string{`/u: "no-scheme" is not a uri`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, s.Validate([]byte(tt.doc))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, outside := range []string{`{"allOf": []}`, `{"format": "email"}`, `{"$ref": "other.json#/x"}`, `{"properties": {"a": {"not": {}}}}`} {
		if _, err := schemacheck.Compile([]byte(outside)); err == nil {
			t.Errorf("%s compiled: a keyword outside the subset must be refused", outside)
		}
	}
}

// checkJSONReport writes rep's -json document and fails the test unless
// it validates against the report's schema.
func checkJSONReport(t *testing.T, rep *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, p := range schemacheck.ReportSchema().Validate(b.Bytes()) {
		t.Errorf("the -json document does not validate: %s", p)
	}
	return b.Bytes()
}

// TestJSONReportValidates: the -json document holds to its schema, with
// and without a baseline, and the schema catches a member it does not
// know.
func TestJSONReportValidates(t *testing.T) {
	rep := comparedReport()
	checkJSONReport(t, rep)
	rep.Baseline = rep.Compare(&Baseline{Edition: 1, Accepted: map[string]Accepted{"HO-02": {Verdict: Fail, Expires: "2020-01-01"}}}, time.Now())
	doc := checkJSONReport(t, rep)
	broken := strings.Replace(string(doc), `"incomplete"`, `"incompleat": false, "incomplete"`, 1)
	if p := schemacheck.ReportSchema().Validate([]byte(broken)); len(p) != 1 || p[0] != "/: member incompleat is not allowed" {
		t.Errorf("an unknown member: %q", p)
	}
}
