package probe

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/rule"
)

// maxHelp bounds a check's help: what is sent and what evidence passes,
// in a sentence or two; how the code decides is the run function's.
const maxHelp = 320

// TestEveryCheckListed: a Check declared in a group file but left out of
// its group's list would never run, and one listed in another group's
// file (its own, xx.go, or a topic file of the group, xx_topic.go) would
// be documented under the wrong heading.
func TestEveryCheckListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if typ, ok := lit.Type.(*ast.Ident); !ok || typ.Name != "Check" {
				return true
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if key, isIdent := kv.Key.(*ast.Ident); !ok || !isIdent || key.Name != "ID" {
					continue
				}
				id, _ := strconv.Unquote(kv.Value.(*ast.BasicLit).Value)
				declared = append(declared, id)
				code, _, _ := strings.Cut(id, "-")
				if want := strings.ToLower(code); name != want+".go" && !strings.HasPrefix(name, want+"_") {
					t.Errorf("%s is declared in %s, want %s.go or a topic file %s_<topic>.go", id, name, want, want)
				}
			}
			return false
		})
	}
	var listed []string
	for _, c := range catalogue {
		listed = append(listed, c.ID)
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if diff := cmp.Diff(declared, listed); diff != "" {
		t.Errorf("declared checks (-) vs the group lists (+):\n%s", diff)
	}
}

var update = flag.Bool("update", false, "rewrite CHECKS.md from the catalogue")

// TestChecksMarkdownIsCurrent: the committed CHECKS.md is what the
// catalogue generates (rawmcp probe -list -md); -update rewrites it.
func TestChecksMarkdownIsCurrent(t *testing.T) {
	var b strings.Builder
	if err := WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("CHECKS.md", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile("CHECKS.md")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(committed), b.String()); diff != "" {
		t.Errorf("CHECKS.md is stale; regenerate it with go test ./wire/client/probe -run TestChecksMarkdownIsCurrent -update (-committed +generated):\n%s", diff)
	}
}

// TestNotMetCarriesEvidence: every "not met" a run function returns says
// what was expected and what came back (outcome.with), so a report never
// shows a failure with only prose.
func TestNotMetCarriesEvidence(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "outcome.go" {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		withed := map[token.Pos]bool{}
		var unmet []*ast.CallExpr
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "with":
					if inner, ok := sel.X.(*ast.CallExpr); ok {
						withed[inner.Pos()] = true
					}
				case "unmet", "unmetAt":
					unmet = append(unmet, call)
				}
			}
			return true
		})
		for _, call := range unmet {
			if !withed[call.Pos()] {
				t.Errorf("%s: not met without .with(expected, actual)", fset.Position(call.Pos()))
			}
		}
	}
}

// maxFix bounds a check's fix: at most three sentences, which fit in six
// lines of an 80-column report indented under the finding. What does not
// fit is a tutorial, and belongs behind the Link.
const maxFix = 480

// sentenceEnd ends a sentence: a stop, then a space or the end. A fix
// spells abbreviations out ("for example"), so every stop counts.
var sentenceEnd = regexp.MustCompile(`[.!?]["')\]]*(\s|$)`)

// ruleIDs matches any id of this project's rule table standing alone: an
// outside team reads a fix, and "T-04" means nothing to it.
var ruleIDs = func() *regexp.Regexp {
	var ids []string
	for _, r := range rule.All() {
		ids = append(ids, regexp.QuoteMeta(string(r.ID)))
	}
	return regexp.MustCompile(`(^|[^A-Za-z0-9-])(` + strings.Join(ids, "|") + `)($|[^A-Za-z0-9-])`)
}()

// specHeadings are the headings, as the specification's sources spell
// them, of the sections the catalogue links to, by page URL: a link into
// the specification must name one of them by its anchor.
var specHeadings = map[string][]string{
	"https://modelcontextprotocol.io/specification/2025-11-25/basic/transports": {
		"Security Warning", "Sending Messages to the Server", "Listening for Messages from the Server",
		"Resumability and Redelivery", "Session Management", "Protocol Version Header"},
	"https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle": {"Initialization", "Version Negotiation"},
	"https://modelcontextprotocol.io/specification/2025-11-25/basic":           {"Requests", "Responses", "Error Responses", "Schema"},
	"https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization": {
		"Protected Resource Metadata Discovery Requirements", "Token Requirements", "Token Handling",
		"Runtime Insufficient Scope Errors"},
	// The best practices moved from the specification to the docs; the old
	// address redirects here.
	"https://modelcontextprotocol.io/docs/2025-11-25/tutorials/security/security_best_practices": {
		"Session Hijacking", "Local MCP Server Compromise"},
	"https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http": {
		"Security & Endpoint", "Sending Messages", "Receiving Messages", "Protocol Version Header",
		"Case Sensitivity", "Server Validation", "Value Encoding", "Earlier Streamable HTTP Revisions",
		"Server Behavior for Custom Headers"},
	"https://modelcontextprotocol.io/specification/2026-07-28/server/tools":                 {"Capabilities"},
	"https://modelcontextprotocol.io/specification/2026-07-28/server/resources":             {"Error Handling"},
	"https://modelcontextprotocol.io/specification/2026-07-28/basic":                        {"`_meta`"},
	"https://modelcontextprotocol.io/specification/2026-07-28/server/discover":              {"Response", "DiscoverResult"},
	"https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching":     {"Cacheable Results"},
	"https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions": {"Acknowledgment"},
	"https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization":          {"Token Handling"},
	"https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning": {
		"Backward Compatibility with Initialization-Based Versions"},
}

// specAnchor is the anchor the specification's site (Mintlify) gives a
// heading. Mintlify documents its rule (docs "Format text", "Automatic
// anchor IDs"): letters lowercased, whitespace and periods become hyphens,
// parentheses go, slashes and ampersands stay, a straight apostrophe
// becomes ’ ("What's new" is what’s-new, "Fees & billing" fees-&-billing,
// "Rate limits (per minute)" rate-limits-per-minute). The specification's
// own links settle what that page leaves open: code spans lose their
// backticks and every other mark, "_" and "$" included ("`_meta`" is
// #meta, "`$ref` Resolution" #ref-resolution, in 25 and 1 links of the
// 2026-07-28 pages and schema). A link URL percent-encodes "&" (%26).
func specAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.ReplaceAll(heading, "`", "")) {
		switch {
		case unicode.IsSpace(r) || r == '.':
			b.WriteByte('-')
		case r == '\'':
			b.WriteRune('’')
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-&/’", r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestSpecAnchor holds specAnchor to the anchors Mintlify's documentation
// and the specification's own links show.
func TestSpecAnchor(t *testing.T) {
	for _, tt := range []struct{ heading, want string }{
		{"Getting started", "getting-started"},
		{"Config.json options", "config-json-options"},
		{"What's new", "what’s-new"},
		{"Rate limits (per minute)", "rate-limits-per-minute"},
		{"Read/write access", "read/write-access"},
		{"Fees & billing", "fees-&-billing"},
		{"OAuth", "oauth"},
		{"`_meta`", "meta"},
		{"`$ref` Resolution", "ref-resolution"},
		{"Backward Compatibility with Initialization-Based Versions", "backward-compatibility-with-initialization-based-versions"},
		{"Time-to-Live (TTL) Field", "time-to-live-ttl-field"},
	} {
		if got := specAnchor(tt.heading); got != tt.want {
			t.Errorf("specAnchor(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

// rfcPage is an RFC's page at the RFC Editor and one of its sections.
var rfcPage = regexp.MustCompile(`^/rfc/rfc([0-9]+)$`)
var rfcSection = regexp.MustCompile(`^section-([0-9]+(\.[0-9]+)*)$`)

// helpProblems says what is wrong with a check's fix and link: each must
// be there; a fix is at most three sentences and maxFix bytes, ends a
// sentence and names no rule id of wire/rule; a link is an absolute https
// URL, and one into the specification or an RFC names a section: a
// heading of specHeadings by its anchor, or an RFC section the check's
// Source or Section cites.
func helpProblems(c *Check) []string {
	var out []string
	switch n := len(sentenceEnd.FindAllString(c.Fix, -1)); {
	case c.Fix == "":
		out = append(out, "no fix")
	case len(c.Fix) > maxFix:
		out = append(out, fmt.Sprintf("a fix of %d bytes, over %d", len(c.Fix), maxFix))
	case n > 3:
		out = append(out, fmt.Sprintf("a fix of %d sentences, over three", n))
	case !strings.HasSuffix(c.Fix, "."):
		out = append(out, "a fix that does not end its sentence")
	}
	if m := ruleIDs.FindStringSubmatch(c.Fix); m != nil {
		out = append(out, "a fix naming the rule "+m[2])
	}
	if c.Link == "" {
		return append(out, "no link")
	}
	u, err := url.Parse(c.Link)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || strings.ContainsAny(c.Link, " \t\n") {
		return append(out, "a link that is not an absolute https URL: "+c.Link)
	}
	page := "https://" + u.Host + u.Path
	switch u.Host {
	case "modelcontextprotocol.io":
		headings, known := specHeadings[page]
		switch {
		case u.Fragment == "":
			out = append(out, "a link to a specification page without a section: "+c.Link)
		case !known:
			out = append(out, "a link to a page whose headings specHeadings lacks: "+page)
		case !slices.ContainsFunc(headings, func(h string) bool { return specAnchor(h) == u.Fragment }):
			out = append(out, fmt.Sprintf("#%s is no heading of %s (%q)", u.Fragment, page, headings))
		}
	case "www.rfc-editor.org", "datatracker.ietf.org":
		rfc, section := rfcPage.FindStringSubmatch(u.Path), rfcSection.FindStringSubmatch(u.Fragment)
		cites := c.Source + "; " + c.Section
		switch {
		case rfc == nil || section == nil:
			out = append(out, "an RFC link not of the form https://www.rfc-editor.org/rfc/rfcN#section-S: "+c.Link)
		case !strings.Contains(cites, "RFC "+rfc[1]) ||
			!regexp.MustCompile(`§`+regexp.QuoteMeta(section[1])+`($|[^0-9.]|\.[^0-9])`).MatchString(cites):
			out = append(out, fmt.Sprintf("links RFC %s §%s, which its source and section do not cite", rfc[1], section[1]))
		}
	}
	return out
}

// TestEveryCheckHasFixAndLink: every check tells a server author what to
// change and where the requirement is written (helpProblems).
func TestEveryCheckHasFixAndLink(t *testing.T) {
	for _, c := range catalogue {
		for _, p := range helpProblems(&c) {
			t.Errorf("%s: %s", c.ID, p)
		}
	}
}

// TestHelpProblems: each way a fix or a link can be wrong is caught, and
// a right one passes.
func TestHelpProblems(t *testing.T) {
	good := Check{ID: "HO-02", Source: "MCP Transports §Security warning; RFC 9110 §15.5.6", Section: "MCP Transports 2025-11-25 §Security Warning",
		Fix:  "Check Origin. Answer 403 to a foreign one. Go: http.CrossOriginProtection.",
		Link: "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning"}
	tests := []struct {
		name string
		edit func(c *Check)
		want []string
	}{
		{"right", func(c *Check) {}, nil},
		{"no fix", func(c *Check) { c.Fix = "" }, []string{"no fix"}},
		{"four sentences", func(c *Check) { c.Fix += " Or do it in nginx." }, []string{"a fix of 4 sentences, over three"}},
		{"too long", func(c *Check) { c.Fix = strings.Repeat("x", maxFix) + "." }, []string{fmt.Sprintf("a fix of %d bytes, over %d", maxFix+1, maxFix)}},
		{"no final stop", func(c *Check) { c.Fix = "Check Origin" }, []string{"a fix that does not end its sentence"}},
		{"a rule id", func(c *Check) { c.Fix = "Check Origin (T-04)." }, []string{"a fix naming the rule T-04"}},
		{"no link", func(c *Check) { c.Link = "" }, []string{"no link"}},
		{"http", func(c *Check) {
			c.Link = "http://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning"
		},
			[]string{"a link that is not an absolute https URL: http://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning"}},
		{"relative", func(c *Check) { c.Link = "/specification/2025-11-25/basic/transports" },
			[]string{"a link that is not an absolute https URL: /specification/2025-11-25/basic/transports"}},
		{"spec page without a section", func(c *Check) { c.Link = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports" },
			[]string{"a link to a specification page without a section: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports"}},
		{"anchor of no heading", func(c *Check) {
			c.Link = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security_warning"
		},
			[]string{`#security_warning is no heading of https://modelcontextprotocol.io/specification/2025-11-25/basic/transports (["Security Warning" "Sending Messages to the Server" "Listening for Messages from the Server" "Resumability and Redelivery" "Session Management" "Protocol Version Header"])`}},
		{"unknown spec page", func(c *Check) {
			c.Link = "https://modelcontextprotocol.io/specification/draft/basic/transports#security-warning"
		},
			[]string{"a link to a page whose headings specHeadings lacks: https://modelcontextprotocol.io/specification/draft/basic/transports"}},
		{"RFC section cited", func(c *Check) { c.Link = "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.6" }, nil},
		{"RFC section not cited", func(c *Check) { c.Link = "https://www.rfc-editor.org/rfc/rfc9110#section-15.5" },
			[]string{"links RFC 9110 §15.5, which its source and section do not cite"}},
		{"RFC without a section", func(c *Check) { c.Link = "https://www.rfc-editor.org/rfc/rfc9110" },
			[]string{"an RFC link not of the form https://www.rfc-editor.org/rfc/rfcN#section-S: https://www.rfc-editor.org/rfc/rfc9110"}},
		{"another site needs no section", func(c *Check) { c.Link = "https://cwe.mitre.org/data/definitions/674.html" }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.edit(&c)
			if diff := cmp.Diff(tt.want, helpProblems(&c)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarkdownShowsFixAndLink: CHECKS.md lists, under each group's
// table, every check of the group with its fix and its link.
func TestMarkdownShowsFixAndLink(t *testing.T) {
	var b strings.Builder
	if err := WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, part := range strings.Split(b.String(), "\n## ")[1:] {
		title, _, _ := strings.Cut(part, " (`")
		sections[title] = part
	}
	for _, g := range groups {
		_, fixes, found := strings.Cut(sections[g.Title], "\n**How to fix**\n\n")
		if !found {
			t.Errorf("group %s has no How to fix list", g.Code)
			continue
		}
		for _, c := range g.checks {
			item := fmt.Sprintf("- **%s %s.** %s\n  <%s>\n", c.ID, inline(c.Title), inline(c.Fix), c.Link)
			if !strings.Contains(fixes, item) {
				t.Errorf("%s's How to fix lacks\n%s", g.Code, item)
			}
		}
	}
}

// TestInline: prose keeps its characters in Markdown; only what would
// start markup is escaped.
func TestInline(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"allowed_hosts and session_idle_timeout", "allowed_hosts and session_idle_timeout"},
		{"result._meta[\"x\"] and _meta", `result.\_meta["x"] and \_meta`},
		{"trailing_ and _", `trailing\_ and \_`},
		{"a *wildcard* or `code` or <tag> or \\", `a \*wildcard\* or \` + "`" + `code\` + "`" + ` or \<tag\> or \\`},
		{"nginx: proxy_set_header Host $http_host;", "nginx: proxy_set_header Host $http_host;"},
	} {
		if got := inline(tt.in); got != tt.want {
			t.Errorf("inline(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEraIsTheGroups: the revision a check needs the target to speak is
// its group's, said once by the group; no check repeats it. Inside a
// boundary group a check that opens a 2025-11-25 session says so with
// asks, and only there is asks meaningful.
func TestEraIsTheGroups(t *testing.T) {
	var problems []string
	for _, g := range groups {
		if g.era == 0 {
			problems = append(problems, g.Code+": no era")
		}
		for _, c := range g.checks {
			if c.Needs&(NeedLegacy|NeedModern) != 0 {
				problems = append(problems, c.ID+": declares "+(c.Needs&(NeedLegacy|NeedModern)).String()+", which its group's era says")
			}
			if g.era != eraBoundary && c.asks != askOwn {
				problems = append(problems, c.ID+": asks for a request, but its group's era decides its revision")
			}
			if (c.asks == askSession) != (c.legacyFor != "") {
				problems = append(problems, c.ID+": asks for a 2025-11-25 session without saying what of it (legacyFor), or says so without asking")
			}
			if g.era == eraBoundary && c.Opens > 0 && c.asks == askOwn {
				problems = append(problems, c.ID+": opens a session without saying what it asks of a 2026-07-28-only target")
			}
		}
	}
	if diff := cmp.Diff([]string(nil), problems); diff != "" {
		t.Errorf("eras (-want +got):\n%s", diff)
	}
}
