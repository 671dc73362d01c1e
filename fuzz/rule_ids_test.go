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
)

// ruleIDShape matches a rule id of wire/rule (T-43,
// H-P07, A-P08) and the ad-hoc ids the code once used.
var ruleIDShape = regexp.MustCompile(`^([THAS]-P?[0-9]{2,}|A-tenant|H-gate|H-conns|T-P-capacity|internal)$`)

// TestRuleIDsSpelledOnlyInWireRule: a string literal that is exactly a rule
// id appears nowhere but in wire/rule, tests included, so every decision,
// trace and check names a rule.ID constant the rule table explains.
func TestRuleIDsSpelledOnlyInWireRule(t *testing.T) {
	root := ".."
	files := 0
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
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0)
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read %d Go files: the walk went wrong", files)
	}
}
