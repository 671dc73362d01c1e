package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A JSON Schema validator for exactly the subset of JSON Schema 2020-12
// that the specification's schema.json files use: $schema and $defs at
// the root, local $ref ("#/$defs/Name"), type, properties, required,
// additionalProperties, items, maxItems, minimum, maximum, const, enum,
// allOf, anyOf, and the annotations description and format. compileSchema
// refuses any other keyword, so a newly pinned schema that needs one
// cannot be checked by half.
//
// format is an annotation: the files declare 2020-12, whose default
// vocabulary does not assert it (the official suite's validator asserts
// uri and uri-template; this one reports neither).

// draft202012 is the only dialect the validator implements.
const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// schemaKeywords are the keywords a schema object may use; rootKeywords
// only at the root.
var (
	schemaKeywords = []string{"$ref", "additionalProperties", "allOf", "anyOf", "const", "description", "enum",
		"format", "items", "maxItems", "maximum", "minimum", "properties", "required", "type"}
	rootKeywords = []string{"$schema", "$defs"}
	// jsonTypes are the values of type.
	jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}
)

// jsonSchema is a compiled schema document: its definitions by name.
type jsonSchema struct {
	defs map[string]*schemaNode
}

// schemaNode is one compiled schema object (or a boolean schema).
type schemaNode struct {
	always, never bool // the boolean schemas true and false

	ref        string // a definition's name, from "#/$defs/Name"
	refNode    *schemaNode
	types      []string
	properties map[string]*schemaNode
	propOrder  []string // properties' names sorted, for a stable report
	additional *schemaNode
	required   []string
	items      *schemaNode
	maxItems   *int
	minimum    *decimal
	maximum    *decimal
	hasConst   bool
	constant   any
	enum       []any
	allOf      []*schemaNode
	anyOf      []*schemaNode
}

// compileSchema compiles a schema document, refusing what the validator
// does not implement: another dialect, an unknown keyword, a $ref that is
// not to one of its own definitions.
func compileSchema(doc []byte) (*jsonSchema, error) {
	root, err := decodeJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema: the document is not an object")
	}
	for k := range obj {
		if !slices.Contains(rootKeywords, k) && !slices.Contains(schemaKeywords, k) {
			return nil, fmt.Errorf("schema: the root uses %q, which this validator does not implement", k)
		}
	}
	if s, _ := obj["$schema"].(string); s != draft202012 {
		return nil, fmt.Errorf("schema: $schema is %q, not %s", obj["$schema"], draft202012)
	}
	defs, ok := obj["$defs"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema: no $defs object")
	}
	s := &jsonSchema{defs: map[string]*schemaNode{}}
	for name, raw := range defs {
		n, err := compileNode(raw, "#/$defs/"+name)
		if err != nil {
			return nil, err
		}
		s.defs[name] = n
	}
	for name, n := range s.defs {
		if err := s.link(n, "#/$defs/"+name); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func compileNode(raw any, at string) (*schemaNode, error) {
	if b, ok := raw.(bool); ok {
		return &schemaNode{always: b, never: !b}, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema: %s is neither an object nor a boolean", at)
	}
	n := &schemaNode{}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := obj[k]
		var err error
		switch k {
		case "description", "format":
			// Annotations.
			if _, ok := v.(string); !ok {
				err = fmt.Errorf("is not a string")
			}
		case "$ref":
			ref, _ := v.(string)
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			if !ok || name == "" || strings.Contains(name, "/") {
				err = fmt.Errorf("%q is not a reference to a definition of this document", ref)
			}
			n.ref = name
		case "type":
			n.types, err = compileTypes(v)
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				err = fmt.Errorf("is not an object")
				break
			}
			n.properties = map[string]*schemaNode{}
			for name, sub := range props {
				if n.properties[name], err = compileNode(sub, at+"/properties/"+name); err != nil {
					return nil, err
				}
				n.propOrder = append(n.propOrder, name)
			}
			slices.Sort(n.propOrder)
		case "additionalProperties":
			n.additional, err = compileNode(v, at+"/additionalProperties")
		case "items":
			n.items, err = compileNode(v, at+"/items")
		case "required":
			list, ok := v.([]any)
			if !ok {
				err = fmt.Errorf("is not an array")
			}
			for _, x := range list {
				s, ok := x.(string)
				if !ok {
					err = fmt.Errorf("holds %v, not a string", x)
				}
				n.required = append(n.required, s)
			}
		case "maxItems":
			var m int
			if m, err = nonNegativeInt(v); err == nil {
				n.maxItems = &m
			}
		case "minimum", "maximum":
			num, ok := v.(json.Number)
			if !ok {
				err = fmt.Errorf("is not a number")
				break
			}
			d := parseDecimal(num)
			if k == "minimum" {
				n.minimum = &d
			} else {
				n.maximum = &d
			}
		case "const":
			n.hasConst, n.constant = true, v
		case "enum":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				err = fmt.Errorf("is not a non-empty array")
			}
			n.enum = list
		case "allOf", "anyOf":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				err = fmt.Errorf("is not a non-empty array")
				break
			}
			var subs []*schemaNode
			for i, sub := range list {
				c, err := compileNode(sub, at+"/"+k+"/"+strconv.Itoa(i))
				if err != nil {
					return nil, err
				}
				subs = append(subs, c)
			}
			if k == "allOf" {
				n.allOf = subs
			} else {
				n.anyOf = subs
			}
		default:
			return nil, fmt.Errorf("schema: %s uses %q, which this validator does not implement", at, k)
		}
		if err != nil {
			return nil, fmt.Errorf("schema: %s: %s %w", at, k, err)
		}
	}
	return n, nil
}

func compileTypes(v any) ([]string, error) {
	var list []any
	switch t := v.(type) {
	case string:
		list = []any{t}
	case []any:
		list = t
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("is neither a type name nor a list of them")
	}
	var out []string
	for _, x := range list {
		s, _ := x.(string)
		if !slices.Contains(jsonTypes, s) {
			return nil, fmt.Errorf("names %v, which is no JSON type", x)
		}
		out = append(out, s)
	}
	return out, nil
}

func nonNegativeInt(v any) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("is not a number")
	}
	m, err := strconv.Atoi(string(num))
	if err != nil || m < 0 {
		return 0, fmt.Errorf("%s is not a non-negative integer", num)
	}
	return m, nil
}

// link resolves every $ref below n to its definition.
func (s *jsonSchema) link(n *schemaNode, at string) error {
	if n.ref != "" {
		n.refNode = s.defs[n.ref]
		if n.refNode == nil {
			return fmt.Errorf("schema: %s refers to #/$defs/%s, which is not defined", at, n.ref)
		}
	}
	subs := append(append([]*schemaNode{n.additional, n.items}, n.allOf...), n.anyOf...)
	for _, name := range n.propOrder {
		subs = append(subs, n.properties[name])
	}
	for _, sub := range subs {
		if sub != nil {
			if err := s.link(sub, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// violation is one rule an instance breaks: where (a JSON path, "$" the
// root) and which rule ("required: \"tools\"").
type violation struct {
	Path, Rule string
}

func (v violation) String() string { return v.Path + ": " + v.Rule }

// validate checks instance (decoded by decodeJSON) against the definition
// name and returns what it breaks, the first maxViolations of them.
func (s *jsonSchema) validate(name string, instance any) []violation {
	n := s.defs[name]
	if n == nil {
		return []violation{{"$", "no definition " + name + " in the schema"}}
	}
	var out []violation
	check(n, instance, "$", &out)
	if len(out) > maxViolations {
		out = out[:maxViolations]
	}
	return out
}

// maxViolations bounds what validate reports of one message: the first
// few say what is wrong.
const maxViolations = 5

// check appends to out every rule of n that v (at path) breaks.
func check(n *schemaNode, v any, path string, out *[]violation) {
	switch {
	case n.always:
		return
	case n.never:
		*out = append(*out, violation{path, "false: nothing is allowed here"})
		return
	}
	if n.refNode != nil {
		check(n.refNode, v, path, out)
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return hasType(v, t) }) {
		*out = append(*out, violation{path, "type: " + typeOf(v) + ", not " + strings.Join(n.types, " or ")})
		// The other rules of the node speak of the type it wanted.
		return
	}
	if n.hasConst && !sameJSON(v, n.constant) {
		*out = append(*out, violation{path, "const: " + jsonText(v) + ", not " + jsonText(n.constant)})
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return sameJSON(v, e) }) {
		*out = append(*out, violation{path, "enum: " + jsonText(v) + " is none of " + jsonText(n.enum)})
	}
	if num, ok := v.(json.Number); ok {
		d := parseDecimal(num)
		if n.minimum != nil && d.cmp(*n.minimum) < 0 {
			*out = append(*out, violation{path, "minimum: " + string(num) + " < " + n.minimum.String()})
		}
		if n.maximum != nil && d.cmp(*n.maximum) > 0 {
			*out = append(*out, violation{path, "maximum: " + string(num) + " > " + n.maximum.String()})
		}
	}
	if obj, ok := v.(map[string]any); ok {
		for _, name := range n.required {
			if _, ok := obj[name]; !ok {
				*out = append(*out, violation{path, "required: " + strconv.Quote(name) + " is missing"})
			}
		}
		for _, name := range n.propOrder {
			if sub, ok := obj[name]; ok {
				check(n.properties[name], sub, memberPath(path, name), out)
			}
		}
		if n.additional != nil {
			names := make([]string, 0, len(obj))
			for name := range obj {
				if _, declared := n.properties[name]; !declared {
					names = append(names, name)
				}
			}
			slices.Sort(names)
			for _, name := range names {
				if n.additional.never {
					*out = append(*out, violation{memberPath(path, name), "additionalProperties: false: no member " + strconv.Quote(name) + " is allowed"})
					continue
				}
				check(n.additional, obj[name], memberPath(path, name), out)
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if n.maxItems != nil && len(arr) > *n.maxItems {
			*out = append(*out, violation{path, "maxItems: " + strconv.Itoa(len(arr)) + " items > " + strconv.Itoa(*n.maxItems)})
		}
		if n.items != nil {
			for i, item := range arr {
				check(n.items, item, path+"["+strconv.Itoa(i)+"]", out)
			}
		}
	}
	for _, sub := range n.allOf {
		check(sub, v, path, out)
	}
	if n.anyOf != nil {
		var closest []violation
		for _, sub := range n.anyOf {
			var got []violation
			check(sub, v, path, &got)
			if len(got) == 0 {
				closest = nil
				break
			}
			if closest == nil || deeper(got[0], closest[0]) {
				closest = got
			}
		}
		if closest != nil {
			*out = append(*out, violation{path, "anyOf: no branch matches (the closest: " + closest[0].String() + ")"})
		}
	}
}

// deeper reports a violation further into the instance than b: the branch
// of an anyOf that matched the most before it broke.
func deeper(a, b violation) bool {
	return strings.Count(a.Path, ".")+strings.Count(a.Path, "[") > strings.Count(b.Path, ".")+strings.Count(b.Path, "[")
}

// memberPath is path.name, or path["name"] for a name that is not a plain
// identifier.
func memberPath(path, name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain {
		return path + "." + name
	}
	return path + "[" + strconv.Quote(name) + "]"
}

// hasType reports whether v is of JSON Schema type t: an integer is any
// number with no fraction (1.0 is one), and an integer is a number too.
func hasType(v any, t string) bool {
	switch x := v.(type) {
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
		return t == "number" || t == "integer" && parseDecimal(x).isInt()
	}
	return false
}

func typeOf(v any) string {
	for _, t := range []string{"null", "boolean", "string", "array", "object", "integer", "number"} {
		if hasType(v, t) {
			return t
		}
	}
	return "unknown"
}

// sameJSON is JSON equality: numbers by value (1 and 1.0 are equal),
// objects regardless of member order.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && parseDecimal(x).cmp(parseDecimal(y)) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// jsonText is v as short JSON, for a rule.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// decodeJSON decodes one JSON value, numbers kept exact (json.Number),
// and refuses anything after it.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// decimal is a JSON number, exactly: digits × 10^exp, negative or not,
// digits without leading or trailing zeros ("" for zero). A number's
// text can be any length and its exponent any size, so no conversion to
// a float or a big number (which 1e999999999 would make slow) is made.
type decimal struct {
	neg    bool
	digits string
	exp    int64
	text   string // as written, for a report
}

// parseDecimal reads a number json.Decoder accepted (RFC 8259 grammar).
func parseDecimal(n json.Number) decimal {
	s := string(n)
	d := decimal{text: s}
	d.neg = strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expText, _ := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	// An exponent beyond ±1e15 moves no comparison with a number of a
	// sane length; clamping it keeps the arithmetic in an int64.
	e, err := strconv.ParseInt(expText, 10, 64)
	if expText == "" {
		e = 0
	} else if err != nil || e > 1e15 || e < -1e15 {
		e = 1e15
		if strings.HasPrefix(expText, "-") {
			e = -1e15
		}
	}
	digits := strings.TrimLeft(whole+frac, "0")
	exp := e - int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	d.digits, d.exp = trimmed, exp
	if d.digits == "" {
		d.neg, d.exp = false, 0
	}
	return d
}

func (d decimal) isInt() bool { return d.digits == "" || d.exp >= 0 }

// cmp is -1, 0 or 1 as d is less than, equal to or greater than o.
func (d decimal) cmp(o decimal) int {
	switch {
	case d.neg != o.neg:
		if d.neg {
			return -1
		}
		return 1
	case d.neg:
		return o.magnitudeCmp(d)
	}
	return d.magnitudeCmp(o)
}

// magnitudeCmp compares |d| and |o|: first by the place of the leading
// digit, then digit by digit.
func (d decimal) magnitudeCmp(o decimal) int {
	switch {
	case d.digits == "" && o.digits == "":
		return 0
	case d.digits == "":
		return -1
	case o.digits == "":
		return 1
	}
	if dl, ol := int64(len(d.digits))+d.exp, int64(len(o.digits))+o.exp; dl != ol {
		if dl < ol {
			return -1
		}
		return 1
	}
	a, b := d.digits, o.digits
	for len(a) < len(b) {
		a += "0"
	}
	for len(b) < len(a) {
		b += "0"
	}
	return strings.Compare(a, b)
}

func (d decimal) String() string { return d.text }
