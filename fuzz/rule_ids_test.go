package fuzz

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"rawmcp/wire/rule"
)

// ruleIDShape matches a rule id of wire/rule (T-43,
// H-P07, A-P08) and the ad-hoc ids the code once used.
var ruleIDShape = regexp.MustCompile(`^([THASD]-P?[0-9]{2,}|A-tenant|H-gate|H-conns|T-P-capacity|internal)$`)

// TestRuleIDsSpelledOnlyInWireRule: a string literal that is exactly a rule
// id appears nowhere but in wire/rule, tests included, so every decision,
// trace and check names a rule.ID constant the rule table explains.
func TestRuleIDsSpelledOnlyInWireRule(t *testing.T) {
	goFiles, _ := eachRepoFile(t, func(rel string, src []byte) {
		if !strings.HasSuffix(rel, ".go") {
			return
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(rel, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.STRING {
				continue
			}
			if v, err := strconv.Unquote(lit); err == nil && ruleIDShape.MatchString(v) {
				t.Errorf("%s:%d spells rule id %q: use its wire/rule constant", rel, fset.Position(pos).Line, v)
			}
		}
	})
	if goFiles < 50 {
		t.Fatalf("read %d Go files: the walk went wrong", goFiles)
	}
}

// citedID is a rule id where a comment, a test name or a document cites
// one: a letter of wire/rule's five families, an optional P, two digits;
// or one of the ad-hoc names the code once used instead of an id.
var citedID = regexp.MustCompile(`\b[THASD]-P?[0-9]{2,}\b|\b(A-tenant|H-gate|H-conns|T-P-capacity)\b`)

// TestCitedRuleIDsExist: every rule id a Go comment, a Go string (test
// names are named after the rule they check) or a Markdown file of the
// repository cites is in wire/rule's tables, so a reader who meets T-P14
// or H-19 anywhere can look it up in one place and finds what it means.
func TestCitedRuleIDsExist(t *testing.T) {
	cite := func(rel string, line int, text string) {
		for _, id := range citedID.FindAllString(text, -1) {
			if rule.ID(id).Text() == "" {
				t.Errorf("%s:%d cites %s, which wire/rule does not define", rel, line, id)
			}
		}
	}
	goFiles, mdFiles := eachRepoFile(t, func(rel string, src []byte) {
		switch {
		case rel == "fuzz/rule_ids_test.go": // this file spells the shapes it looks for
		case strings.HasSuffix(rel, ".md"):
			for i, line := range strings.Split(string(src), "\n") {
				cite(rel, i+1, line)
			}
		case strings.HasSuffix(rel, ".go"):
			fset := token.NewFileSet()
			var s scanner.Scanner
			s.Init(fset.AddFile(rel, -1, len(src)), src, nil, scanner.ScanComments)
			for {
				pos, tok, lit := s.Scan()
				if tok == token.EOF {
					break
				}
				if tok == token.COMMENT || tok == token.STRING {
					cite(rel, fset.Position(pos).Line, lit)
				}
			}
		}
	})
	if goFiles+mdFiles < 60 {
		t.Fatalf("read %d files: the walk went wrong", goFiles+mdFiles)
	}
}

// eachRepoFile calls visit with the path (from the repository root) and
// the bytes of every Go and Markdown file outside wire/rule and dot
// folders, and returns how many of each it read.
func eachRepoFile(t *testing.T, visit func(rel string, src []byte)) (goFiles, mdFiles int) {
	t.Helper()
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "wire/rule" || strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".go"):
			goFiles++
		case strings.HasSuffix(path, ".md"):
			mdFiles++
		default:
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		visit(rel, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return goFiles, mdFiles
}
