// Package schemacheck checks the documents rawmcp probe writes: a JSON
// document against a JSON Schema (the subset of draft-04 that the SARIF
// 2.1.0 schema and the -json report's schema use), and a SARIF log
// against that schema and the upload rules GitHub code scanning
// documents. It lives under testdata: tests import it, and go build ./...
// never sees it. It is not the probe's own validator (jsonschema.go),
// which ships in the binary and implements the 2020-12 subset of MCP's
// schema.json files with format as an annotation; SARIF's schema is
// draft-04, and code scanning refuses a location that is no URI, so
// here format is asserted.
//
// The schemas: sarif-schema-2.1.0.json is the OASIS SARIF 2.1.0 schema
// (errata 01), as published; report.schema.json is the contract of
// rawmcp probe -json.
//
// Not supported: remote $ref, $ref into anything but #/definitions,
// dependencies, patternProperties, allOf, not, and every format but uri,
// uri-reference and date-time. A schema that uses a keyword outside the
// subset is refused by Compile, so nothing is silently left unchecked.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Schema is a compiled schema.
type Schema struct {
	root     map[string]any
	patterns map[string]*regexp.Regexp
}

// keywords are the keywords Validate applies, and the annotations it
// reads past.
var keywords = map[string]bool{
	"type": true, "properties": true, "additionalProperties": true, "required": true,
	"items": true, "minItems": true, "uniqueItems": true, "enum": true, "pattern": true,
	"minimum": true, "maximum": true, "anyOf": true, "oneOf": true, "$ref": true, "format": true,
	"definitions": true,
	// Annotations.
	"default": true, "description": true, "title": true, "id": true, "$schema": true,
}

var formats = map[string]bool{"uri": true, "uri-reference": true, "date-time": true}

// Compile reads a schema and checks that it uses only the subset.
func Compile(data []byte) (*Schema, error) {
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	s := &Schema{root: root, patterns: map[string]*regexp.Regexp{}}
	if err := s.check(root, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

// check walks a schema, refusing a keyword, format or $ref outside the
// subset and compiling its patterns.
func (s *Schema) check(node map[string]any, at string) error {
	for k, v := range node {
		if !keywords[k] {
			return fmt.Errorf("%s: keyword %q is outside the subset", at, k)
		}
		switch k {
		case "properties", "definitions":
			for name, sub := range asObject(v) {
				if err := s.check(asObject(sub), at+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "items":
			if err := s.check(asObject(v), at+"/items"); err != nil {
				return err
			}
		case "additionalProperties":
			if sub, ok := v.(map[string]any); ok {
				if err := s.check(sub, at+"/additionalProperties"); err != nil {
					return err
				}
			}
		case "anyOf", "oneOf":
			for i, sub := range v.([]any) {
				if err := s.check(asObject(sub), at+"/"+k+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
		case "$ref":
			if _, err := s.resolve(v.(string)); err != nil {
				return fmt.Errorf("%s: %v", at, err)
			}
		case "format":
			if !formats[v.(string)] {
				return fmt.Errorf("%s: format %q is outside the subset", at, v)
			}
		case "pattern":
			re, err := regexp.Compile(v.(string))
			if err != nil {
				return fmt.Errorf("%s: pattern: %v", at, err)
			}
			s.patterns[v.(string)] = re
		}
	}
	return nil
}

func (s *Schema) resolve(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, "#/definitions/")
	def, found := asObject(s.root["definitions"])[name]
	if !ok || !found {
		return nil, fmt.Errorf("$ref %q is not a definition of this schema", ref)
	}
	return asObject(def), nil
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// Validate returns every place doc breaks the schema, as "path: what"
// ("/runs/0/results/1/message: required member text is missing"), none
// when it holds.
func (s *Schema) Validate(doc []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	var problems []string
	s.validate(s.root, v, "", &problems)
	return problems
}

func (s *Schema) validate(node map[string]any, v any, at string, problems *[]string) {
	fail := func(format string, args ...any) {
		*problems = append(*problems, orRoot(at)+": "+fmt.Sprintf(format, args...))
	}
	if ref, ok := node["$ref"].(string); ok {
		def, _ := s.resolve(ref)
		s.validate(def, v, at, problems)
	}
	if t, ok := node["type"]; ok && !hasType(t, v) {
		fail("is %s, not %v", typeOf(v), t)
		return
	}
	if e, ok := node["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return equal(x, v) }) {
		fail("%s is none of %v", compact(v), e)
	}
	switch v := v.(type) {
	case map[string]any:
		s.validateObject(node, v, at, problems)
	case []any:
		if n, ok := node["minItems"].(float64); ok && float64(len(v)) < n {
			fail("has %d items, fewer than %v", len(v), n)
		}
		if node["uniqueItems"] == true {
			seen := make(map[string]int, len(v))
			for i, x := range v {
				key := canonical(x)
				if j, dup := seen[key]; dup {
					fail("items %d and %d are equal", j, i)
				}
				seen[key] = i
			}
		}
		if items := asObject(node["items"]); items != nil {
			for i, x := range v {
				s.validate(items, x, at+"/"+strconv.Itoa(i), problems)
			}
		}
	case string:
		if p, ok := node["pattern"].(string); ok && !s.patterns[p].MatchString(v) {
			fail("%q does not match %s", v, p)
		}
		if f, ok := node["format"].(string); ok && !hasFormat(f, v) {
			fail("%q is not a %s", v, f)
		}
	case json.Number:
		n, _ := v.Float64()
		if min, ok := node["minimum"].(float64); ok && n < min {
			fail("%v is below the minimum %v", v, min)
		}
		if max, ok := node["maximum"].(float64); ok && n > max {
			fail("%v is above the maximum %v", v, max)
		}
	}
	s.validateAlternatives(node, v, at, problems)
}

func (s *Schema) validateObject(node map[string]any, v map[string]any, at string, problems *[]string) {
	props := asObject(node["properties"])
	for _, r := range asSlice(node["required"]) {
		if _, ok := v[r.(string)]; !ok {
			*problems = append(*problems, orRoot(at)+": required member "+r.(string)+" is missing")
		}
	}
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		x := v[name]
		if sub, ok := props[name]; ok {
			s.validate(asObject(sub), x, at+"/"+name, problems)
			continue
		}
		switch extra := node["additionalProperties"].(type) {
		case bool:
			if !extra {
				*problems = append(*problems, orRoot(at)+": member "+name+" is not allowed")
			}
		case map[string]any:
			s.validate(extra, x, at+"/"+name, problems)
		}
	}
}

// validateAlternatives applies anyOf (at least one holds) and oneOf
// (exactly one holds).
func (s *Schema) validateAlternatives(node map[string]any, v any, at string, problems *[]string) {
	for _, k := range []string{"anyOf", "oneOf"} {
		alts := asSlice(node[k])
		if alts == nil {
			continue
		}
		held := 0
		for _, alt := range alts {
			var sub []string
			s.validate(asObject(alt), v, at, &sub)
			if len(sub) == 0 {
				held++
			}
		}
		if (k == "anyOf" && held == 0) || (k == "oneOf" && held != 1) {
			*problems = append(*problems, fmt.Sprintf("%s: %d of the %d alternatives of %s hold", orRoot(at), held, len(alts), k))
		}
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func orRoot(at string) string {
	if at == "" {
		return "/"
	}
	return at
}

func hasType(t any, v any) bool {
	switch t := t.(type) {
	case string:
		return isType(t, v)
	case []any:
		return slices.ContainsFunc(t, func(x any) bool { return isType(x.(string), v) })
	}
	return false
}

func isType(t string, v any) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	case json.Number:
		if t == "number" {
			return true
		}
		f, err := v.Float64()
		return t == "integer" && err == nil && f == math.Trunc(f)
	}
	return false
}

func typeOf(v any) string {
	for _, t := range []string{"null", "boolean", "string", "array", "object", "integer", "number"} {
		if isType(t, v) {
			return t
		}
	}
	return "unknown"
}

// equal compares JSON values, numbers by value.
func equal(a, b any) bool { return canonical(a) == canonical(b) }

// canonical writes a JSON value with its numbers as float64 and its
// members in order, so equal values write alike.
func canonical(v any) string {
	switch v := v.(type) {
	case json.Number:
		f, _ := v.Float64()
		return strconv.FormatFloat(f, 'g', -1, 64)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = canonical(x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		names := make([]string, 0, len(v))
		for name := range v {
			names = append(names, name)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, name := range names {
			parts[i] = strconv.Quote(name) + ":" + canonical(v[name])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return compact(v)
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func hasFormat(f, v string) bool {
	switch f {
	case "uri":
		u, err := url.Parse(v)
		return err == nil && u.Scheme != ""
	case "uri-reference":
		_, err := url.Parse(v)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, v)
		return err == nil
	}
	return false
}
