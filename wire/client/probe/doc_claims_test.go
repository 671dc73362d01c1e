package probe

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The deployment group's waits as the package declares them, read before
// TestMain shortens them for the tests.
var (
	declaredDP07Watch = dp07Watch()
	declaredIdleHold  = idleHold
)

// packageDoc returns doc.go's package comment, its lines joined by single
// spaces.
func packageDoc(t *testing.T) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(f.Doc.Text()), " ")
}

// TestDocNamesEveryCheckFile: the package comment names every file that
// declares a Check, the group files (those that also declare their group)
// apart from the topic files, and no other.
func TestDocNamesEveryCheckFile(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var groupFiles, topicFiles []string
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		declares := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.CompositeLit); ok {
				if id, ok := lit.Type.(*ast.Ident); ok {
					declares[id.Name] = true
				}
			}
			return true
		})
		switch {
		case declares["Check"] && declares["group"]:
			groupFiles = append(groupFiles, p)
		case declares["Check"]:
			topicFiles = append(topicFiles, p)
		}
	}
	doc := packageDoc(t)
	m := regexp.MustCompile(`in the file of its group \(([^)]*)\) or a topic file of the group \(([^)]*)\)`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatal(`doc.go has no "in the file of its group (…) or a topic file of the group (…)"`)
	}
	files := regexp.MustCompile(`\w+\.go`)
	namedGroup, namedTopic := files.FindAllString(m[1], -1), files.FindAllString(m[2], -1)
	slices.Sort(namedGroup)
	slices.Sort(namedTopic)
	if diff := cmp.Diff(groupFiles, namedGroup); diff != "" {
		t.Errorf("group files (-declared +named in doc.go):\n%s", diff)
	}
	if diff := cmp.Diff(topicFiles, namedTopic); diff != "" {
		t.Errorf("topic files (-declared +named in doc.go):\n%s", diff)
	}
}

// TestDocQuotesTheStreamWindows: the package comment's windows for reading
// an event stream are the ones the checks use.
func TestDocQuotesTheStreamWindows(t *testing.T) {
	if streamEnd != getWindow {
		t.Fatalf("doc.go gives GET streams and RS-01 one window; they are %s and %s", getWindow, streamEnd)
	}
	doc := packageDoc(t)
	for _, want := range []string{
		spoken(getWindow) + " for a GET stream and for a POST stream past its response (RS-01)",
		spoken(listenWindow) + " for a 2026-07-28 subscriptions/listen stream",
		spoken(exploreWindow) + " for a GET in an -explore walk",
		"DP-07 watches its streams " + spoken(declaredDP07Watch),
		"holds one up to " + spoken(declaredIdleHold),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("doc.go does not say %q", want)
		}
	}
}

// spoken writes d as the comments do: "500 ms", "1.5 s", "130 s".
func spoken(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// TestDocNamesThePhases: the package comment names the checks of each
// phase after the concurrent one, as the catalogue declares them.
func TestDocNamesThePhases(t *testing.T) {
	ids := map[phase][]string{}
	for _, c := range catalogue {
		ids[c.phase] = append(ids[c.phase], c.ID)
	}
	for ph := range ids {
		slices.Sort(ids[ph])
	}
	doc := packageDoc(t)
	m := regexp.MustCompile(`\(phaseScan: ([^)]*)\)`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatal(`doc.go has no "(phaseScan: …)"`)
	}
	named := regexp.MustCompile(`[A-Z0-9]+-\d+`).FindAllString(m[1], -1)
	if diff := cmp.Diff(ids[phaseScan], named); diff != "" {
		t.Errorf("phaseScan (-declared +named in doc.go, in id order):\n%s", diff)
	}
	var long []string
	for _, c := range catalogue {
		if c.long {
			long = append(long, c.ID)
		}
	}
	slices.Sort(long)
	m = regexp.MustCompile(`\(the long lane: ([^)]*)\)`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatal(`doc.go has no "(the long lane: …)"`)
	}
	if diff := cmp.Diff(long, regexp.MustCompile(`[A-Z0-9]+-\d+`).FindAllString(m[1], -1)); diff != "" {
		t.Errorf("the long lane (-declared +named in doc.go, in id order):\n%s", diff)
	}
	for _, alone := range []struct {
		ph       phase
		id, says string
	}{
		{phaseAlone, "SE-09", "SE-09, which fills the session table on purpose, runs alone after them (phaseAlone)"},
		{phaseEchoScan, "EH-01", "then EH-01, which reads theirs too (phaseEchoScan)"},
		{phaseLast, "PRE-03", "PRE-03, whether the target still answers, is last of all (phaseLast)"},
	} {
		if !slices.Equal(ids[alone.ph], []string{alone.id}) {
			t.Errorf("doc.go names %s alone in its phase; the catalogue has %v", alone.id, ids[alone.ph])
		}
		if !strings.Contains(doc, alone.says) {
			t.Errorf("doc.go does not say %q", alone.says)
		}
	}
}

// TestReadmeNamesTheChecksOfEitherRevision: the README names every check
// that needs neither legacy nor modern, PRE-01 apart.
func TestReadmeNamesTheChecksOfEitherRevision(t *testing.T) {
	var either []string
	for _, c := range catalogue {
		if c.Needs&(NeedLegacy|NeedModern) == 0 && c.ID != preflight.ID {
			either = append(either, c.ID)
		}
	}
	slices.Sort(either)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`but PRE-01, which finds out which, and those that apply to either revision \(([^;]*);`).
		FindStringSubmatch(strings.Join(strings.Fields(string(readme)), " "))
	if m == nil {
		t.Fatal("README.md no longer names the checks that apply to either revision")
	}
	if diff := cmp.Diff(either, regexp.MustCompile(`[A-Z0-9]+-\d+`).FindAllString(m[1], -1)); diff != "" {
		t.Errorf("checks of either revision (-declared +named in README.md, in id order):\n%s", diff)
	}
}

// TestReadmeNamesEveryAfter: the README's "Where it applies" sentence
// names every check that rests on another's finding (Check.After), with
// the checks it comes after, and no other.
func TestReadmeNamesEveryAfter(t *testing.T) {
	declared := map[string]string{}
	for _, c := range catalogue {
		if len(c.After) > 0 {
			after := slices.Clone(c.After)
			slices.Sort(after)
			declared[c.ID] = strings.Join(after, " ")
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	i := strings.Index(text, "Where it applies (")
	if i < 0 {
		t.Fatal(`README.md has no "Where it applies (…)" sentence`)
	}
	text = text[i:]
	text = text[:strings.Index(text, ". ")]
	id := regexp.MustCompile(`[A-Z0-9]+-\d+`)
	named := map[string]string{}
	for _, m := range regexp.MustCompile(`((?:[A-Z0-9]+-\d+(?:, | and ))*[A-Z0-9]+-\d+) after ((?:[A-Z0-9]+-\d+(?: and )?)+)`).FindAllStringSubmatch(text, -1) {
		after := id.FindAllString(m[2], -1)
		slices.Sort(after)
		for _, c := range id.FindAllString(m[1], -1) {
			named[c] = strings.Join(after, " ")
		}
	}
	if diff := cmp.Diff(declared, named); diff != "" {
		t.Errorf("Check.After (-declared +named in README.md):\n%s", diff)
	}
}

// TestDocShowsHO02AsDeclared: the declaration doc.go shows is HO-02's as
// ho.go declares it: its title, what it sends and passes, its sessions
// and the request it asks of either revision, and no need its group's era
// already adds (the era is said once, by the group).
func TestDocShowsHO02AsDeclared(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	i := strings.Index(doc, "var ho02 = Check{")
	if i < 0 {
		t.Fatal("doc.go no longer shows HO-02's declaration")
	}
	example := doc[i : i+strings.Index(doc[i:], "}")]
	field := func(name string) string {
		m := regexp.MustCompile(name + `:\s+("[^"]*"|\w+)`).FindStringSubmatch(example)
		if m == nil {
			return ""
		}
		if v, err := strconv.Unquote(m[1]); err == nil {
			return v
		}
		return m[1]
	}
	want := map[string]string{"Title": ho02.Title, "Sends": ho02.Sends, "Passes": ho02.Passes, "Sessions": strconv.Itoa(ho02.Sessions), "asks": "askEither", "Needs": ""}
	if ho02.asks != askEither || ho02.Needs != 0 {
		t.Fatalf("HO-02 asks %d and needs %v: update the example's asks and Needs", ho02.asks, ho02.Needs)
	}
	for name, v := range want {
		if got := field(name); got != v {
			t.Errorf("doc.go's HO-02 has %s %q, ho.go %q", name, got, v)
		}
	}
}

// TestReadmeNamesWhatEachBoundaryCheckAsks: the README's sentence on what
// a boundary check asks of the target (Check.asks) names each check of a
// boundary group under the ask it declares: requests of either revision,
// a 2025-11-25 session, requests of its own, or none (a check that sends
// nothing); PRE-01 and PRE-03, which send the opening requests as the
// runner's preflight and its last question, apart.
func TestReadmeNamesWhatEachBoundaryCheckAsks(t *testing.T) {
	declared := map[string][]string{}
	for _, g := range groups {
		if g.era != eraBoundary {
			continue
		}
		for _, c := range g.checks {
			kind := map[ask]string{askEither: "either", askSession: "session", askOwn: "own"}[c.asks]
			switch {
			case c.ID == preflight.ID || c.ID == pre03.ID:
				continue
			case c.asks == askOwn && strings.HasPrefix(c.Sends, "nothing"):
				kind = "none"
			}
			declared[kind] = append(declared[kind], c.ID)
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	m := regexp.MustCompile(`says what it asks of the target \(` + "`Check.asks`" + `\): requests of either revision \((.*?)\), a 2025-11-25 session \((.*?)\), or requests of its own, fit for any HTTP endpoint \((.*?)\), or none \((.*?)\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("README.md no longer says what each boundary check asks")
	}
	named := map[string][]string{}
	for i, kind := range []string{"either", "session", "own", "none"} {
		list := m[i+1]
		if kind == "session" {
			// After the skip it quotes: "…` for MM-04; PRE-02, MM-04, …".
			list = list[strings.LastIndex(list, "; ")+1:]
		}
		named[kind] = idsIn(list)
	}
	for kind := range declared {
		slices.Sort(declared[kind])
		slices.Sort(named[kind])
	}
	if diff := cmp.Diff(declared, named); diff != "" {
		t.Errorf("what the boundary's checks ask (-declared +named in README.md):\n%s", diff)
	}
}

// idsIn are the check ids a README list names, "HO-01 to HO-06" each of
// the range.
func idsIn(list string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`\b([A-Z][A-Z0-9]*)-(\d+)(?: to ([A-Z][A-Z0-9]*)-(\d+))?`).FindAllStringSubmatch(list, -1) {
		if m[3] == "" {
			out = append(out, m[0])
			continue
		}
		from, _ := strconv.Atoi(m[2])
		to, _ := strconv.Atoi(m[4])
		for n := from; n <= to; n++ {
			out = append(out, fmt.Sprintf("%s-%02d", m[1], n))
		}
	}
	return out
}
