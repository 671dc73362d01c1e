// Command sarifcheck checks SARIF files against the SARIF 2.1.0 schema
// and code scanning's upload rules: it prints every problem and exits 1
// when there is one. cmd/rawmcp/testdata/ci-example.sh runs it on the
// logs rawmcp probe writes.
//
//	go run ./wire/client/probe/testdata/schemacheck/sarifcheck FILE...
package main

import (
	"fmt"
	"os"

	"rawmcp/wire/client/probe/testdata/schemacheck"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sarifcheck FILE...")
		os.Exit(2)
	}
	code := 0
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, p := range schemacheck.SARIF(data) {
			fmt.Printf("%s: %s\n", path, p)
			code = 1
		}
	}
	os.Exit(code)
}
